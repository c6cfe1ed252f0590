"""What a process remembers of the frames it sent and received (protocol v2, docs/protocol.md).

* :class:`LastStates` — on the writer's side: each reader group's state after the last step this
  process applied, the base of the next step's delta.  A miss (another process applied the
  previous step, a restart, eviction) costs one whole ``update`` frame, never a wrong one.
* :class:`FrameHistory` — on the reader's side: the recent frames each seat group received in this
  process, whoever wrote them, so that a socket that saw a gap or reconnected catches up with
  the frames it missed instead of a snapshot.

Both are bounded (least recently used groups go first) and guarded by a lock: the writer runs on
the database thread, the sockets on the event loop.  Each process has one of each
(``games.runtime.process.runtime()``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from typing import Any, NamedTuple

MAX_GROUPS = 4000  # 5 groups a table: 800 tables' worth per process
HISTORY_FRAMES = 64  # per seat group: a hand is 100-200 steps; a minute of play at a human pace


class LastStates:
    """group -> (hand id, seq, state) of the newest step this process rendered for it."""

    def __init__(self, max_groups: int = MAX_GROUPS) -> None:
        self._states: OrderedDict[str, tuple[int, int, dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()
        self.max_groups = max_groups

    def base(self, group: str, hand_id: int, seq: int) -> dict[str, Any] | None:
        """The state at ``seq`` of hand ``hand_id`` for ``group``, if that is what is kept."""
        with self._lock:
            kept = self._states.get(group)
        if kept is None or kept[0] != hand_id or kept[1] != seq:
            return None
        return kept[2]

    def remember(self, group: str, hand_id: int, seq: int, state: dict[str, Any]) -> None:
        with self._lock:
            self._states[group] = (hand_id, seq, state)
            self._states.move_to_end(group)
            while len(self._states) > self.max_groups:
                self._states.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._states.clear()


class Received(NamedTuple):
    """A frame a seat group received (a tuple: one is made per frame, on both sides of the layer)."""

    hand_id: int
    seq: int
    base: int | None  # None: a whole frame (update or snapshot), a base of its own
    text: str
    reader: int | None


class FrameHistory:
    """group -> the last HISTORY_FRAMES frames received for it, in seq order."""

    def __init__(self, max_groups: int = MAX_GROUPS, frames: int = HISTORY_FRAMES) -> None:
        self._groups: OrderedDict[str, deque[Received]] = OrderedDict()
        self._lock = threading.Lock()
        self.max_groups = max_groups
        self.frames = frames

    def record(self, group: str, frame: Received) -> None:
        """Keep ``frame`` (each socket of the group hands it in: kept once)."""
        with self._lock:
            kept = self._groups.get(group)
            if kept is None:
                kept = self._groups[group] = deque(maxlen=self.frames)
            self._groups.move_to_end(group)
            if kept and (kept[-1].hand_id, kept[-1].seq) >= (frame.hand_id, frame.seq):
                if (kept[-1].hand_id, kept[-1].seq) == (frame.hand_id, frame.seq) and frame.base is None:
                    kept[-1] = frame  # the same step re-sent whole (a kept answer): the newer text
                return
            kept.append(frame)
            while len(self._groups) > self.max_groups:
                self._groups.popitem(last=False)

    def since(self, group: str, hand_id: int, seq: int, reader: int | None, upto: int) -> list[str] | None:
        """The frames that take a reader of ``group`` from ``seq`` to ``upto`` of hand ``hand_id``,
        each chaining on the one before, all for ``reader``; None when the history does not cover
        that whole stretch (the caller sends a snapshot)."""
        if upto < seq:
            return None
        with self._lock:
            kept = list(self._groups.get(group, ()))
        frames = [f for f in kept if f.hand_id == hand_id and seq < f.seq <= upto]
        at = seq
        texts: list[str] = []
        for f in frames:
            if f.reader != reader or f.seq != at + 1 or f.base not in (at, None):
                return None
            texts.append(f.text)
            at = f.seq
        return texts if at == upto else None

    def clear(self) -> None:
        with self._lock:
            self._groups.clear()
