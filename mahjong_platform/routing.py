"""WebSocket URL routes for the whole site."""

from django.urls import URLPattern, URLResolver

from games.live.routing import websocket_urlpatterns as game_routes

websocket_urlpatterns: list[URLPattern | URLResolver] = [*game_routes]
