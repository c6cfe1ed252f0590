"""The process's database thread, with a lane for table steps ahead of reads.

Channels runs every ``database_sync_to_async`` call of a daphne process on one thread (asgiref's
``SyncToAsync.single_thread_executor``, a one-worker ``ThreadPoolExecutor``), in the order the
calls were made.  Socket commands, snapshots, pings and the in-process timers' steps all queue
there.  A flood of socket work — every socket of 300 tables resyncing after a stall — would put a
claim window's end, a turn's timeout or a player's discard behind hundreds of reads: the step
would wait seconds for the thread, and the table would stand still.

``install()`` gives that executor a queue with two lanes: work submitted while ``URGENT`` is set
in the caller's context is taken before anything in the ordinary lane.  The table steps set it —
players' commands and timers' wake-ups alike (games/runtime/table_steps.py ``timed``; the
in-process timers' sweeper too) — so they keep their arrival order among themselves and reads
(snapshots, heartbeats, table messages, pages) wait behind them.  Within a lane the order is
kept.  Steps cannot starve the reads for long: a table has at most one pending deadline, each
socket's commands are rate-limited, and each step is a few milliseconds.

``backlog()`` is the queue's length, every kind of call together (the admission monitor counts
only the table steps in it: games/runtime/table_steps.py).  ``busy_seconds()`` is how long the
thread has spent running calls so far: the admission monitor's utilisation sign
(games/runtime/saturation.py) — a thread busy 85 % of the time answers on average but queues
whenever steps arrive together.
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import queue
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import SyncToAsync

from games.runtime.dbtrace import TracedItem, TraceSink

# Set (in a task's context) around database_sync_to_async calls that must not wait behind
# socket work.  Read by LanedQueue.put, which runs on the loop's thread in the caller's context
# (loop.run_in_executor calls executor.submit there).
URGENT: contextvars.ContextVar[bool] = contextvars.ContextVar("caishen_db_urgent", default=False)


@contextlib.contextmanager
def urgent() -> Iterator[None]:
    """Mark the database calls made inside as urgent, and take the mark off after: a caller
    through ``async_to_sync`` gets the context's changes back, so it must not outlive the step."""
    token = URGENT.set(True)
    try:
        yield
    finally:
        URGENT.reset(token)


class LanedQueue:
    """What ``ThreadPoolExecutor`` asks of its ``_work_queue`` (``queue.SimpleQueue``'s put/get,
    get_nowait, qsize, empty), with an urgent lane taken first.  ``None`` (the executor's wake-up
    on shutdown) goes to the ordinary lane, after the work already queued.

    The items sit in two deques; a C ``SimpleQueue`` holds one token per item, so the worker
    blocks (GIL released) and wakes exactly as with the executor's own queue — a Python
    ``Condition`` here cost 3 % of daphne's GIL time at 300 tables — and then takes the urgent
    lane's head if there is one.  Each token is put after its item and taken before one is
    popped, so a woken worker always finds an item (deque appends and pops are atomic)."""

    def __init__(self, trace: TraceSink | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._urgent: collections.deque[Any] = collections.deque()
        self._normal: collections.deque[Any] = collections.deque()
        self._tokens: queue.SimpleQueue[None] = queue.SimpleQueue()
        self._trace = trace  # CAISHEN_DB_TRACE (games/runtime/dbtrace.py); None: nothing wrapped
        # The worker's time running calls: it asks for the next call when the last one is done,
        # so the time from handing one out to the next ``get`` is a call's run (written by the
        # worker thread only; read whole from any thread).
        self.busy_done = 0.0
        self.running_since: float | None = None

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        urgent = item is not None and URGENT.get()
        if self._trace is not None and item is not None:
            item = TracedItem(item, "u" if urgent else "n", self._trace)
        (self._urgent if urgent else self._normal).append(item)
        self._tokens.put(None)

    put_nowait = put

    def get(self, block: bool = True, timeout: float | None = None) -> Any:
        since = self.running_since
        if since is not None:
            self.running_since = None
            self.busy_done += self._clock() - since
        self._tokens.get(block, timeout)  # raises queue.Empty like SimpleQueue
        item = self._take()
        self.running_since = self._clock()
        return item

    def _take(self) -> Any:
        if self._urgent:
            try:
                item = self._urgent.popleft()
            except IndexError:  # only one consumer thread, but never trust that blindly
                pass
            else:
                return item
        return self._normal.popleft()

    def busy_seconds(self) -> float:
        """The worker's time spent running calls so far, the one running now included."""
        since = self.running_since
        return self.busy_done + (self._clock() - since if since is not None else 0.0)

    def get_nowait(self) -> Any:
        return self.get(block=False)

    def qsize(self) -> int:
        return self._tokens.qsize()

    def empty(self) -> bool:
        return self._tokens.empty()


def laned_executor(trace_path: str = "") -> ThreadPoolExecutor:
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="caishen-db")
    trace = TraceSink(trace_path) if trace_path else None
    executor._work_queue = LanedQueue(trace)  # type: ignore[assignment]  # before its thread starts
    return executor


def install(trace_path: str = "") -> None:
    """Replace Channels' database thread with the laned one (idempotent; daphne's start-up in
    mahjong_platform/asgi.py).  Done before the first database call, so no work is left on the
    old executor; if one already ran (a test), the old executor simply has nothing more to do.
    ``trace_path``: write each call's queue wait and run time there (CAISHEN_DB_TRACE)."""
    if not isinstance(SyncToAsync.single_thread_executor._work_queue, LanedQueue):  # type: ignore[attr-defined]
        SyncToAsync.single_thread_executor = laned_executor(trace_path)


def backlog() -> int:
    """Calls waiting for the database thread now (any executor: SimpleQueue has qsize too)."""
    work = getattr(SyncToAsync.single_thread_executor, "_work_queue", None)
    try:
        return int(work.qsize()) if work is not None else 0
    except (NotImplementedError, AttributeError):
        return 0


def busy_seconds() -> float:
    """The database thread's time spent running calls so far (0 when it is not the laned one)."""
    work = getattr(SyncToAsync.single_thread_executor, "_work_queue", None)
    return work.busy_seconds() if isinstance(work, LanedQueue) else 0.0
