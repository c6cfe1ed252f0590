"""A trace of the database thread's work, for profiling a busy server (``CAISHEN_DB_TRACE=FILE``).

The running tables' latency is mostly the wait for the process's one database thread
(games/runtime/dbqueue.py).  To see *what* a table waited behind, each call the thread runs is
written as one line ``enqueued started finished lane name`` (monotonic seconds, ``u``rgent or
``n``ormal, the synchronous function's qualified name) to FILE, in batches from the thread
itself.  Put beside ``loadtest --timeline`` (each action's latency), it shows which work was
queued ahead of a slow step.  Off by default: nothing is wrapped unless the variable is set.
"""

from __future__ import annotations

import functools
import threading
import time
from concurrent.futures.thread import _WorkItem
from typing import Any, TextIO

FLUSH_EVERY = 200  # lines


def call_name(item: Any) -> str:
    """The user function inside a queued ``database_sync_to_async`` call: asgiref wraps it in
    ``functools.partial`` objects and closures; the innermost partial's function names it."""
    name = "?"
    seen = 0
    todo = [getattr(item, "fn", None), *getattr(item, "args", ())]
    while todo and seen < 50:
        seen += 1
        value = todo.pop(0)
        if isinstance(value, functools.partial):
            name = getattr(value.func, "__qualname__", name)
            todo.extend([value.func, *value.args])
        elif hasattr(value, "__wrapped__"):
            todo.append(value.__wrapped__)
        elif callable(value) and getattr(value, "__qualname__", "").split(".")[-1] not in ("thread_handler", "run"):
            qualname = getattr(value, "__qualname__", "")
            if qualname and "<locals>" not in qualname and "SyncToAsync" not in qualname:
                name = qualname
    return name


class TracedItem:
    """A work item that records when it was queued, started and finished."""

    def __init__(self, item: _WorkItem, lane: str, sink: TraceSink) -> None:
        self.item = item
        self.lane = lane
        self.sink = sink
        self.enqueued = time.monotonic()

    def run(self) -> None:
        started = time.monotonic()
        try:
            self.item.run()
        finally:
            self.sink.write(self.enqueued, started, time.monotonic(), self.lane, call_name(self.item))


class TraceSink:
    def __init__(self, path: str) -> None:
        self._file: TextIO = open(path, "a", encoding="utf-8")  # noqa: SIM115 - open for the process's life
        self._lines: list[str] = []
        self._lock = threading.Lock()

    def write(self, enqueued: float, started: float, finished: float, lane: str, name: str) -> None:
        with self._lock:
            self._lines.append(f"{enqueued:.6f} {started:.6f} {finished:.6f} {lane} {name}\n")
            if len(self._lines) >= FLUSH_EVERY:
                self._file.writelines(self._lines)
                self._file.flush()
                self._lines.clear()
