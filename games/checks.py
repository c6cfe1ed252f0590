"""System checks: refuse a live-table configuration that cannot work (spec/DESIGN.md §4)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, register
from django.utils.module_loading import import_string


def _is_in_memory(backend: str) -> bool:
    """Channels' in-memory layer or a subclass (games.layers.EmbeddedChannelLayer): one process only."""
    from channels.layers import InMemoryChannelLayer

    try:
        cls = import_string(backend)
    except ImportError:
        return backend.endswith("InMemoryChannelLayer")
    return isinstance(cls, type) and issubclass(cls, InMemoryChannelLayer)


@register()
def timers_match_topology(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    errors: list[Error] = []
    timers = getattr(settings, "CAISHEN_TIMERS", "inprocess")
    layer = settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", "")
    in_memory = _is_in_memory(str(layer))
    if timers not in ("inprocess", "celery"):
        errors.append(Error(f"CAISHEN_TIMERS must be 'inprocess' or 'celery', not {timers!r}", id="caishen.E001"))
    if timers == "celery" and in_memory:
        errors.append(
            Error(
                "Celery timers with the in-memory channel layer: a worker could not reach the sockets.",
                hint="Set REDIS_URL (channels-redis) or CAISHEN_TIMERS=inprocess.",
                id="caishen.E002",
            )
        )
    if timers == "inprocess" and not in_memory and getattr(settings, "CAISHEN_PROCESSES", 1) > 1:
        errors.append(
            Error(
                "In-process timers with several server processes: each process would only see its own timers.",
                hint="Use CAISHEN_TIMERS=celery with a worker and beat, or run one process.",
                id="caishen.E003",
            )
        )
    if float(getattr(settings, "CAISHEN_LOCAL_TIMERS_UPTO", 0) or 0) < 0:
        errors.append(
            Error(
                "CAISHEN_LOCAL_TIMERS_UPTO is a number of seconds, 0 or more.",
                hint="2 (the default): deadlines that close fire in the web process; 0: all in Celery.",
                id="caishen.E005",
            )
        )
    if getattr(settings, "CAISHEN_SETTLEMENT", "inline") == "celery" and in_memory:
        errors.append(Error("Celery settlement needs the scaled topology (REDIS_URL and a broker).", id="caishen.E004"))
    return errors
