"""ASGI entry point: `daphne mahjong_platform.asgi:application`.

HTTP goes to Django; WebSocket connections must come from this site's own origin or a trusted one
(the Origin header, scheme, host and port: mahjong_platform/origins.py), get the session user from
AuthMiddlewareStack, and are routed by URL.
"""

import asyncio
import os
import sys
from typing import Any

from django.conf import settings
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mahjong_platform.settings")
# A daphne process runs its database work on one thread (Channels' thread-sensitive executor)
# and its sockets on the event loop's.  The database thread gives up the GIL on every query and,
# with CPython's default 5 ms switch interval, may then wait up to 5 ms for the busy loop thread
# to hand it back — per query.  A shorter interval cut p99 at 100 tables from 415 to 221 ms
# (docs/performance.md).
sys.setswitchinterval(settings.CAISHEN.switch_interval)

# Set up Django (app registry included) before importing anything that may touch models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from games.runtime import dbqueue  # noqa: E402
from games.runtime.process import runtime  # noqa: E402
from games.runtime.timers import backend_name, local_upto  # noqa: E402
from mahjong_platform.gc_tuning import tune_for_latency  # noqa: E402
from mahjong_platform.heavy_read_gate import limit_heavy_reads  # noqa: E402
from mahjong_platform.http_threads import HttpThreads, on_pooled_threads  # noqa: E402
from mahjong_platform.origins import SameOriginValidator  # noqa: E402
from mahjong_platform.overload_gate import refuse_while_overloaded  # noqa: E402
from mahjong_platform.raw_post_bodies import install as raw_post_bodies  # noqa: E402
from mahjong_platform.routing import websocket_urlpatterns  # noqa: E402
from mahjong_platform.socket_limits import install as bound_socket_output  # noqa: E402


def bind_to_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Attach what must run on daphne's event loop: the fan-out outbox (games/runtime/fanout.py), the
    saturation probe (games/runtime/saturation.py) and, in the embedded mode, the in-process timers and
    their sweeper.  Idempotent."""
    process = runtime()
    process.outbox.bind(loop)
    process.monitor.bind(loop)
    if backend_name() == "inprocess":
        process.timers.bind(loop)
    elif local_upto() > 0:
        process.timers.bind(loop, sweep=False)  # celery timers, the short ones fired here


def bind_when_the_server_runs() -> bool:
    """Start the timers with the process, not with its first request: after a restart a table of
    bots (or a player's overdue turn) must move on although no browser has reconnected yet.
    Under daphne the event loop is Twisted's asyncio reactor's, installed before this module is
    imported; its callWhenRunning fires once the server is up.  Elsewhere (tests, other ASGI
    servers) the first request still binds (bound_to_server_loop)."""
    reactor = sys.modules.get("twisted.internet.reactor")
    loop = getattr(reactor, "_asyncioEventloop", None)
    if reactor is None or loop is None:
        return False
    reactor.callWhenRunning(bind_to_loop, loop)
    return True


def bound_to_server_loop(app: Any) -> Any:
    """Any request binds too (idempotent): the safety net where no reactor announced itself."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> Any:
        bind_to_loop(asyncio.get_running_loop())
        return await app(scope, receive, send)

    return wrapped


application = bound_to_server_loop(
    ProtocolTypeRouter(
        {
            # New tables and match starts are refused on the loop while the process is saturated
            # (mahjong_platform/overload_gate.py): a refusal must not cost the saturated thread.
            # A client's heavy reads (table and replay pages, analyses, the replay check) are
            # bounded per address on the loop too (mahjong_platform/heavy_read_gate.py): a flood
            # of them must not slow the tables down and close the lobby to everyone else.
            # Django's views run on a few long-lived threads (mahjong_platform/http_threads.py).
            "http": limit_heavy_reads(
                refuse_while_overloaded(on_pooled_threads(django_asgi_app, HttpThreads(settings.CAISHEN.http_threads)))
            ),
            # Not Channels' AllowedHostsOriginValidator: it compares the Origin's host only, so any
            # port or scheme on an allowed host (http://localhost:3000) passed for a signed-in socket.
            "websocket": SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
        }
    )
)

# The database thread with a lane for timer steps ahead of socket work (games/runtime/dbqueue.py):
# installed before the first database_sync_to_async call of the process.
dbqueue.install(settings.CAISHEN.db_trace)

bind_when_the_server_runs()

# A socket whose client stopped reading is dropped once its unsent output passes
# CAISHEN_SOCKET_SEND_BUFFER, instead of growing daphne without end (mahjong_platform/socket_limits.py).
bound_socket_output()
raw_post_bodies()  # Twisted's own parse of POST bodies: no class per request (mahjong_platform/raw_post_bodies.py)

# Last, with everything imported: freeze the start-up heap and raise the young threshold, so the
# collector's pauses stop being the latency's tail (mahjong_platform/gc_tuning.py).
tune_for_latency()
