"""System checks: refuse a live-table configuration that cannot work (spec/DESIGN.md §4), and
settings that break their own rules (core/config.py)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, register
from django.utils.module_loading import import_string

from core.config import CaishenConfig, problem, problems, runtime_fields, variable

# Their own older checks; every other rule of config.py is caishen.E006.
OWN_CHECK = {"CAISHEN_TIMERS": "caishen.E001", "CAISHEN_LOCAL_TIMERS_UPTO": "caishen.E005"}


def _is_in_memory(backend: str) -> bool:
    """Channels' in-memory layer or a subclass (games.runtime.layers.EmbeddedChannelLayer): one process only."""
    from channels.layers import InMemoryChannelLayer

    try:
        cls = import_string(backend)
    except ImportError:
        return backend.endswith("InMemoryChannelLayer")
    return isinstance(cls, type) and issubclass(cls, InMemoryChannelLayer)


@register()
def caishen_settings_follow_their_rules(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """The CAISHEN object and the flat settings read at run time, held to config.py's types,
    bounds and choices: the environment's values were already (the loader refuses them), but a
    settings module or an override may set these names to anything."""
    errors: list[Error] = []
    config = getattr(settings, "CAISHEN", None)
    if not isinstance(config, CaishenConfig):
        return [Error("settings.CAISHEN must be a core.config.CaishenConfig", id="caishen.E006")]
    found = dict(problems(config))
    for item in runtime_fields():
        name = variable(item)
        wrong = problem(item, getattr(settings, name, getattr(config, item.name)))
        if wrong is not None:
            found[name] = wrong
    for name, wrong in found.items():
        if name not in OWN_CHECK:
            errors.append(Error(f"{name} {wrong}", hint="See docs/operations.md.", id="caishen.E006"))
    return errors


@register()
def timers_match_topology(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    errors: list[Error] = []
    timers = settings.CAISHEN_TIMERS
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
    if timers == "inprocess" and not in_memory and settings.CAISHEN_PROCESSES > 1:
        errors.append(
            Error(
                "In-process timers with several server processes: each process would only see its own timers.",
                hint="Use CAISHEN_TIMERS=celery with a worker and beat, or run one process.",
                id="caishen.E003",
            )
        )
    upto = settings.CAISHEN_LOCAL_TIMERS_UPTO
    if isinstance(upto, bool) or not isinstance(upto, int | float) or upto < 0:
        errors.append(
            Error(
                "CAISHEN_LOCAL_TIMERS_UPTO is a number of seconds, 0 or more.",
                hint="2 (the default): deadlines that close fire in the web process; 0: all in Celery.",
                id="caishen.E005",
            )
        )
    if settings.CAISHEN_SETTLEMENT == "celery" and in_memory:
        errors.append(Error("Celery settlement needs the scaled topology (REDIS_URL and a broker).", id="caishen.E004"))
    return errors
