from django.urls import path

from tournaments import round_pages, views

app_name = "tournaments"

urlpatterns = [
    path("", views.index, name="index"),
    path("new/", views.create, name="create"),
    path("<int:pk>/", views.detail, name="detail"),
    path("<int:pk>/register/", views.register, name="register"),
    path("<int:pk>/withdraw/", views.withdraw, name="withdraw"),
    path("<int:pk>/check-in/", views.check_in, name="check_in"),
    path("<int:pk>/manage/", views.manage, name="manage"),
    path("<int:pk>/round/", round_pages.live_round, name="round"),
    path("<int:pk>/round/act/", round_pages.act, name="round_act"),
    path("<int:pk>/standings.csv", views.standings_csv, name="standings_csv"),
    path("<int:pk>/results.csv", views.results_csv, name="results_csv"),
    path("<int:pk>/standings.json", views.standings_json, name="standings_json"),
]
