"""ASGI entry point of the reference table server: ``daphne games.tools.loadtest.reference.asgi:application``.

The same process as ``mahjong_platform.asgi`` minus the table server: the same settings
(database, channel layer), the same GIL switch interval, origin check, session authentication,
socket output bound and collector tuning, so the two differ only in what runs per action.  Not
started here: the fan-out outbox and the timers (the reference has neither).
"""

import os
import sys

from django.conf import settings
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mahjong_platform.settings")
# As mahjong_platform.asgi (why: there).
sys.setswitchinterval(settings.CAISHEN.switch_interval)

django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from games.tools.loadtest.reference.consumer import ReferenceConsumer  # noqa: E402
from mahjong_platform.gc_tuning import tune_for_latency  # noqa: E402
from mahjong_platform.origins import SameOriginValidator  # noqa: E402
from mahjong_platform.socket_limits import install as bound_socket_output  # noqa: E402

# The real table's URL, so the load client needs no option to tell the servers apart.
websocket_urlpatterns = [path("ws/table/<int:table_id>/", ReferenceConsumer.as_asgi())]

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)

bound_socket_output()
tune_for_latency()
