"""The offline grace: how long a table waits for a seated person who is not connected.

Ordinarily an absent player's turn simply runs out (two timeouts in a row put the seat on 托管).
A table with ``offline_grace_seconds`` (tournaments set it, from the event's setting) waits
longer for someone who is not there: their turn's clock runs until the grace is over, and then
托管 takes the seat at once (``play.HandStep.automatic``).  The grace runs from
``Seat.offline_since``: when the player's last socket closed, or when the match started without
them.  A player who comes back (and acts) ends 托管 as ever.

Pure reads of the seat and table rows already loaded by the step: no query, so the hot path of
tables without a grace pays one attribute test.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from games.models import Seat, Table


def grace_until(seat: Seat, table: Table) -> datetime | None:
    """When the seat's grace ends; None when there is none (no grace at this table, a bot, a
    connected player, or a seat without a person)."""
    if not table.offline_grace_seconds or seat.connected or seat.is_bot or seat.user_id is None:
        return None
    since = seat.offline_since or seat.joined_at
    return since + timedelta(seconds=table.offline_grace_seconds)


def in_grace(seat: Seat, table: Table, now: datetime) -> bool:
    """Offline, and the table still waits for them."""
    until = grace_until(seat, table)
    return until is not None and now < until


def expired(seat: Seat, table: Table, now: datetime) -> bool:
    """Offline for longer than the table's grace: 托管 plays the seat."""
    until = grace_until(seat, table)
    return until is not None and now >= until


def seconds_left(seat: Seat, table: Table, now: datetime) -> int | None:
    """Whole seconds until 托管 takes an offline seat's turns (0 once it has); None if no grace applies."""
    until = grace_until(seat, table)
    if until is None:
        return None
    return max(0, int((until - now).total_seconds() + 0.999))
