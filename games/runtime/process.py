"""This process's state, in one object: :func:`runtime` answers it.

Everything a daphne process (or a Celery worker, a management command, a test) keeps in memory
beside the database and the shared cache hangs off one :class:`Runtime`:

* ``outbox`` — the fan-out's queue of frames for the channel layer (games/runtime/fanout.py);
* ``timers`` — the in-process deadlines and the sweeper (games/runtime/timers.py);
* ``engines`` — the running hands' engines between steps (games/runtime/engine_cache.py);
* ``rows`` — the running hands' rows (hand, table, seats) between steps (games/runtime/live_rows.py);
* ``bots`` — the strong bots of their automatic seats, with what each remembers of its hand
  (games/runtime/bot_memory.py);
* ``steps`` — the table steps timed for admission (games/runtime/table_steps.py);
* ``monitor`` — the saturation monitor that reads them (games/runtime/saturation.py), which
  games/services/overload.py refuses new tables and matches by;
* ``last_states`` and ``history`` — the frames this process sent (the bases of the next deltas)
  and received (for catch-up) (games/wire/frame_cache.py);
* ``public_views`` — the watchers' public views of hands at a seq, and ``watcher_renders``, the
  watchers' shared snapshot renders (games/wire/spectating.py);
* ``snapshots`` — the full snapshots read for seated and re-reading sockets, by what asked for
  one: each is a render on the database thread, the single largest cost past saturation
  (docs/performance.md, "Overload"); shown in /healthz ("load");
* ``emotes`` — when each seat's recent emotes were sent, for their rate limit (games/live/emotes.py);
* ``sockets`` — the open table sockets by user and by client address, for their caps
  (games/runtime/socket_counts.py);
* ``connected`` — what GamesConfig.ready hands the timers and the settlement at start-up (the
  rooms below the services cannot import them).

Why one object: a process has exactly one of each, and saying so in one place beats a dozen
module globals spread over the rooms; tests start each case from a fresh process with one call
(:meth:`Runtime.reset`, the autouse fixtures in tests/conftest.py); and the scaled mode's work
on which process owns which table hangs its state off this same object.

The parts' classes live in modules of their own that never import this one (the outbox, the
local timers, the timed steps, the monitor, the caches): this module builds them and hands each
the others it needs (the timers get the connections and the steps, the monitor the steps and the
outbox's depth), and the modules that act through this process's parts (the fan-out, the
timers' backends, ``table_step``) import :func:`runtime` from here — no import cycle.  Wire code,
below this room, cannot: the one cache it reads itself (``public_views``) is created there and
owned here, and the wire's small per-process caches (players' names, recent watcher counts) are
forgotten by :meth:`Runtime.reset` through the wire's own functions.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

from django.conf import settings

from games.runtime import dbqueue
from games.runtime.bot_memory import BotMemory
from games.runtime.connections import Connections
from games.runtime.engine_cache import EngineCache
from games.runtime.live_rows import LiveRows
from games.runtime.local_timers import InProcessTimers
from games.runtime.outbox import Outbox
from games.runtime.positions import TablePositions
from games.runtime.saturation import SaturationMonitor, Thresholds
from games.runtime.socket_counts import SocketCounts
from games.runtime.table_steps import TableSteps
from games.wire import names, spectating
from games.wire.frame_cache import FrameHistory, LastStates
from games.wire.spectating import PUBLIC_VIEWS, PublicViews, SharedRenders

P = ParamSpec("P")
R = TypeVar("R")


@dataclass
class Runtime:
    """This process's in-memory state (the module's docstring says what and why)."""

    outbox: Outbox
    timers: InProcessTimers
    engines: EngineCache
    steps: TableSteps
    monitor: SaturationMonitor
    last_states: LastStates
    history: FrameHistory
    public_views: PublicViews
    watcher_renders: SharedRenders
    snapshots: collections.Counter[str] = field(default_factory=collections.Counter)
    emotes: collections.defaultdict[tuple[int, int], collections.deque[float]] = field(
        default_factory=lambda: collections.defaultdict(collections.deque)
    )
    sockets: SocketCounts = field(default_factory=SocketCounts)
    connected: Connections = field(default_factory=Connections)
    positions: TablePositions = field(default_factory=TablePositions)
    bots: BotMemory = field(default_factory=BotMemory)
    rows: LiveRows = field(default_factory=LiveRows)

    def reset(self) -> None:
        """Forget what the running tables left behind, in place (holders of a part stay valid):
        the caches of frames, engines, kept rows, bots, views, names and watcher counts, the timed steps, the
        monitor's readings, the snapshot counts, the emotes' rate limit and the open sockets'
        counts.  Kept: the outbox and the timers (bound to a loop, they rebind to the next one
        once it closes), the watchers' renders (kept per event loop, gone with it) and
        ``connected`` (start-up wiring).  Tests call it between cases:
        the database is emptied and hand ids repeat, which never happens in a deployment."""
        self.engines.clear()
        self.rows.clear()
        self.bots.clear()
        self.last_states.clear()
        self.history.clear()
        self.public_views.clear()
        self.monitor.calm()
        self.steps.clear()
        self.snapshots.clear()
        self.emotes.clear()
        self.sockets.clear()
        self.positions.clear()
        names.forget()
        spectating.forget_watcher_counts()


_lock = threading.Lock()
_runtime: Runtime | None = None


def runtime() -> Runtime:
    """This process's :class:`Runtime`, made on first use (from any thread)."""
    found = _runtime
    return found if found is not None else _create()


def _create() -> Runtime:
    global _runtime
    with _lock:
        if _runtime is None:
            _runtime = _made()
        return _runtime


def _made() -> Runtime:
    connected = Connections()
    steps = TableSteps()
    outbox = Outbox()
    return Runtime(
        outbox=outbox,
        timers=InProcessTimers(connected, steps),
        engines=EngineCache(),
        steps=steps,
        monitor=SaturationMonitor(
            Thresholds.from_config(settings.CAISHEN),
            steps=steps,
            depth=outbox.depth,
            busy=dbqueue.busy_seconds,
        ),
        last_states=LastStates(),
        history=FrameHistory(),
        public_views=PUBLIC_VIEWS,
        watcher_renders=SharedRenders(),
        connected=connected,
    )


def table_step(fn: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """``database_sync_to_async(fn)`` for a table step, timed for admission (this process's
    ``steps``).  Use it for the steps of running tables only — not for reads, pages or new tables."""
    return runtime().steps.timed(fn)
