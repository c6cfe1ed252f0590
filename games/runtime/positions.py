"""Each table's latest step as this process applied it: heartbeats answered from memory.

Every browser pings every 10 s; a seated socket's ping compares the client's ``seq`` with the
table's current hand and seq (games/live/catch_up.py).  Read from the database, that is a hop to
the process's one database thread per ping — at 300 tables 120 a second, queued in the same lane
as the players' commands and ahead of them.

When this process is the only one that applies steps (the embedded mode: one server process,
timers in process), the position it committed last *is* the table's position: every step goes
through ``HandStep.save``, which records it here on commit, the same moment its frames are
queued.  A table this process has not stepped since it started is read from the database once
and remembered.  With several processes (the scaled mode) another process or the worker may have
moved the table on, so the database is asked every time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from django.conf import settings

Position = tuple[int, int]  # (hand id, seq)


def kept_in_memory() -> bool:
    """Are this process's positions the tables' own (the only process applying steps)?"""
    return int(settings.CAISHEN_PROCESSES) == 1 and settings.CAISHEN_TIMERS == "inprocess"


class TablePositions:
    """table id -> its current hand's (id, seq), or None for a table with no hand yet; bounded
    (a forgotten table is read again from the database)."""

    def __init__(self, size: int = 20_000) -> None:
        self.size = size
        self._entries: OrderedDict[int, Position | None] = OrderedDict()
        self._lock = threading.Lock()

    def record(self, table_id: int, hand_id: int, seq: int) -> None:
        """A step committed (the database thread, on commit): never moves a table backwards."""
        with self._lock:
            known = self._entries.get(table_id)
            if known is None or (hand_id, seq) >= known:
                self._entries[table_id] = (hand_id, seq)
            self._entries.move_to_end(table_id)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def learn(self, table_id: int, position: Position | None) -> None:
        """What the database said, kept unless a step recorded meanwhile is newer."""
        with self._lock:
            known = self._entries.get(table_id)
            if table_id not in self._entries or (position is not None and (known is None or position > known)):
                self._entries[table_id] = position
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def known(self, table_id: int) -> tuple[bool, Position | None]:
        """(whether the table is known here, its position)."""
        with self._lock:
            if table_id in self._entries:
                return True, self._entries[table_id]
            return False, None

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
