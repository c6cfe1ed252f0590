"""Catching a seated socket up: the frames it missed since a position, or when to re-read.

A position is a (hand id, seq) pair; hand ids grow with every hand, so positions compare in
time order.  A client names the position it holds when it reconnects (``?v=2&hand=42&seq=17``)
or sees a gap (``{"type": "resync", "hand": 42, "seq": 17}``); the frames that take it from there
to the hand's current step come from this process's history of its chair's group
(``runtime().history``, games.runtime.process), and only when every one of them is there and for this user.
Otherwise the socket sends a snapshot (docs/protocol.md, "v2: delta frames, the table message,
catch-up").

A heartbeat that finds the hand ahead of what the socket delivered waits a grace period for the
step's frame before paying for a snapshot (:func:`ping_answer`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from django.conf import settings

from games import services
from games.live.table_session import TableSession
from games.runtime import dbqueue
from games.runtime.fanout import seat_group
from games.runtime.process import runtime
from games.services import access
from games.wire.frame_cache import Received

Position = tuple[int, int]  # (hand id, seq)

log = logging.getLogger("caishen.table")

# A seated ping that finds the hand ahead of this socket waits this long for the step's frame,
# which is usually on its way through the channel layer, before paying for a full snapshot.
PING_GRACE_SECONDS = 1.0
# ...and, while the process has a backlog (frames are late, not lost), up to this long in all:
# under the browser's 10 s heartbeat, so the next ping finds the check done.
PING_GRACE_MAX_SECONDS = 8.0


def since_in_query(query: dict[str, list[str]]) -> Position | None:
    """``?hand=42&seq=17`` -> (42, 17); None unless both numbers are there."""
    try:
        return int(query["hand"][0]), int(query["seq"][0])
    except (KeyError, ValueError, IndexError):
        return None


def since_in_resync(content: dict[str, Any]) -> Position | None:
    """The position a ``resync`` names, if it names one (type, not isinstance: JSON true is no seq)."""
    hand, seq = content.get("hand"), content.get("seq")
    return (hand, seq) if type(hand) is int and type(seq) is int else None


def record(group: str, event: dict[str, Any], text: str) -> None:
    """Keep a step's frame that reached a seat's socket, for catch-up (each socket of the group
    hands it in; it is kept once per step)."""
    runtime().history.record(group, Received(event["hand"], event["seq"], event.get("base"), text, event.get("reader")))


def missed_frames(
    table_id: int, position: int, user_id: int | None, since: Position
) -> tuple[list[str], Position] | None:
    """The frames that take ``user_id`` at chair ``position`` from ``since`` to the hand's current
    step, with that step; None when the hand is another or the history does not cover the gap.
    Database thread."""
    current = services.current_seq(table_id)
    if current is None or current[0] != since[0] or user_id is None:
        return None
    frames = runtime().history.since(seat_group(table_id, position), since[0], since[1], user_id, current[1])
    return (frames, current) if frames is not None else None


def on_resync(session: TableSession, content: dict[str, Any]) -> tuple[list[str], Position] | None:
    """A seat's ``resync``: the frames it missed since the position it names, if it names one
    and this process has them all (None: the caller sends a snapshot).  Database thread."""
    since = since_in_resync(content)
    if since is None or session.position is None:
        return None
    return missed_frames(session.table_id, session.position, session.user_id, since)


def on_reconnect(session: TableSession, since: Position) -> tuple[int, list[str], Position] | None:
    """A seated client that held ``since`` reconnects: the chair its user holds, the frames it
    missed and then the table as it is now (a ``table`` message), and the position that leaves it
    at.  None when that cannot be done (not seated, or the history cannot): the caller sends a
    snapshot.  Database thread."""
    table = services.reads.table_row(session.table_id)
    if table is None:
        return None
    seats = services.reads.table_seats(table)
    position = access.held_position(seats, session.user)
    if position is None:
        return None
    missed = missed_frames(session.table_id, position, session.user_id, since)
    if missed is None:
        return None
    frames, current = missed
    table_now = services.reads.table_message(table, seats, position)
    return position, [*frames, json.dumps(table_now, separators=(",", ":"))], current


def ping_answer(
    client_seq: Any, current: Position | None, delivered: Position, checking: bool
) -> Literal["pong", "snapshot", "pong_then_check"]:
    """How a seated socket answers a heartbeat: ``current`` is the hand's position now,
    ``delivered`` the newest the socket sent, ``checking`` whether an earlier ping's check is
    still pending."""
    seq = current[1] if current is not None else None
    if client_seq == seq:
        return "pong"
    if current is not None and delivered >= current:
        # The newest frame already went down this socket, before this pong: the client reads it
        # first.  Its ping only crossed it.
        return "pong"
    if current is None:
        return "snapshot"  # the client missed something: a fresh snapshot
    if checking:
        # The last ping's check is still waiting for the frame, or its snapshot for the database
        # thread: it answers this ping too.  A second snapshot queued behind the first was a third
        # of the snapshots past saturation (docs/performance.md, "Overload").
        return "pong"
    # The step committed but its frame has not reached this socket yet: under load it is usually
    # on its way through the layer.  A snapshot for every such ping — every socket pinging every
    # 10 s — was a tenth of a web process at 200 tables.  Check again after a grace period; a
    # frame that was lost (layer full or reconnecting) gets the snapshot then.
    return "pong_then_check"


def frames_in_flight() -> bool:
    """Whether this process has work queued that a late frame may be behind: calls waiting for
    the database thread (games/runtime/dbqueue.py) or batches in the fan-out outbox."""
    return dbqueue.backlog() > 0 or runtime().outbox.depth() > 0


async def frame_overdue(current: Position, delivered: Callable[[], Position], open_: Callable[[], bool]) -> bool:
    """After a ping found the hand at ``current`` ahead of the socket: wait for the step's frame
    (``delivered()`` reaching ``current``).  True when it did not come and a snapshot is owed;
    False when it came or the socket closed (``open_()`` false)."""
    waited = 0.0
    while True:
        await asyncio.sleep(PING_GRACE_SECONDS)
        waited += PING_GRACE_SECONDS
        if not open_() or delivered() >= current:
            return False
        # Work waiting for the database thread or the outbox: the frame is late, not lost — a
        # socket's frames queue behind its own command in flight.  A snapshot now would only add
        # a render to that queue, and past saturation these catch-up snapshots grew with the
        # delay they caused (a feedback loop: docs/performance.md, "Overload").  Wait on, up to
        # PING_GRACE_MAX_SECONDS.
        if waited >= PING_GRACE_MAX_SECONDS or not frames_in_flight():
            return True


class WatcherSync:
    """A watcher's resyncs and pings, each answered with its delayed snapshot or a pong.

    Each needs the delayed public snapshot rendered on the database thread the seated players'
    steps share: 20 anonymous sockets resyncing 19 times a second took a seated command's round
    trip from 7 ms to 453 ms.  So a watcher socket gets at most one such answer per
    CAISHEN_WATCHER_SYNC_SECONDS; what it asks for meanwhile is coalesced into one answer when the
    interval is up (a resync among them: the snapshot; pings only: a pong, or the snapshot if the
    last ping's seq is behind).  No error frame: a client that resyncs on every gap is simply
    served a little later.  ``answer(resync, seq)`` sends it; ``open_()`` says the socket is open.
    """

    def __init__(self, answer: Callable[[bool, Any], Awaitable[None]], open_: Callable[[], bool]) -> None:
        self.answer = answer
        self.open_ = open_
        self.next_sync = 0.0  # monotonic time of the next answer allowed
        self.pending: asyncio.Task[None] | None = None
        self.wants: tuple[bool, Any] = (False, None)  # (a resync asked, the latest ping's seq)

    async def ask(self, resync: bool = False, seq: Any = None) -> None:
        wanted, _ = self.wants
        self.wants = (wanted or resync, seq)
        if self.pending is not None:
            return  # an answer is already scheduled: it covers this request too
        wait = self.next_sync - time.monotonic()
        if wait <= 0:
            await self._answer()
        else:
            self.pending = asyncio.create_task(self._answer_later(wait))

    def cancel(self) -> None:
        if self.pending is not None:
            self.pending.cancel()

    async def _answer_later(self, wait: float) -> None:
        try:
            await asyncio.sleep(wait)
        finally:
            self.pending = None  # requests from here on are the next answer's
        try:
            if self.open_():
                await self._answer()
        except Exception:  # the socket closed meanwhile: nobody to answer
            log.debug("deferred watcher answer dropped", exc_info=True)

    async def _answer(self) -> None:
        resync, seq = self.wants
        self.wants = (False, None)
        self.next_sync = time.monotonic() + float(settings.CAISHEN_WATCHER_SYNC_SECONDS)
        await self.answer(resync, seq)
