"""The rows of running hands — the hand, its table, the table's seats — kept between steps in the
process that applied the last step, so that a step does not load them as model instances again.

Loading a hand with its table and the four seats, with their JSON and date columns decoded,
cost a fifth of a step's database thread (docs/performance.md).  The database stays the
authority: every UPDATE of these rows, by anyone, bumps the row's ``revision`` (a trigger:
games/migrations/0016_row_revisions.py), so a step reads the revisions alone — in the same
locking statements the full load used, so the locks and their order are unchanged
(games.services.locks) — and uses the kept rows only where every revision is the one they were
kept at.  Anything else (another process's step, a seat that sat down or went away, an admin's
edit, a step's own write to its table) is a miss, and the rows are loaded as before.

Entries are *taken* for a step and put back only once it committed (``HandStep.save``), like the
engines (games.runtime.engine_cache): a step that fails part-way never leaves a half-changed row
here.  A kept hand is stamped with its revision after the step's own one UPDATE (``HandStep.save``
counts it); a step that wrote its table or a seat leaves their old revisions on the entry, which
the next step then misses.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import connection

from games.runtime.prepared import fetch_all

if TYPE_CHECKING:
    from games.models import Hand, Seat


@dataclass(slots=True)
class KeptHand:
    row: Hand  # with ``row.table`` loaded
    seed: str
    hand_revision: int
    table_revision: int


@dataclass(slots=True)
class KeptSeats:
    seats: list[Seat]  # in chair order
    # (seat id, revision, user id) in chair order: the user too, so that a seat row under a
    # reused id (a database restored under a running process) is never taken for the kept one.
    revisions: list[tuple[int, int, int | None]]


class LiveRows:
    """hand id -> the kept hand (with its table), table id -> the kept seats; least recently kept
    go first past ``size``.  ``hits`` and ``misses`` count the steps' checks."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._hands: OrderedDict[int, KeptHand] = OrderedDict()
        self._seats: OrderedDict[int, KeptSeats] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    # -- what a step takes ------------------------------------------------------------------
    def take_hand(self, hand_id: int) -> KeptHand | None:
        with self._lock:
            return self._hands.pop(hand_id, None)

    def take_seats(self, table_id: int) -> KeptSeats | None:
        with self._lock:
            return self._seats.pop(table_id, None)

    def counted(self, hit: bool) -> bool:
        """Count a step's use of what was kept (``hit``) or its miss; answers ``hit``."""
        if hit:
            self.hits += 1
        else:
            self.misses += 1
        return hit

    # -- what a committed step puts back ------------------------------------------------------
    def put(self, row: Hand, seats: list[Seat]) -> None:
        """Keep a committed step's rows at the revisions they carry (``revision`` as loaded, the
        hand's advanced by ``HandStep.save`` for its own UPDATE)."""
        self.put_hand(row)
        self.put_seats(row.table.pk, seats)

    def put_hand(self, row: Hand) -> None:
        """Keep the hand's row (and its table's) at the revisions it carries: after a committed
        step, or as taken when the step changed nothing (a stale wake-up, a refused command)."""
        self._keep(self._hands, row.pk, KeptHand(row, row.seed, row.revision, row.table.revision))

    def put_seats(self, table_id: int, seats: list[Seat]) -> None:
        self._keep(self._seats, table_id, KeptSeats(list(seats), [(s.pk, s.revision, s.user_id) for s in seats]))

    def _keep(self, entries: OrderedDict[int, Any], key: int, kept: Any) -> None:
        with self._lock:
            entries[key] = kept
            entries.move_to_end(key)
            while len(entries) > self.size:
                entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._hands.clear()
            self._seats.clear()


# The revisions, read under the same row locks as the full load (FOR UPDATE where the database
# has row locks; SQLite's IMMEDIATE transactions hold the whole database's write lock instead).
def _for_update(of: str = "") -> str:
    if not connection.features.has_select_for_update:
        return ""
    return f" FOR UPDATE OF {of}" if of else " FOR UPDATE"


def hand_revisions(hand_id: int) -> tuple[int, str, int] | None:
    """(the hand's revision, its seed, its table's revision), the two rows locked; None if there is
    no such hand."""
    found = fetch_all(
        connection,
        "SELECT h.revision, h.seed, t.revision FROM games_hand h"
        " INNER JOIN games_table t ON t.id = h.table_id WHERE h.id = %s" + _for_update(),
        [hand_id],
    )
    return (int(found[0][0]), str(found[0][1]), int(found[0][2])) if found else None


def seat_revisions(table_id: int) -> list[tuple[int, int, int | None]]:
    """Each seat's (id, revision, user id) in chair order, the seats locked."""
    rows = fetch_all(
        connection,
        "SELECT id, revision, user_id FROM games_seat WHERE table_id = %s ORDER BY position" + _for_update(),
        [table_id],
    )
    return [(int(i), int(r), None if u is None else int(u)) for i, r, u in rows]


# A person's automatic table settings as the step reads them: (auto-pass, auto-win, 摸切).
Automatic = tuple[bool, bool, bool]


@dataclass(frozen=True, slots=True)
class StepCheck:
    """What a hand step reads in its first statement when it has the rows kept: the revisions of
    the hand and its table (``hand``, as :func:`hand_revisions`) and of the seats (``seats``, as
    :func:`seat_revisions`), and the seated users' automatic table settings that switch anything
    on (``automatic``, by user id: games.services.presets) — three statements' reads in one."""

    hand: tuple[int, str, int]
    seats: list[tuple[int, int, int | None]]
    automatic: dict[int, Automatic]


def step_check(hand_id: int) -> StepCheck | None:
    """The step's revisions and settings in one statement, the hand's, its table's and its seats'
    rows locked in the locks' order (the hand with its table, then the seats in chair order: the
    rows are sorted before they are locked).  The settings' rows are read, not locked, as
    ``presets.load`` reads them.  None if there is no such hand (or, never in practice, no seat)."""
    rows = fetch_all(
        connection,
        "SELECT h.revision, h.seed, t.revision, s.id, s.revision, s.user_id,"
        " p.auto_pass_claims, p.auto_win, p.tsumogiri"
        " FROM games_hand h INNER JOIN games_table t ON t.id = h.table_id"
        " INNER JOIN games_seat s ON s.table_id = t.id"
        " LEFT OUTER JOIN games_playertablesettings p ON p.user_id = s.user_id"
        " WHERE h.id = %s ORDER BY s.position" + _for_update(of="h, t, s"),
        [hand_id],
    )
    if not rows:
        return None
    first = rows[0]
    automatic: dict[int, Automatic] = {}
    for row in rows:
        user_id, flags = row[5], (bool(row[6]), bool(row[7]), bool(row[8]))
        if user_id is not None and any(flags):
            automatic[int(user_id)] = flags
    return StepCheck(
        hand=(int(first[0]), str(first[1]), int(first[2])),
        seats=[(int(r[3]), int(r[4]), None if r[5] is None else int(r[5])) for r in rows],
        automatic=automatic,
    )
