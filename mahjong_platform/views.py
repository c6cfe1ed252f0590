import contextlib
import logging
import uuid
from datetime import datetime
from typing import Any

from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.views import defaults
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

logger = logging.getLogger(__name__)

# How long a check may take before it counts as failed (seconds).
CHECK_TIMEOUT = 2.0


def _check_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def _check_redis() -> None:
    import redis

    client = redis.Redis.from_url(
        settings.REDIS_URL, socket_timeout=CHECK_TIMEOUT, socket_connect_timeout=CHECK_TIMEOUT
    )
    try:
        if not client.ping():
            raise ConnectionError("Redis did not answer PING")
    finally:
        client.close()


async def _layer_round_trip() -> None:
    import asyncio

    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer configured")
    channel = await layer.new_channel("healthz.")
    token = uuid.uuid4().hex
    try:
        await layer.send(channel, {"type": "healthz.ping", "token": token})
        message = await asyncio.wait_for(layer.receive(channel), CHECK_TIMEOUT)
    finally:
        if type(layer).__name__ == "RedisPubSubChannelLayer":
            # That layer subscribes this process to the channel until a receive on it is
            # cancelled (what Channels does when a consumer ends): without this, every check
            # would leave one Redis subscription behind.
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(layer.receive(channel), 0.001)
    if message.get("token") != token:
        raise RuntimeError("the channel layer returned another message")


def _check_channel_layer() -> None:
    async_to_sync(_layer_round_trip)()


def _check_sweeper() -> dict[str, Any]:
    from games.services import last_sweep

    value = last_sweep()
    if value is None:
        raise RuntimeError("the sweeper has not run (is beat running?)")
    age = (timezone.now() - datetime.fromisoformat(value)).total_seconds()
    if age > float(settings.CAISHEN_SWEEP_STALE_SECONDS):
        raise RuntimeError(f"the sweeper last ran {age:.0f} s ago")
    return {"last_run": value, "age_seconds": round(age, 1)}


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness and dependencies, for load balancers, scripts and the integration suite.

    Always the database; with REDIS_URL also Redis and a round trip through the channel layer;
    with Celery timers also the deadline sweeper's last run (beat and a worker are alive).
    """
    checks: list[tuple[str, Any]] = [("database", _check_database)]
    if getattr(settings, "REDIS_URL", ""):
        checks += [("redis", _check_redis), ("channel_layer", _check_channel_layer)]
    if settings.CAISHEN_TIMERS == "celery":
        checks.append(("sweeper", _check_sweeper))
    body: dict[str, Any] = {"status": "ok"}
    details: dict[str, Any] = {}
    for name, check in checks:
        try:
            detail = check()
        except DatabaseError:
            logger.exception("healthz: %s check failed", name)
            body[name], body["status"] = "error", "error"
            continue
        except Exception as exc:
            logger.warning("healthz: %s check failed: %s", name, exc)
            body[name], body["status"] = "error", "error"
            details[name] = str(exc)
            continue
        body[name] = "ok"
        if detail:
            details[name] = detail
    if details:
        body["details"] = details
    # This process's saturation (games/services/overload.py), for dashboards and a balancer that routes
    # new tables.  Never an error: a saturated process still serves its running tables, and a
    # balancer that took it out for being busy would move its load onto the others (and drop
    # its sockets) — the process refuses new work itself instead.
    from games.runtime.process import runtime

    process = runtime()
    body["load"] = process.monitor.state() | {"snapshots": dict(process.snapshots)}
    return JsonResponse(body, status=200 if body["status"] == "ok" else 503)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler404: an API path that matches no route (``/api/tables/abc/``) answers JSON like every
    other API refusal, as the OpenAPI schema says (mahjong_platform/openapi.py); the site's pages
    keep Django's page."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "not found: no such API path or object"}, status=404)
    return defaults.page_not_found(request, exception)
