"""What an organiser may do to a running match from outside it: hand a chair to another player
(or to a bot) between two hands, and stop the match.

Tournaments call these (tournaments.round_actions); the table's own players never do.  Both keep
the locks' order (games.services.locks) and announce the change to the table's sockets.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games.models import Hand, Seat, Table
from games.services import holds, locks, reads
from games.services.common import Refused, announce_table_change, log


def replace_player(table: Table, position: int, user: User | None) -> Seat:
    """Chair ``position`` goes to ``user`` (None: a house bot) — called between hands, the table
    locked by the caller (``match.BEFORE_HAND``).  The newcomer starts offline, with the table's
    offline grace to arrive.  Only at a score-only table: a stake is held per wallet for the
    whole match (games.services.holds), and a chair changing wallets mid-match has no fair
    booking."""
    if table.stake:
        raise Refused("a chair changes hands during a match only at a score-only table", "chair_change_score_only")
    seat = next(iter(locks.lock_seats(table, position=position)), None)
    if seat is None:
        raise Refused(f"no seat {position}", "no_such_seat", {"seat": position})
    if user is not None and Seat.objects.filter(table=table, user=user).exclude(pk=seat.pk).exists():
        raise Refused("you already sit at this table", "already_seated")
    seat.user, seat.is_bot = user, user is None
    seat.ready = True
    seat.auto_play = seat.left = seat.connected = False
    seat.timeouts = seat.disconnects = seat.connections = 0
    seat.offline_since = timezone.now()
    seat.save()
    log.info("chair replaced", extra={"table": table.pk, "seat": position, "bot": user is None})
    announce_table_change(table)
    return seat


def abort_match(table_id: int) -> Table:
    """Stop a running match now: the table is ``aborted``; the hand being played is void — it
    stays as it stood, never finished, never booked, and takes no command or timer any more.
    Finished hands keep their booking.  The stakes held for the match are released."""
    with transaction.atomic():
        table = reads.table_row(table_id)
        if table is None:
            raise Refused("no such table", "no_such_table")
        latest = reads.current_hand(table)
        if latest is not None and latest.status == Hand.PLAYING:
            row = locks.lock_hand(latest.pk)  # the hand first, with its table (the locks' order)
            table = row.table
            row.deadline_at = None
            row.save(update_fields=["deadline_at"])
        else:
            table = locks.lock_table(table_id)
        if table.status != Table.PLAYING:
            raise Refused("only a running match can be stopped", "match_not_running")
        table.status = Table.ABORTED
        table.ready_deadline = None
        table.pre_hand = None
        table.save(update_fields=["status", "ready_deadline", "pre_hand"])
        holds.release(table)
        log.info("match aborted", extra={"table": table.pk})
        announce_table_change(table)
        return table
