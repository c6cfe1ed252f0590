"""Read-only views of a table for a socket's snapshot."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from games.models import Hand, Table
from games.prepared import PreparedSelect
from games.protocol import render_state
from games.services import play


def current_hand(table: Table) -> Hand | None:
    return table.hands.order_by("-number").first()


_LATEST_HAND_SEQ = PreparedSelect(
    lambda table_id: Hand.objects.filter(table_id=table_id).order_by("-number").only("seq")[:1]
)


def current_seq(table_id: int) -> int | None:
    """The current hand's seq alone (a heartbeat's check: one small query, compiled once, no
    state rendered)."""
    found = _LATEST_HAND_SEQ(table_id)
    return found[0].seq if found else None


def state_for(table: Table, user: User | None) -> dict[str, Any]:
    """The full snapshot a client gets on connect or resync."""
    seats = list(table.seats.select_related("user__profile"))
    position = next((s.position for s in seats if user is not None and s.user_id == user.pk), None)
    row = current_hand(table)
    engine = play._decoded(row) if row is not None else None
    return render_state(table, seats, row, engine, position)
