"""托管 by the player's own choice: turning it on, and — above all — turning it off.

Two timeouts in a row (or three disconnects) put a seat on 托管 (``services.play``,
``services.presence``); any command of the player's own ends it (``play._forget_timeouts``).
But on 托管 the seat's turn is played a bot's delay into it, so a click often comes too late:
the player needs a sure way back.  ``set_auto_play`` is that way, and the manual switch too.

Turning 托管 off while the seat owes a decision gives it the whole clock of that decision (the
turn's ``turn_seconds``) instead of the bot's delay; turning it on lets the bot take the decision
after its delay.  In a claim window nothing is re-timed: the window keeps its one clock
(claim protection), and at its deadline a seat on 托管 is answered by the bot, not as a timeout.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from games.engine import turn
from games.models import Hand, Seat, Table
from games.services import locks, play, reads
from games.services.common import Refused, announce_table_change, log

NOT_A_SWITCH = 'autoplay takes "on": true or false'


def set_auto_play(table_id: int, user: User, on: Any) -> bool:
    """Put the user's seat at ``table_id`` on 托管 (``on``) or take it off.  Returns whether
    anything changed (asking for what already is changes nothing); raises Refused."""
    if not isinstance(on, bool):
        raise Refused(NOT_A_SWITCH, "autoplay_needs_bool")
    with transaction.atomic():
        table = reads.table_row(table_id)
        if table is None:
            raise Refused("no such table", "no_such_table")
        latest = reads.current_hand(table)
        row: Hand | None = None
        if latest is not None and latest.status == Hand.PLAYING:
            # The order every step locks in: the hand with its table, then the seats.
            row = locks.lock_hand(latest.pk)
            table = row.table
        else:
            table = locks.lock_table(table_id)
        if table.status != Table.PLAYING:
            raise Refused("托管 is only for a running match", "autoplay_not_playing")
        seats = locks.lock_seats(table)
        seat = next((s for s in seats if s.user_id == user.pk and not s.is_bot), None)
        if seat is None:
            raise Refused("you do not sit at this table", "not_seated")
        if seat.left:
            raise Refused("you left this match: 托管 plays your seat to its end", "left_match")
        if seat.auto_play == on:
            return False
        seat.auto_play = on
        seat.timeouts = 0  # either way the run of timeouts that led here is over
        seat.save(update_fields=["auto_play", "timeouts"])
        log.info("auto-play", extra={"table": table.pk, "seat": seat.position, "on": on})
        if row is not None and row.status == Hand.PLAYING and _owes_a_turn(row, seat):
            # Re-time the decision: the player's whole clock, or the bot's delay.
            step = play.HandStep(row, play.engine_for_step(row), seats)
            step.advance()
            step.save()  # the step's frames carry the seats, 托管 flag included
        else:
            announce_table_change(table)
        return True


def _owes_a_turn(row: Hand, seat: Seat) -> bool:
    """Does the seat owe a decision outside a claim window (its turn, or a rule set's question)?"""
    t = turn(play.engine_for_reading(row))
    return not t.in_window and row.engine_seat(seat.position) in t.legal
