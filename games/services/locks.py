"""The live side's row locks: every writer takes its rows through these helpers, in one order.

There are two kinds of write, and one helper opens each:

* a step of a hand (a command, a timer's wake-up, the settlement of a finished hand):
  :func:`lock_hand` locks the hand's row together with its table's row, in one query;
* a write to a table and its seats when no hand step is involved (the lobby, the pre-hand
  questions, sockets coming and going, the ready countdown): :func:`lock_table`.

Either may go on to lock the table's seats (:func:`lock_seats`), and the stake's wallets last.

Lock order.  Every transaction takes its locks in this order and never goes back up it, so two
writers can only wait for each other in a line, never in a circle (a PostgreSQL deadlock):

1. the hand's row (with its table's, in the same query), when the write is a hand step;
2. the table's row (already held after 1: taking it again is free);
3. the table's seats, in chair order;
4. wallets, in primary-key order (``accounts.services``).

A hand step and a table write meet at the table's row, which both take before any seat: locking
a seat first deadlocked against a timer's step once (``presence.set_connected``).  Reads take no
lock (``games.services.reads``).  The queries run inside the caller's ``transaction.atomic()``.
"""

from __future__ import annotations

import threading
from typing import Any

from games.models import Hand, Seat, Table
from games.runtime import live_rows
from games.runtime.prepared import PreparedSelect
from games.runtime.process import runtime
from games.services.common import Refused

# Compiled once (games.runtime.prepared: compiling them on every step cost more than running them).  The
# hand and its table are locked together, as select_for_update() with select_related() does; the
# snapshot column is read only when the engine cache misses (games.services.play).
_HAND_LOCKED = PreparedSelect(
    lambda pk: Hand.objects.select_for_update().select_related("table").defer("snapshot").filter(pk=pk)
)
_SEATS_LOCKED = PreparedSelect(lambda table_id: Seat.objects.select_for_update().filter(table_id=table_id))


# The seats' revisions and the people's settings that a step's first statement read with its
# hand's (live_rows.step_check), for the step's ``lock_step_seats`` on this thread: set by every
# ``lock_hand(..., seats_next=True)`` (None when it did not read them), so what one step read is
# never taken by another.
_checked = threading.local()


def lock_hand(hand_id: int, seats_next: bool = False) -> Hand:
    """A hand step's locks (order: 1 and 2): the hand's row and its table's (``row.table``).
    Raises ``Refused`` if there is no such hand.

    The rows this process kept after the hand's last step (games.runtime.live_rows) are used
    when their revisions are still the database's, read under the same locks; else loaded.
    ``seats_next``: the caller goes on to :func:`lock_step_seats` (a command or a timer's step),
    so the seats' revisions and the people's automatic settings are read (and the seats locked)
    in the same statement as the hand's."""
    kept = runtime().rows.take_hand(hand_id)
    _checked.hand_id, _checked.check = hand_id, None
    if kept is not None:
        expected = (kept.hand_revision, kept.seed, kept.table_revision)
        if seats_next:
            check = live_rows.step_check(hand_id)
            _checked.check = check
            hit = check is not None and check.hand == expected
        else:
            hit = live_rows.hand_revisions(hand_id) == expected
        if runtime().rows.counted(hit):
            return kept.row
    found = _HAND_LOCKED(hand_id)
    if not found:
        raise Refused("no such hand", "no_such_hand")
    return found[0]


def lock_table(table_id: int) -> Table:
    """A table write's lock (order: 2): the table's row.  Raises ``Refused`` if there is none."""
    try:
        return Table.objects.select_for_update().get(pk=table_id)
    except Table.DoesNotExist:
        raise Refused("no such table", "no_such_table") from None


def lock_step_seats(row: Hand) -> tuple[list[Seat], dict[int, live_rows.Automatic] | None]:
    """A hand step's seats (order: 3, after ``lock_hand(row.pk, seats_next=True)``), locked, in
    chair order, and the seated people's automatic settings that switch anything on, by user id,
    when the step's first statement read them (None: not read; games.services.presets reads them
    on need)."""
    check: live_rows.StepCheck | None = getattr(_checked, "check", None)
    _checked.check = None
    if check is None or getattr(_checked, "hand_id", None) != row.pk:
        return lock_seats(row.table), None
    table = row.table
    kept = runtime().rows.take_seats(table.pk)
    if kept is not None and runtime().rows.counted(check.seats == kept.revisions):
        seats = kept.seats
    else:
        seats = _SEATS_LOCKED(table.pk)  # (locked already by the check: read afresh)
    for seat in seats:
        Seat.table.field.set_cached_value(seat, table)
    return seats, check.automatic


def lock_seats(table: Table, **only: Any) -> list[Seat]:
    """The table's seats, locked, in chair order (order: 3, after the table's row); ``only``
    filters them (``user=...``, ``ready=False``).  Each seat's ``table`` is ``table``.  All of
    them: the ones this process kept after the table's last step where their revisions are
    still the database's (games.runtime.live_rows), read under the same locks."""
    if only:
        seats = list(Seat.objects.select_for_update().filter(table=table, **only))
    else:
        kept = runtime().rows.take_seats(table.pk)
        if kept is not None and runtime().rows.counted(live_rows.seat_revisions(table.pk) == kept.revisions):
            seats = kept.seats
        else:
            seats = _SEATS_LOCKED(table.pk)
    for seat in seats:
        Seat.table.field.set_cached_value(seat, table)  # as table.seats.all() would
    return seats
