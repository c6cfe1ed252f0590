"""How saturated this process is, measured by the running tables' own work (the sign that
games/services/overload.py refuses new tables and matches by).

A daphne process that is saturated does not fail: every table on it slows down together, and new
tables and matches keep piling on until each waits seconds (docs/performance.md, "Overload").  So
the process refuses what would *add* load — a new table, a new match — while every running match
keeps being served.  What it watches is the tables' own work, never the process as a whole:

* **step latency**: every table step (a move, a pre-hand answer, a 托管 switch, a timer's wake-up)
  is timed on the loop from the moment it is handed to the database thread until its answer is
  back (games/runtime/table_steps.py).  That is what a player waits for, and it holds every cause a table
  feels: the queue for the database thread, the step's own work, the loop's lateness in picking
  the answer up.  The sign is the mean over the steps of the last ``CAISHEN_OVERLOAD_WINDOW``
  seconds, a step still waiting counted with the time it has waited so far (a stall shows before
  it ends);
* **queue**: the table steps handed to the database thread and not yet answered, plus the
  fan-out outbox's unsent frame batches (games/runtime/fanout.py);
* **the database thread's utilisation**: the share of the window it spent running calls, the
  tables' steps and their readers' snapshots (games/runtime/dbqueue.py).  The latency sign alone
  admits tables until the mean step waits ``step_ms``, which a thread busy 85 % of the time
  reaches on average while every burst of steps arriving together (claim windows closing at once)
  queues for hundreds of milliseconds: the tail a player feels.  Keeping the thread's share under
  ``busy`` leaves room for the bursts; the throughput given up is what the tail cost.

Work that is not a table step — a sign-up's password hashing, a page render, an anonymous replay
check, an analysis — is not counted: Django runs HTTP requests on threads of their own
(mahjong_platform/http_threads.py), so it only counts where it really slows a table step
down, and a process that serves no table refuses nothing, whatever its CPU share.  Measuring the
CPU share instead closed the lobby for everyone after four sign-ups on an idle server.

A sign must read saturated for ``onset_s`` (half a second) before anything is refused: a
smoothed sign hovering at its threshold crosses it for a probe now and then, which is not load.
There is no memory beyond the window: once the sign is back under its threshold the next probe
clears the state and the next request is admitted.  The event loop's lag and the process's CPU
share are still measured, for /healthz and the logs, but they decide nothing.

Each process measures only itself (the scaled mode runs several) and refuses only what reaches it.
A process that runs no probe (a Celery worker, a management command, tests without a server) is
never overloaded.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from core.config import CaishenConfig
from games.runtime.table_steps import TableSteps

log = logging.getLogger("caishen.overload")


@dataclass(frozen=True)
class Thresholds:
    """The monitor's settings (docs/operations.md, "Overload").  ``step_ms``, ``depth`` or
    ``busy`` at 0 switches that sign off; all three at 0, the process never refuses and no probe
    runs."""

    step_ms: float = 20.0  # mean table-step latency over the window that counts as saturated
    depth: float = 100.0  # table steps waiting for the database thread + unsent outbox batches
    busy: float = 0.5  # the database thread's share of the window spent running calls (0: ignored)
    window_s: float = 2.0  # the steps a reading looks back over
    onset_s: float = 0.5  # how long the signs must read saturated before anything is refused
    probe_s: float = 0.1  # how often the probe reads (and measures the loop's lag)
    retry_after_s: int = 10  # what a refusal asks the client to wait (the Retry-After header)

    @classmethod
    def from_config(cls, config: CaishenConfig) -> Thresholds:
        """The ``CAISHEN_OVERLOAD_*`` settings (parsed and bounded by core/config.py)."""
        return cls(
            step_ms=config.overload_step_ms,
            depth=config.overload_queue,
            busy=config.overload_busy,
            window_s=config.overload_window,
            onset_s=config.overload_onset_ms / 1000,
            probe_s=config.overload_probe_ms / 1000,
            retry_after_s=int(config.overload_retry_after),
        )

    @property
    def measuring(self) -> bool:
        return self.step_ms > 0 or self.depth > 0 or self.busy > 0


class SaturationMonitor:
    """The tables' signs and the overloaded state.

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
        steps: TableSteps | None = None,
        busy: Callable[[], float] | None = None,
    ) -> None:
        self.thresholds = thresholds or Thresholds()
        self.clock = clock
        # Beside the waiting table steps: the outbox's unsent frame batches (the process's object
        # hands its outbox's depth in).
        self.depth_source = depth or (lambda: 0)
        self.cpu_source = cpu  # the process's CPU seconds so far (all threads): shown, not used
        # The database thread's seconds spent running calls so far (dbqueue.busy_seconds).
        self.busy_source = busy or (lambda: 0.0)
        self.steps = TableSteps(clock) if steps is None else steps
        self.step_ms = 0.0  # mean table-step latency over the window
        self.depth = 0  # waiting table steps + unsent outbox batches
        self.running = False  # did a table step happen within the window
        self.lag_ms = 0.0  # the loop's lag, smoothed (shown, not used)
        self.cpu = 0.0  # smoothed share of one core (shown, not used)
        self.busy = 0.0  # the database thread's smoothed share of the time spent running calls
        self._last_busy: float | None = None
        self.last_lag_ms = 0.0  # the latest probe's, unsmoothed
        self._last_cpu: float | None = None
        self._last: float | None = None  # clock() of the previous observation
        self._over_since: float | None = None  # clock() since when the signs have read saturated
        self.overloaded = False
        self.since: float | None = None  # clock() when the state last turned on
        self.refusals = 0  # new tables and matches refused so far (for /healthz and the log)
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def calm(self) -> None:
        """Forget the readings and the state, not the probe (tests: a socket test's event loop
        binds the real probe, and its table steps — slow on a busy test machine — would
        otherwise leave the next test overloaded)."""
        self.overloaded, self.since, self.running = False, None, False
        self._over_since = None
        self.step_ms = self.lag_ms = self.cpu = self.busy = 0.0
        self.depth = 0
        self.steps.clear()

    # -- measuring ------------------------------------------------------------------------
    def observe(self, lag_s: float = 0.0, now: float | None = None) -> None:
        """One probe's reading: the table steps of the last window, the queue, and (for the
        operators only) the loop's lag and the process's CPU share."""
        now = self.clock() if now is None else now
        t = self.thresholds
        reading = self.steps.reading(t.window_s)
        self.running = reading.running
        self.step_ms = reading.latency_ms
        self.depth = reading.waiting + (self.depth_source() if reading.running else 0)
        self._observe_process(lag_s, now)
        over_step = t.step_ms > 0 and self.step_ms > t.step_ms
        over_depth = t.depth > 0 and self.depth > t.depth
        over_busy = t.busy > 0 and self.busy > t.busy
        over = self.running and (over_step or over_depth or over_busy)
        # Saturated once the signs have said so for ``onset_s``: a smoothed sign hovering at its
        # threshold crosses it for a probe or two (at 100 quiet tables the thread's share read
        # 0.51 for 0.1 s), which would refuse whoever came in that moment and say nothing about
        # the load.  Back under, the state clears at once.
        if not over:
            self._over_since = None
            self._update(False, now)
            return
        if self._over_since is None:
            self._over_since = now
        self._update(now - self._over_since >= t.onset_s, now)

    def _observe_process(self, lag_s: float, now: float) -> None:
        """The database thread's utilisation (a sign), the loop's lag and the CPU share (figures
        for /healthz), smoothed over the window."""
        self.last_lag_ms = max(0.0, lag_s * 1000)
        cpu_now, busy_now = self.cpu_source(), self.busy_source()
        elapsed = self.thresholds.probe_s if self._last is None else max(0.0, now - self._last)
        weight = 1.0 - math.exp(-elapsed / self.thresholds.window_s)
        if self._last is not None and elapsed > 0:
            if self._last_cpu is not None:
                self.cpu += weight * (max(0.0, (cpu_now - self._last_cpu) / elapsed) - self.cpu)
            if self._last_busy is not None:
                share = min(1.0, max(0.0, (busy_now - self._last_busy) / elapsed))
                self.busy += weight * (share - self.busy)
        self.lag_ms += weight * (self.last_lag_ms - self.lag_ms)
        self._last, self._last_cpu, self._last_busy = now, cpu_now, busy_now

    def _update(self, saturated: bool, now: float) -> None:
        if saturated == self.overloaded:
            return
        figures = {
            "step_ms": round(self.step_ms, 1),
            "queue": self.depth,
            "db_busy": round(self.busy, 2),
            "lag_ms": round(self.lag_ms, 1),
        }
        if saturated:
            self.overloaded, self.since = True, now
            log.warning("overloaded: refusing new tables and matches", extra=figures)
        else:
            self.overloaded, self.since = False, None
            log.warning(
                "load back to normal: new tables and matches accepted", extra=figures | {"refused": self.refusals}
            )

    # -- the probe on the server's loop ---------------------------------------------------
    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start the probe on daphne's loop (once; asgi.bind_to_loop)."""
        if self._loop is loop and not loop.is_closed():
            return
        if not self.thresholds.measuring:
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
        """Sleep ``probe_s``, read the table steps, note how much later than asked the loop woke
        us (a callback that holds the loop for 300 ms makes the wake-up 300 ms late), repeat."""
        loop = asyncio.get_running_loop()
        interval = self.thresholds.probe_s
        while True:
            asked = loop.time() + interval
            await asyncio.sleep(interval)
            try:
                self.observe(loop.time() - asked, self.clock())
            except Exception:  # the probe must outlive a bad reading
                log.exception("overload probe failed")

    # -- reading --------------------------------------------------------------------------
    def state(self) -> dict[str, object]:
        """For /healthz: the tables' signs, the process's figures, and the state."""
        return {
            "tables_running": self.running,
            "step_ms": round(self.step_ms, 1),
            "queue": self.depth,
            "db_busy": round(self.busy, 2),
            "steps": self.steps.total,
            "lag_ms": round(self.lag_ms, 1),
            "last_lag_ms": round(self.last_lag_ms, 1),
            "cpu": round(self.cpu, 2),
            "overloaded": self.refusing(),
            "refused": self.refusals,
            "measured": self.serving(),
        }


STALE_S = 60.0  # a probe silent this long is not measuring any more (SaturationMonitor.serving)
