"""Ratings API routes, included under /api/ by the project's urls."""

from django.urls import path

from ratings import api

app_name = "ratings_api"

urlpatterns = [
    path("leaderboards/<slug:variant>/", api.LeaderboardView.as_view(), name="leaderboard"),
    path("players/<str:username>/stats/", api.PlayerStatsView.as_view(), name="player_stats"),
    path("tables/<int:pk>/rating/", api.TableRatingView.as_view(), name="table_rating"),
]
