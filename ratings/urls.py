from django.urls import path

from ratings import views

app_name = "ratings"

urlpatterns = [
    path("", views.index, name="index"),
    path("players/<str:username>/", views.player, name="player"),
    path("tournaments/<int:pk>/player-stats.csv", views.tournament_stats_csv, name="tournament_stats_csv"),
    path("<slug:variant>/", views.leaderboard, name="leaderboard"),
    path("<slug:variant>/vs-bots/", views.bot_leaderboard, name="bot_leaderboard"),
]
