"""WSGI entry point (plain HTTP only; the platform itself runs under ASGI with daphne)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mahjong_platform.settings")

application = get_wsgi_application()
