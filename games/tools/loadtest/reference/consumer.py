"""The reference table's socket: just enough of the table protocol (docs/protocol.md) for the
load client (games/tools/loadtest/client.py) to play, on the real consumer's base class.

- On connect and on ``resync``: a ``snapshot`` with the table's current hand (its id and
  ``seq`` read from the hand's row: the load test deals real hands, ``setup.start``).
- It is seat ``seq % 4``'s turn; that seat's ``hand.view.legal_actions`` is one discard of
  :data:`TILE`, everyone else's is empty.
- An ``act`` with the turn's discard at the current ``seq`` is applied by **one UPDATE** of the
  hand's row (``seq = seq + 1 WHERE id AND seq``: the row decides, as the real server's lock
  does) and answered by **one** ``group_send`` to the table's group, which the four seats'
  sockets join; the message carries each seat's ``update`` frame, serialised once by the sender.
- A ``ping`` is answered with a ``pong`` from memory (the reference needs nothing from the
  database for it; the real server reads the hand's ``seq``: part of what the ratio measures).

Nothing else: no rules, no event log, no timers, no presence, no rate limits.  The point is an
honest floor — neither padded (no query beyond the UPDATE per action) nor trimmed (the UPDATE
is a real write to the real table, committed, and the frames go through the real layer).
"""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from django.db import connection

from games.live.consumers import DirectDispatchConsumer
from games.models import Hand, Seat

TILE = "5m"  # every seat's only legal discard
WINDS = "ESWN"
CLOSE_FORBIDDEN = 4403  # as the real consumer: not seated at this table


def group_name(table_id: int) -> str:
    return f"reference.{table_id}"


def turn_of(seq: int) -> int:
    """The chair whose turn it is at ``seq``: the turn passes round the table, one step each."""
    return seq % 4


def hand_view(hand_id: int, seq: int, position: int) -> dict[str, Any]:
    """The ``hand`` object of a frame for ``position``, the fields the client reads."""
    legal = [{"seat": WINDS[position], "do": "discard", "tile": TILE}] if turn_of(seq) == position else []
    return {
        "id": hand_id,
        "seq": seq,
        "status": Hand.PLAYING,
        "turn": WINDS[turn_of(seq)],
        "view": {"legal_actions": legal},
    }


def update_text(hand_id: int, seq: int, position: int, discarded_by: int) -> str:
    """Seat ``position``'s ``update`` frame for the step to ``seq``, serialised (once per seat and
    action, by the sender: the real server's frames are serialised once per group too)."""
    frame = {
        "type": "update",
        "seq": seq,
        "you": position,
        "hand": hand_view(hand_id, seq, position),
        "events": [{"kind": "discard", "seat": WINDS[discarded_by], "tile": TILE}],
    }
    return json.dumps(frame, separators=(",", ":"))


_bump_sql: str | None = None


def bump_sql() -> str:
    """The one UPDATE an action costs, quoted for the database in use (built once)."""
    global _bump_sql
    if _bump_sql is None:
        qn = connection.ops.quote_name
        table, pk, seq = qn(Hand._meta.db_table), qn("id"), qn("seq")
        _bump_sql = f"UPDATE {table} SET {seq} = {seq} + 1 WHERE {pk} = %s AND {seq} = %s"
    return _bump_sql


def apply_discard(hand_id: int, seq: int) -> bool:
    """One UPDATE, committed on its own (autocommit): whether the hand was still at ``seq``.
    A raw statement, not a queryset: compiling a queryset per action would pad the floor (the
    real server compiles its step's statements once, games/runtime/prepared.py)."""
    with connection.cursor() as cursor:
        cursor.execute(bump_sql(), [hand_id, seq])
        return cursor.rowcount == 1


def current_hand(table_id: int) -> tuple[int, int] | None:
    """(id, seq) of the table's playing hand, if any (connect and resync only)."""
    found = (
        Hand.objects.filter(table_id=table_id, status=Hand.PLAYING).order_by("-number").values_list("pk", "seq").first()
    )
    return (found[0], found[1]) if found is not None else None


def seat_and_hand(table_id: int, user_id: int | None) -> tuple[int, tuple[int, int] | None] | None:
    """The chair ``user_id`` holds at the table (None: not seated) and the current hand."""
    if user_id is None:
        return None
    position = Seat.objects.filter(table_id=table_id, user_id=user_id).values_list("position", flat=True).first()
    if position is None:
        return None
    return position, current_hand(table_id)


class ReferenceConsumer(DirectDispatchConsumer):
    """One seat's socket at a reference table (see the module's docstring)."""

    table_id: int
    position: int
    group: str = ""
    hand_id: int | None = None  # the hand this socket was last told about
    seq: int = 0  # and its seq

    async def connect(self) -> None:
        user = self.scope.get("user")
        user_id = user.pk if user is not None and user.is_authenticated else None
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        found = await database_sync_to_async(seat_and_hand)(self.table_id, user_id)
        await self.accept()  # then close with a code, as the real consumer does
        if found is None:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.position, hand = found
        self.group = group_name(self.table_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.send_snapshot(hand)

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def send_snapshot(self, hand: tuple[int, int] | None) -> None:
        if hand is not None:
            self.hand_id, self.seq = hand
        await self.send_json(
            {
                "type": "snapshot",
                "you": self.position,
                "table": {"id": self.table_id},
                "hand": hand_view(hand[0], hand[1], self.position) if hand is not None else None,
            }
        )

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        if kind == "act":
            await self.act(content)
        elif kind == "ping":
            await self.send_json({"type": "pong", "seq": self.seq})
        elif kind == "resync":
            await self.send_snapshot(await database_sync_to_async(current_hand)(self.table_id))
        else:
            await self.send_json({"type": "error", "reason": "unknown message type"})

    async def act(self, content: dict[str, Any]) -> None:
        hand_id, seq, action = self.hand_id, content.get("seq"), content.get("action")
        if hand_id is None or content.get("hand") != hand_id or not isinstance(seq, int) or isinstance(seq, bool):
            await self.send_json({"type": "refused", "seq": seq, "reason": "a command names its hand and seq"})
            return
        if turn_of(seq) != self.position or action != {"do": "discard", "tile": TILE}:
            # Decided without the database: at a given seq the turn and the legal action are known.
            await self.send_json({"type": "refused", "seq": seq, "reason": f"not yours: discard {TILE} on your turn"})
            return
        if not await database_sync_to_async(apply_discard)(hand_id, seq):
            await self.send_json({"type": "refused", "seq": seq, "reason": "stale command"})
            return
        new = seq + 1
        message: dict[str, Any] = {"type": "reference.frame", "hand": hand_id, "seq": new}
        for p in range(4):  # flat keys, not a list: the embedded layer copies flat messages cheaply
            message[f"text{p}"] = update_text(hand_id, new, p, self.position)
        await self.channel_layer.group_send(self.group, message)

    async def reference_frame(self, event: dict[str, Any]) -> None:
        if event["hand"] == self.hand_id:
            self.seq = max(self.seq, event["seq"])
        await self.send(text_data=event[f"text{self.position}"])
