"""The running tables' step latency in this process: what admission decides by (games/runtime/saturation.py).

A table step is a move, a pre-hand answer, a 托管 switch or a timer's wake-up at a running table.
Each is timed on the event loop from the moment it is handed to the database thread until its
answer is back: the wait a player feels, with every cause a table feels in it (the queue for the
database thread, the step's own work, the loop's lateness).  Nothing else is timed here: pages,
sign-ups, replays and reads are not the tables' work.

This module imports no service, so the socket and the timers can time their steps through it.
"""

from __future__ import annotations

import collections
import itertools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from asgiref.sync import SyncToAsync
from django.db import close_old_connections

from games.runtime import dbqueue

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class StepReading:
    """The running tables' work over the last window, as one probe reads it."""

    finished: int  # table steps answered within the window
    waiting: int  # table steps handed to the database thread and not answered yet
    latency_ms: float  # their mean latency (the waiting ones by their age so far); 0 with none

    @property
    def running(self) -> bool:
        """Does this process serve a table now (a step within the window, or one waiting)?"""
        return self.finished > 0 or self.waiting > 0


class StepToThread(SyncToAsync):
    """Channels' ``database_sync_to_async`` with the connection checked once per call, before it.

    Channels checks the thread's connections before and after every call
    (``close_old_connections``: a transaction left open, an error, the connection's age); every
    call on the database thread checks before it runs, so the check after a step only repeats
    the next call's.  Through asgiref's connection registry a check cost about as much as the
    step's own UPDATE (docs/performance.md)."""

    def thread_handler(self, loop: Any, *args: Any, **kwargs: Any) -> Any:
        close_old_connections()
        return super().thread_handler(loop, *args, **kwargs)


class TableSteps:
    """Each table step's latency, from the loop handing it to the database thread to its answer
    back on the loop.  ``begin`` and ``end`` are called on the loop's thread (``table_step``),
    ``reading`` by the probe on the same thread: no lock."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._waiting: dict[int, float] = {}  # token -> when it was handed over
        self._finished: collections.deque[tuple[float, float]] = collections.deque()  # (answered at, latency s)
        self._finished_sum = 0.0  # of the latencies in ``_finished``
        self._tokens = itertools.count()
        self.total = 0  # steps answered since the process started (for /healthz)

    def begin(self) -> int:
        token = next(self._tokens)
        self._waiting[token] = self.clock()
        return token

    def end(self, token: int) -> None:
        started = self._waiting.pop(token, None)
        if started is None:
            return
        now = self.clock()
        latency = max(0.0, now - started)
        self._finished.append((now, latency))
        self._finished_sum += latency
        self.total += 1

    def timed(self, fn: Callable[P, R]) -> Callable[P, Awaitable[R]]:
        """``database_sync_to_async(fn)`` (:class:`StepToThread`), each call timed as a table step and queued in the
        database thread's table-step lane, ahead of reads (games/runtime/dbqueue.py).  Use it for
        the steps of running tables only — not for reads, pages or new tables."""
        on_thread = StepToThread(fn)

        async def timed(*args: P.args, **kwargs: P.kwargs) -> R:
            token = self.begin()
            try:
                with dbqueue.urgent():
                    return await on_thread(*args, **kwargs)  # type: ignore[no-any-return]
            finally:
                self.end(token)

        return timed

    def clear(self) -> None:
        """Forget every step (a test's tables are not the next test's)."""
        self._waiting.clear()
        self._finished.clear()
        self._finished_sum = 0.0

    def reading(self, window_s: float) -> StepReading:
        now = self.clock()
        cutoff = now - window_s
        finished = self._finished
        while finished and finished[0][0] < cutoff:
            self._finished_sum -= finished.popleft()[1]
        if not finished:
            self._finished_sum = 0.0  # no float drift carried into the next busy spell
        waited = sum(max(0.0, now - started) for started in self._waiting.values())
        count = len(finished) + len(self._waiting)
        latency = (self._finished_sum + waited) / count if count else 0.0
        return StepReading(finished=len(finished), waiting=len(self._waiting), latency_ms=latency * 1000)
