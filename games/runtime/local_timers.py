"""The in-process timers of a daphne process (the embedded mode's, and the scaled mode's short
local ones): games/runtime/timers.py decides which backend a deadline goes to."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections import OrderedDict
from datetime import datetime

from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import timezone

from games.runtime import dbqueue
from games.runtime.connections import Connections
from games.runtime.table_steps import TableSteps

log = logging.getLogger("caishen.timers")

NEWEST_KEPT = 20_000  # hands whose newest deadline is remembered (a few hours of a busy evening)


class InProcessTimers:
    """Deadlines on the server's event loop (``call_later``) and the sweeper that wakes anything
    overdue; each wake-up runs on the database thread as a timed table step."""

    def __init__(self, connections: Connections, steps: TableSteps) -> None:
        self.connections = connections
        self.steps = steps
        self.loop: asyncio.AbstractEventLoop | None = None
        self._sweeper: asyncio.Task[None] | None = None
        # On the loop only: each hand's newest armed deadline's token (its seq), kept after it comes
        # due so that older ones still to come are dropped (bounded: least recently armed out), and
        # how many of each hand's deadlines are armed and not yet due.
        self._newest: OrderedDict[int, int] = OrderedDict()
        self._pending: dict[int, int] = {}

    def bind(self, loop: asyncio.AbstractEventLoop, sweep: bool = True) -> None:
        """Attach to the server's event loop (once) and start the sweeper — not in a web process
        of the scaled mode, which fires only its own short timers (beat sweeps there)."""
        if self.loop is not None and not self.loop.is_closed():
            return
        self.loop = loop
        self._newest, self._pending = OrderedDict(), {}  # (another loop's deadlines: tests' servers)
        if sweep and settings.CAISHEN_SWEEP_SECONDS > 0:
            self._sweeper = loop.create_task(self._sweep_forever())

    def serving(self) -> bool:
        """Bound to a running server loop (a daphne process; never a Celery worker)."""
        return self.loop is not None and self.loop.is_running()

    def schedule(self, kind: str, obj_id: int, token: int, at: datetime) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return  # not serving yet: the sweeper picks it up once bound
        delay = max(0.0, (at - timezone.now()).total_seconds())
        # A fresh context: scheduling happens in on_commit inside a sync_to_async thread whose
        # context carries asgiref's "single thread executor in use" mark; inherited by the timer,
        # it would make the timer's own database_sync_to_async refuse to run ("would deadlock").
        loop.call_soon_threadsafe(self._arm, delay, kind, obj_id, token, context=contextvars.Context())

    def _arm(self, delay: float, kind: str, obj_id: int, token: int) -> None:
        """Arm the deadline, noting the newest seq a hand's deadlines were armed for."""
        loop = self.loop
        assert loop is not None
        if kind == "hand":
            newest = self._newest.get(obj_id)
            if newest is None or token > newest:
                self._newest[obj_id] = token
            self._newest.move_to_end(obj_id)
            while len(self._newest) > NEWEST_KEPT:
                self._newest.popitem(last=False)  # (a forgotten hand's stale deadline only hops)
            self._pending[obj_id] = self._pending.get(obj_id, 0) + 1
        loop.call_later(delay, self._due, kind, obj_id, token)

    def _due(self, kind: str, obj_id: int, token: int) -> None:
        """A deadline came due: wake its hand or table, unless a later step has superseded it.

        Nearly every step a person must answer sets the hand's deadline (the turn's clock, the
        claim pause), and nearly every such deadline is answered before it runs out.  A deadline
        is armed after its step's commit, and a hand's seq only grows: once a deadline for a
        later seq was armed, the wake-up of an earlier one can only find the hand moved on, so
        it is dropped here instead of going to the database thread as a stale hop (one per
        answered turn, the turn's length later).  The superseded handle is left to run out, not
        cancelled: the version that cancelled them ran with a worse tail on a busy evening
        (docs/performance.md, "A long evening").  Table deadlines (their tokens are times, and a
        later one may come earlier) always fire."""
        assert self.loop is not None
        if kind == "hand":
            left = self._pending.get(obj_id, 1) - 1
            if left > 0:
                self._pending[obj_id] = left
            else:
                self._pending.pop(obj_id, None)
            # Kept after the newest came due: an older one coming due later is dropped as well.
            # (A second deadline of the newest seq still fires.)
            if token < self._newest.get(obj_id, token):
                return
        self.loop.create_task(self.fire(kind, obj_id, token))

    def armed_hands(self) -> int:
        """How many hands have a deadline armed here and not come due yet."""
        return len(self._pending)

    async def fire(self, kind: str, obj_id: int, token: int) -> None:
        services = self.connections.services()
        # A table step: it goes ahead of reads queued for the database thread (``timed`` puts it
        # in the table steps' lane, games/runtime/dbqueue.py), so a deadline that fired on time
        # does not then wait behind a flood of reads.
        try:
            await self.steps.timed(services.wake)(kind, obj_id, token)
        except Exception:
            log.exception("timer %s %s %s failed", kind, obj_id, token)

    async def sweep_once(self) -> None:
        services = self.connections.services()
        with dbqueue.urgent():  # overdue deadlines: the sweeper's reads jump the queue too
            for wakeup in await database_sync_to_async(services.due_wakeups)():
                await self.fire(*wakeup)
            await database_sync_to_async(services.record_sweep)()

    async def _sweep_forever(self) -> None:
        every = float(settings.CAISHEN_SWEEP_SECONDS)
        while True:
            await asyncio.sleep(every)
            try:
                await self.sweep_once()
            except Exception:
                log.exception("sweeper failed")
