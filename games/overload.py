"""Saturation of this process, measured by itself, and the refusal of new work past it (issue 17).

A daphne process that is saturated does not fail: every table on it slows down together, and
new tables and matches keep piling on until each waits seconds (docs/performance.md, "Overload
(issue 17)").  So the process watches two signs of its own saturation and, past a threshold,
refuses what would *add* load — a new table, a new match — while every running match keeps
being served:

* event-loop lag: a probe on daphne's loop asks to wake every ``CAISHEN_OVERLOAD_PROBE_MS`` and
  notes how late it woke.  Every socket read, frame and timer shares that loop, so its lateness
  is what each of them waits before it is even looked at;
* queue depth: what is waiting for the process's one database thread (Channels'
  thread-sensitive executor, games/dbqueue.py) plus the fan-out outbox's unsent messages
  (games/fanout.py).  A loop can be on time while the database thread falls behind: the
  commands wait in its queue, not on the loop;
* CPU: the share of one core the process used (all its threads: under the GIL one core is all
  a daphne process gets).  Lag and queue only grow once the process is already saturated —
  by then every running table waits (docs/performance.md: p99 43 ms at 61 % of a core, 327 ms
  at 99 %).  The CPU share says it *before* that, so new matches stop while the running ones
  are still served at full speed.

All three are smoothed with an exponential moving average over ``CAISHEN_OVERLOAD_WINDOW`` seconds —
one slow collection or one burst of connects is not saturation — and the state has hysteresis:
it turns on when any average passes its threshold and turns off only when lag and queue are
below ``CAISHEN_OVERLOAD_RECOVER`` times theirs, the CPU share below
``CAISHEN_OVERLOAD_CPU_RECOVER`` times its own, *and* it has been on for at least
``CAISHEN_OVERLOAD_MIN_SECONDS``, so it does not flap at the edge.

Each process measures only itself (the scaled mode runs several) and refuses only what reaches
it: a new table may be created through a process that is not saturated and then be played on
one that is.  That is accepted (docs/operations.md, "Overload").  A process that runs no probe
(a Celery worker, a management command, tests without a server) is never overloaded.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext as _

from games.services.common import Refused
from mahjong_platform.config import CaishenConfig

log = logging.getLogger("caishen.overload")


@dataclass(frozen=True)
class Thresholds:
    """The monitor's settings (docs/operations.md, "Overload").  ``lag_ms``, ``depth`` or ``cpu``
    at 0 switches that sign off; all three at 0, the process never refuses."""

    lag_ms: float = 250.0  # smoothed loop lag that counts as saturated
    depth: float = 100.0  # smoothed database-thread backlog + outbox messages that counts as saturated
    cpu: float = 0.7  # smoothed share of one core (process CPU time / wall time) that counts as saturated
    cpu_recover: float = 0.9  # the CPU sign is calm again below this fraction of ``cpu``
    window_s: float = 2.0  # the moving averages' time constant
    recover: float = 0.5  # leave the state below this fraction of both thresholds...
    min_on_s: float = 10.0  # ...and not before it has lasted this long
    probe_s: float = 0.1  # how often the probe asks to wake
    retry_after_s: int = 30  # what a refusal asks the client to wait (the Retry-After header)

    @classmethod
    def from_config(cls, config: CaishenConfig) -> Thresholds:
        """The ``CAISHEN_OVERLOAD_*`` settings (parsed and bounded by mahjong_platform/config.py)."""
        return cls(
            lag_ms=config.overload_lag_ms,
            depth=config.overload_queue,
            cpu=config.overload_cpu,
            cpu_recover=config.overload_cpu_recover,
            window_s=config.overload_window,
            recover=config.overload_recover,
            min_on_s=config.overload_min_seconds,
            probe_s=config.overload_probe_ms / 1000,
            retry_after_s=int(config.overload_retry_after),
        )


class SaturationMonitor:
    """Smoothed lag and depth, and the overloaded state with hysteresis.

    ``observe`` is fed by the probe (``run``) on the loop, or directly by tests with their own
    clock.  The state is read from any thread (the database thread's services, Django's request
    threads): plain attributes, each written whole by the loop's thread only.
    """

    def __init__(
        self,
        thresholds: Thresholds | None = None,
        clock: Callable[[], float] = time.monotonic,
        depth: Callable[[], int] | None = None,
        cpu: Callable[[], float] = time.process_time,
    ) -> None:
        self.thresholds = thresholds or Thresholds()
        self.clock = clock
        self.depth_source = depth or current_depth
        self.cpu_source = cpu  # the process's CPU seconds so far (all threads)
        self.lag_ms = 0.0  # smoothed
        self.depth = 0.0  # smoothed
        self.cpu = 0.0  # smoothed share of one core
        self._last_cpu: float | None = None
        self.last_lag_ms = 0.0  # the latest probe's, unsmoothed
        self.last_depth = 0
        self.overloaded = False
        self.since: float | None = None  # clock() when the state last turned on
        self.refusals = 0  # new tables and matches refused so far (for /healthz and the log)
        self._last: float | None = None  # clock() of the previous observation
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- measuring ------------------------------------------------------------------------
    def observe(self, lag_s: float, depth: int, now: float | None = None) -> None:
        """One probe's reading.  The average weighs it by the time since the last one (an EWMA
        with a time constant, not per sample): a late probe — the loop was blocked — counts for
        the whole time it stood for, not as one sample among many."""
        now = self.clock() if now is None else now
        lag_ms = max(0.0, lag_s * 1000)
        self.last_lag_ms, self.last_depth = lag_ms, depth
        cpu_now = self.cpu_source()
        if self._last is None:
            weight = 1.0 - math.exp(-self.thresholds.probe_s / self.thresholds.window_s)
            share = None
        else:
            elapsed = max(0.0, now - self._last)
            weight = 1.0 - math.exp(-elapsed / self.thresholds.window_s)
            last_cpu = self._last_cpu if self._last_cpu is not None else cpu_now
            share = (cpu_now - last_cpu) / elapsed if elapsed > 0 else None
        self._last, self._last_cpu = now, cpu_now
        self.lag_ms += weight * (lag_ms - self.lag_ms)
        self.depth += weight * (depth - self.depth)
        if share is not None:
            self.cpu += weight * (max(0.0, share) - self.cpu)
        self._update(now)

    def _update(self, now: float) -> None:
        t = self.thresholds
        over_lag = t.lag_ms > 0 and self.lag_ms > t.lag_ms
        over_depth = t.depth > 0 and self.depth > t.depth
        over_cpu = t.cpu > 0 and self.cpu > t.cpu
        figures = {"lag_ms": round(self.lag_ms, 1), "queue": round(self.depth, 1), "cpu": round(self.cpu, 2)}
        if not self.overloaded:
            if over_lag or over_depth or over_cpu:
                self.overloaded, self.since = True, now
                log.warning("overloaded: refusing new tables and matches", extra=figures)
            return
        calm_lag = t.lag_ms <= 0 or self.lag_ms < t.lag_ms * t.recover
        calm_depth = t.depth <= 0 or self.depth < t.depth * t.recover
        calm_cpu = t.cpu <= 0 or self.cpu < t.cpu * t.cpu_recover
        lasted = self.since is None or now - self.since >= t.min_on_s
        if calm_lag and calm_depth and calm_cpu and lasted:
            self.overloaded, self.since = False, None
            log.warning(
                "load back to normal: new tables and matches accepted", extra=figures | {"refused": self.refusals}
            )

    # -- the probe on the server's loop ---------------------------------------------------
    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start the probe on daphne's loop (once; asgi.bind_to_loop)."""
        if self._loop is loop and not loop.is_closed():
            return
        t = self.thresholds
        if t.lag_ms <= 0 and t.depth <= 0 and t.cpu <= 0:
            return  # switched off: nothing to measure
        self._loop = loop
        self._task = loop.create_task(self.run())

    def serving(self) -> bool:
        """Is the probe alive: bound, its task running on a loop that is not closed, and heard
        from within ``STALE_S``?  (A test's event loop that bound it and went away leaves the
        task pending forever; the last state must not outlive the measuring.)"""
        if self._task is None or self._task.done() or self._loop is None or self._loop.is_closed():
            return False
        return self._last is None or self.clock() - self._last <= STALE_S

    def refusing(self) -> bool:
        """Does the process refuse new work now: overloaded, as measured by a live probe (or set
        by hand on a monitor that never had one: tests)."""
        return self.overloaded and (self._loop is None or self.serving())

    async def run(self) -> None:
        """Sleep ``probe_s``, note how much later than asked the loop woke us, repeat.  A callback
        that holds the loop for 300 ms makes the next wake-up 300 ms late: that is the wait every
        socket and timer on the loop had too."""
        loop = asyncio.get_running_loop()
        interval = self.thresholds.probe_s
        while True:
            asked = loop.time() + interval
            await asyncio.sleep(interval)
            try:
                self.observe(loop.time() - asked, self.depth_source(), self.clock())
            except Exception:  # the probe must outlive a bad reading
                log.exception("overload probe failed")

    # -- reading --------------------------------------------------------------------------
    def state(self) -> dict[str, object]:
        """For /healthz: the smoothed figures, the latest probe's, and the state."""
        return {
            "lag_ms": round(self.lag_ms, 1),
            "queue": round(self.depth, 1),
            "cpu": round(self.cpu, 2),
            "last_lag_ms": round(self.last_lag_ms, 1),
            "last_queue": self.last_depth,
            "overloaded": self.refusing(),
            "refused": self.refusals,
            "measured": self.serving(),
        }


STALE_S = 60.0  # a probe silent this long is not measuring any more (SaturationMonitor.serving)


class Overloaded(Refused):
    """A new table or match refused because this process is saturated; ``retry_after``: the
    seconds to wait before trying again (the REST API's Retry-After)."""

    code = "overloaded"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def message() -> str:
    # Translated (zh-Hans / English) in the language active for the request: the REST API's
    # ``detail``, the lobby's and the table page's messages show it as is.
    return _(
        "The server is busy and is not starting new tables or matches for now. "
        "Games already running are not affected. Try again in a minute."
    )


def refuse_new_work() -> None:
    """Raise ``Overloaded`` if this process is saturated: called where a new table is created or
    a new match would start, never on a running match's path."""
    if MONITOR.refusing():
        MONITOR.refusals += 1  # from several threads: a count for the log and /healthz, not exact
        raise Overloaded(message(), MONITOR.thresholds.retry_after_s)


_REFUSED_START_KEY = "caishen:overload:refused-start:{}"


def remember_refused_start(table_id: int) -> None:
    """Note that a match start at this table was refused (in the shared cache: the countdown may
    run out in another process).  Kept for two ready countdowns."""
    seconds = 2 * int(settings.CAISHEN_READY_SECONDS)
    cache.set(_REFUSED_START_KEY.format(table_id), 1, timeout=seconds)


def take_refused_start(table_id: int) -> bool:
    """Was a match start at this table refused since the countdown last ran out?  (Forgets it.)"""
    key = _REFUSED_START_KEY.format(table_id)
    refused = cache.get(key) is not None
    if refused:
        cache.delete(key)
    return refused


def current_depth() -> int:
    """What waits now: the database thread's queue and the outbox's unsent message batches."""
    from games import dbqueue
    from games.fanout import OUTBOX

    return dbqueue.backlog() + OUTBOX.depth()


MONITOR = SaturationMonitor(Thresholds.from_config(settings.CAISHEN))
