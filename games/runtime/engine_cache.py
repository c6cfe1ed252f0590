"""The engines of running hands, kept between steps in the process that applied them.

Decoding a hand's snapshot (``load_hand``) on every step cost as much as applying the
step.  The row stays the authority: an entry is keyed by the hand's id and stamped with its
``seq`` and wall seed, and used only when the locked row still has that seq and seed (an id
reused after a rollback or a restore carries another seed), so a step applied elsewhere (another daphne process, the
Celery worker, an admin) simply misses.  Entries are *taken* out for a step and put back only
once it committed, so a rolled-back step never leaves a half-applied engine here.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from games.engine import Hand as EngineHand


class EngineCache:
    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._entries: OrderedDict[int, tuple[tuple[int, str], EngineHand]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def take(self, hand_id: int, seq: int, seed: str) -> EngineHand | None:
        """The engine at exactly ``seq`` of the hand dealt from ``seed``, removed from the cache."""
        with self._lock:
            entry = self._entries.pop(hand_id, None)
            if entry is None or entry[0] != (seq, seed):
                self.misses += 1
                return None
            self.hits += 1
            return entry[1]

    def peek(self, hand_id: int, seq: int, seed: str) -> EngineHand | None:
        """The engine at exactly ``seq``, left in place: for rendering only (never mutate it).
        Safe because steps run on the process's one database thread, the same thread that
        renders snapshots, and a step *takes* its engine out first: a hand in mid-step misses."""
        with self._lock:
            entry = self._entries.get(hand_id)
            return entry[1] if entry is not None and entry[0] == (seq, seed) else None

    def put(self, hand_id: int, seq: int, seed: str, engine: EngineHand) -> None:
        with self._lock:
            self._entries[hand_id] = ((seq, seed), engine)
            self._entries.move_to_end(hand_id)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
