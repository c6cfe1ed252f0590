"""Sending rendered frames to the right sockets, after commit only.

Groups: ``table.<id>.seat.<chair>`` for the seated player's sockets and
``table.<id>.public`` for everyone else (spectators, the lobby's table page).
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games.engine.hand import Hand as EngineHand
from games.models import Hand, Seat, Table
from games.protocol import render_state, seat_list, table_info
from games.spectating import watcher_count

log = logging.getLogger("caishen.fanout")


def seat_group(table_id: int, position: int) -> str:
    return f"table.{table_id}.seat.{position}"


def public_group(table_id: int) -> str:
    return f"table.{table_id}.public"


def hand_frames(row: Hand, engine: EngineHand, seats: list[Seat], events: list[Any]) -> dict[str, dict[str, Any]]:
    """One frame per reader, rendered inside the transaction from the state just saved."""
    table: Table = row.table
    people = seat_list(list(table.seats.select_related("user__profile")))
    frames: dict[str, dict[str, Any]] = {}
    watchers = watcher_count(table.pk)
    about = table_info(table)  # the same for every reader: built once, not five times
    for position in [None, 0, 1, 2, 3]:
        reader = row.engine_seat(position) if position is not None else None
        frame = render_state(table, people, row, engine, position, about=dict(about))
        frame["type"] = "update"
        frame["seq"] = row.seq
        frame["events"] = [e.for_seat(reader) for e in events]
        frame["table"]["watchers"] = watchers  # spectating: shown to the players
        group = public_group(table.pk) if position is None else seat_group(table.pk, position)
        frames[group] = frame
    return frames


def _send_all(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Send to several groups in one hop to the event loop (one async_to_sync, not one per group)."""
    layer = get_channel_layer()
    if layer is None:
        return

    async def send() -> None:
        for group, message in messages:
            try:
                await layer.group_send(group, message)
            except Exception:  # a broken layer must not undo a committed move; clients resync on the gap
                log.exception("fan-out to %s failed", group)

    async_to_sync(send)()


def send_hand_frames(table_id: int, frames: dict[str, dict[str, Any]]) -> None:
    _send_all([(group, {"type": "table.frame", "frame": frame}) for group, frame in frames.items()])


def table_changed(table_id: int) -> None:
    """Seats, readiness or the match changed: every socket of the table re-reads its snapshot."""
    groups = [public_group(table_id), *(seat_group(table_id, p) for p in range(4))]
    _send_all([(group, {"type": "table.changed"}) for group in groups])
