"""Read-only views of a table for a socket's snapshot."""

from __future__ import annotations

from django.contrib.auth.models import User

from games.models import Hand, Seat, Table
from games.runtime import fanout
from games.runtime.prepared import PreparedSelect
from games.services import play
from games.wire.frames import Snapshot, TableFrame
from games.wire.protocol import render_state, seat_list, table_info
from games.wire.spectating import watcher_count

_TABLE = PreparedSelect(lambda pk: Table.objects.filter(pk=pk))
# The snapshot column is read only if the engine cache misses (games.runtime.engine_cache).
_LATEST_HAND = PreparedSelect(
    lambda table_id: Hand.objects.filter(table_id=table_id).order_by("-number").defer("snapshot")[:1]
)


_SEATS = PreparedSelect(lambda table_id: Seat.objects.filter(table_id=table_id))


def table_seats(table: Table) -> list[Seat]:
    """The table's four seats in chair order, unlocked (a writer locks them: games.services.locks),
    with a compiled query: every socket snapshot reads them (names come from games.wire.names, not
    from a join here)."""
    seats = _SEATS(table.pk)
    for seat in seats:
        Seat.table.field.set_cached_value(seat, table)  # as table.seats.all() would
    return seats


def table_row(table_id: int) -> Table | None:
    """The table's row (a socket's snapshot reads it on every table change: compiled once)."""
    found = _TABLE(table_id)
    return found[0] if found else None


def current_hand(table: Table) -> Hand | None:
    found = _LATEST_HAND(table.pk)
    if not found:
        return None
    Hand.table.field.set_cached_value(found[0], table)
    return found[0]


_LATEST_HAND_SEQ = PreparedSelect(
    lambda table_id: Hand.objects.filter(table_id=table_id).order_by("-number").only("seq")[:1]
)


def current_seq(table_id: int) -> tuple[int, int] | None:
    """The current hand's id and seq alone (a heartbeat's check: one small query, compiled once,
    no state rendered)."""
    found = _LATEST_HAND_SEQ(table_id)
    return (found[0].pk, found[0].seq) if found else None


def held_position(seats: list[Seat], user: User | None) -> int | None:
    """The chair ``user`` holds now — the only chair whose private view they may read (a chair
    left by walking out of the match, or taken by a house bot, is no longer theirs)."""
    if user is None or not user.is_authenticated:
        return None
    return next((s.position for s in seats if fanout.seat_holder(s) == user.pk), None)


def state_for(table: Table, user: User | None) -> Snapshot:
    """The full snapshot a client gets on connect or resync: the private view of the chair the
    user holds now, or the undelayed public view (callers that serve watchers use
    games.wire.spectating instead)."""
    seats = table_seats(table)  # names: games.wire.names, not a join
    return render_for(table, seats, held_position(seats, user))


def render_for(table: Table, seats: list[Seat], position: int | None) -> Snapshot:
    """The full snapshot for the reader at chair ``position`` (None: the undelayed public view)."""
    row = current_hand(table)
    engine = play.engine_for_reading(row) if row is not None else None
    return render_state(table, seats, row, engine, position)


def table_message(table: Table, seats: list[Seat], position: int | None) -> TableFrame:
    """Protocol v2's ``table`` message: the table and its seats as they are now, without the hand
    (a seat's connection, readiness, the watchers' count changed; docs/protocol.md)."""
    return {
        "type": "table",
        "table": table_info(table) | {"watchers": watcher_count(table.pk)},
        "seats": seat_list(seats),
        "you": position,
    }
