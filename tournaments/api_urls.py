"""Tournaments API routes, included under /api/ by the project's urls."""

from django.urls import path

from tournaments import api, round_api

app_name = "tournaments_api"

urlpatterns = [
    path("tournaments/", api.TournamentListView.as_view(), name="list"),
    path("tournaments/<int:pk>/", api.TournamentDetailView.as_view(), name="detail"),
    path("tournaments/<int:pk>/register/", api.RegisterView.as_view(), name="register"),
    path("tournaments/<int:pk>/withdraw/", api.WithdrawView.as_view(), name="withdraw"),
    path("tournaments/<int:pk>/check-in/", api.CheckInView.as_view(), name="check_in"),
    path("tournaments/<int:pk>/manage/", api.ManageView.as_view(), name="manage"),
    path("tournaments/<int:pk>/standings/", api.StandingsView.as_view(), name="standings"),
    path("tournaments/<int:pk>/round/", round_api.LiveRoundView.as_view(), name="round"),
    path("tournaments/<int:pk>/round/replace/", round_api.ReplaceView.as_view(), name="round_replace"),
    path("tournaments/<int:pk>/round/abort/", round_api.AbortView.as_view(), name="round_abort"),
]
