"""WebSocket URL routes for the whole site.

Empty for now: the live table adds its consumers (games.routing) here.
"""

from django.urls import URLPattern, URLResolver

websocket_urlpatterns: list[URLPattern | URLResolver] = []
