"""The strong bots of the running hands' automatic seats, kept between steps.

A strong bot remembers what it saw earlier in the hand that its current view no longer shows:
when an opponent was first seen declared ready (东北 报听), and so which tiles thrown since are
not that opponent's wait (games/engine/strong_bot.py).  A hand's steps are taken one at a time,
each building a new :class:`~games.services.play.HandStep`; a bot made per step would see every
declaration as new, and defend with less than the duels measure.  So each (hand, seat) keeps its
bot here, in the memory of the process that steps the hand, as the engine is kept
(games/runtime/engine_cache.py).

Losing one costs nothing but that memory: a process that takes a hand over (the scaled mode, a
restart) makes a new bot, which notes a declaration from the ponds as it first sees them.  A bot
keeps no other state and uses no randomness, so its decisions stay those of its seat's view.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from games.engine import StrongBot


class BotMemory:
    """Strong bots by (hand id, engine seat), the least recently used dropped past ``size``."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._bots: OrderedDict[tuple[int, int], StrongBot] = OrderedDict()
        self._lock = threading.Lock()  # the database thread steps hands; tests and tools may too

    def bot(self, hand_id: int, seat: int) -> StrongBot:
        """The seat's bot in this hand: the one that played its earlier steps here, or a new one."""
        key = (hand_id, seat)
        with self._lock:
            found = self._bots.pop(key, None)
            if found is None:
                found = StrongBot()
            self._bots[key] = found
            while len(self._bots) > self.size:
                self._bots.popitem(last=False)
            return found

    def __len__(self) -> int:
        return len(self._bots)

    def clear(self) -> None:
        with self._lock:
            self._bots.clear()
