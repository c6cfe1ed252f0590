"""Garbage-collector settings for the long-running processes (daphne, the Celery worker, the
load client): short pauses rather than CPython's defaults.

Why (docs/performance.md, "The event loop and the fan-out"): at 200 tables a daphne process holds ~250 000
objects the collector tracks — a third of them from start-up (modules, classes, functions), the
rest per socket (Channels' and Twisted's coroutines, tasks, queues).  With the defaults
(700, 10, 10) a full collection walks all of them every ~10 s: 100-140 ms of CPU with the event
loop stopped, and the young collections run ~12 times a second, up to 28 ms each.  Those pauses
are then the latency's tail (max 145-211 ms, p99 up to 62 ms).

* ``gc.freeze()`` after start-up moves the start-up heap into the permanent generation: it
  never becomes garbage, and collections stop walking it.
* A larger first threshold (20 000 allocations instead of 700) lets short-lived objects (a
  step's frames, a message's dicts) die before a collection sees them, so far fewer survive into
  the older generations, which then fill — and are walked — less often.  Same workload: total
  collector time 1.5 s → 0.25 s per minute, longest pause 126 → 44 ms.

Both are environment settings (docs/operations.md; read by core/config.py):
``CAISHEN_GC_FREEZE`` (1/0) and ``CAISHEN_GC_THRESHOLD`` (three integers, or ``default`` for
CPython's own; a malformed value stops start-up, better than a silently untuned server).
"""

from __future__ import annotations

import gc
import logging
import time
from typing import Any

from django.conf import settings

log = logging.getLogger("caishen.gc")


def tune_for_latency() -> None:
    """Call once, when the process has imported what it runs and before it serves (for a
    forking server, before it forks: the frozen heap then stays shared copy-on-write)."""
    config = settings.CAISHEN
    if config.gc_freeze:
        gc.collect()  # what start-up left as garbage is freed, not frozen
        gc.freeze()
    if config.gc_threshold is not None:
        gc.set_threshold(*config.gc_threshold)
    log_long_pauses(config.gc_log_ms)


class PauseLog:
    """Log each collection that stops the process longer than ``CAISHEN_GC_LOG_MS`` (a warning
    with its generation, duration and what it collected), so an operator can tell a latency tail
    caused by the collector from one caused by load.  Off (no callback) unless the variable is
    above 0."""

    def __init__(self, threshold_ms: float) -> None:
        self.threshold_s = threshold_ms / 1000
        self.started = 0.0
        self.longest_ms = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
            return
        took = time.perf_counter() - self.started
        self.longest_ms = max(self.longest_ms, 1000 * took)
        if took >= self.threshold_s:
            log.warning(
                "long collection",
                extra={
                    "generation": info.get("generation"),
                    "ms": round(1000 * took, 1),
                    "collected": info.get("collected"),
                    "tracked": len(gc.get_objects(info.get("generation", 2))),
                },
            )


def log_long_pauses(threshold_ms: float) -> PauseLog | None:
    if threshold_ms <= 0:
        return None
    pauses = PauseLog(threshold_ms)
    gc.callbacks.append(pauses)
    return pauses
