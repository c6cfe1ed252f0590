"""Games API routes (rule sets, tables, hands), included under /api/ by the project's urls."""

from django.urls import path

from games.web import api, table_settings_api

app_name = "games_api"

urlpatterns = [
    path("rulesets/", api.RuleSetListView.as_view(), name="rulesets"),
    path("rulesets/<slug:key>/", api.RuleSetDetailView.as_view(), name="ruleset"),
    path("tables/", api.TableListView.as_view(), name="tables"),
    path("quick-play/", api.QuickPlayView.as_view(), name="quick_play"),
    path("tables/join/", api.JoinView.as_view(), name="join"),
    path("tables/<int:pk>/", api.TableDetailView.as_view(), name="table"),
    path("tables/<int:pk>/hands/", api.TableHandsView.as_view(), name="table_hands"),
    path("tables/<int:pk>/sit/", api.SitView.as_view(), name="sit"),
    path("tables/<int:pk>/stand/", api.StandView.as_view(), name="stand"),
    path("tables/<int:pk>/ready/", api.ReadyView.as_view(), name="ready"),
    path("tables/<int:pk>/bots/", api.BotsView.as_view(), name="bots"),
    path("hands/<int:pk>/", api.HandView.as_view(), name="hand"),
    path("hands/<int:pk>/replay.jsonl", api.HandReplayView.as_view(), name="hand_replay"),
    path("hands/<int:pk>/analysis/", api.HandAnalysisView.as_view(), name="hand_analysis"),
    path("hands/<int:pk>/verify/", api.HandVerifyView.as_view(), name="hand_verify"),
    path("table-settings/", table_settings_api.TableSettingsView.as_view(), name="table_settings"),
    path("replays/check/", api.ReplayCheckView.as_view(), name="replay_check"),
]
