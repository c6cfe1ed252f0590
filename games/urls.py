from django.urls import path

from games.web import js_catalog, views

app_name = "games"

urlpatterns = [
    path("", views.home, name="home"),
    path("play/", views.quick_play, name="quick_play"),
    path("rules/", views.rules_index, name="rules"),
    path("rules/<slug:key>/", views.rules_detail, name="rule"),
    path("tables/", views.lobby, name="lobby"),
    path("tables/new/", views.create, name="create"),
    path("tables/join/", views.join, name="join"),
    path("tables/<int:pk>/", views.table, name="table"),
    path("tables/<int:pk>/sit/", views.sit, name="sit"),
    path("tables/<int:pk>/stand/", views.stand, name="stand"),
    path("tables/<int:pk>/ready/", views.ready, name="ready"),
    path("tables/<int:pk>/bots/", views.bots, name="bots"),
    path("hands/<int:pk>/replay/", views.hand_replay, name="hand_replay"),
    # The table's words (static/js/i18n.js, refusals.js) from the djangojs gettext catalog.
    path("jsi18n/<str:language>/<slug:version>.js", js_catalog.js_catalog, name="js_catalog"),
]
