from django.contrib import admin
from django.urls import include, path

from mahjong_platform.views import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("", include("games.urls")),
]
