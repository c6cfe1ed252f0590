"""Sockets coming and going (connected seats, 托管 after disconnects) and walking out (逃跑)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from accounts.models import Wallet
from accounts.services import settle, system_wallet
from games.engine import get_variant
from games.models import Hand, Seat, Table
from games.services import holds, locks, play, reads
from games.services.common import (
    AUTO_AFTER_DISCONNECTS,
    Refused,
    announce_table_change,
)


def set_connected(table_id: int, user: User, connected: bool, position: int | None = None) -> None:
    """A socket of a seated player opened or closed (or began or stopped reading chair ``position``).

    A player may have several sockets (tabs, a reconnect racing the old socket's close): the
    seat is connected while any is open, and only the last one closing counts as a disconnect.
    With ``position``, only that chair counts, and only while ``user`` still sits in it: a chair
    the user stood up from was reset then (lobby.stand), and its next occupant's count is theirs.
    """
    with transaction.atomic():
        # The table first, then the seat (games.services.locks): locking the seat first
        # deadlocked against a timer's step on PostgreSQL.
        try:
            table = locks.lock_table(table_id)
        except Refused:
            return
        only = {"user": user} if position is None else {"user": user, "position": position}
        seat = next(iter(locks.lock_seats(table, **only)), None)
        if seat is None:
            return
        seat.connections = seat.connections + 1 if connected else max(0, seat.connections - 1)
        was_connected = seat.connected
        seat.connected = seat.connections > 0
        if was_connected and not seat.connected:
            seat.offline_since = timezone.now()  # the start of the table's offline grace
            if seat.table.status == Table.PLAYING:
                seat.disconnects += 1
                if seat.disconnects >= AUTO_AFTER_DISCONNECTS:
                    seat.auto_play = True
        seat.save(update_fields=["connections", "connected", "disconnects", "auto_play", "offline_since"])
        if seat.connected != was_connected:
            announce_table_change(seat.table)


def leave_match(table: Table, seat: Seat) -> None:
    """Walking out of a running match (逃跑), under the rule set's escape rule.

    Everywhere the seat is played by 托管 for the rest of the current hand.  Where the rule
    set has an escape penalty (东北: "先结算杠分，然后再按底注的100倍扣逃跑玩家的分数"), the
    leaver's 杠分 so far are settled at once, then the penalty goes to the system wallet, and
    from the next hand on a house bot takes the chair; elsewhere 托管 plays on to the end of
    the match, for the leaver's wallet.
    """
    seat.left = True
    seat.auto_play = True
    seat.save(update_fields=["left", "auto_play"])
    rules = get_variant(table.variant)
    if rules.escape_penalty_bases and seat.user_id is not None:
        _escape_penalty(table, seat, rules.escape_penalty_bases)
    announce_table_change(table)


def _escape_penalty(table: Table, seat: Seat, bases: int) -> None:
    assert seat.user_id is not None
    wallet = Wallet.objects.get(user_id=seat.user_id)
    row = reads.current_hand(table)
    if row is not None and row.status == Hand.PLAYING:
        engine = play.decoded_engine(row)
        points = [0, 0, 0, 0]
        for item in get_variant(table.variant).escape_settlement(engine):
            for wind, delta in item.payments.items():
                points["ESWN".index(wind)] += delta
        if any(points):
            # Settled now; the hand's final settlement subtracts what was prepaid here.
            seats = list(table.seats.all())
            prepaid = {str(row.position_of(s)): points[s] for s in range(4)}
            movements: dict[int, int] = {}
            for engine_seat, p in enumerate(points):
                wid = _wallet_id(seats[row.position_of(engine_seat)])
                movements[wid] = movements.get(wid, 0) + p * int(table.stake)
            settle(
                f"escape:{row.pk}:{seat.position}",
                movements,
                note=f"杠分 settled on leaving, hand {row.number}",
                hold=holds.reference(table),
            )
            row.prepaid = {k: row.prepaid.get(k, 0) + v for k, v in prepaid.items()} if row.prepaid else prepaid
            row.save(update_fields=["prepaid"])
    penalty = bases * int(table.stake)
    if penalty > 0:
        # settle() caps the penalty at what the leaver can pay from this table's hold plus their
        # free balance: units held for their other matches are not this table's to take.
        house = system_wallet()
        settle(
            f"escape-penalty:{table.pk}:{seat.position}:{table.hands_played}",
            {wallet.pk: -penalty, house.pk: penalty},
            note=f"逃跑: {bases} × 底注",
            hold=holds.reference(table),
        )
    # From the next hand a house bot plays the chair: once no hand the leaver's wallet played is
    # left to book, their hold is free (else the booking of that hand frees it, settle_hand).
    if row is None or (row.settled and not table.hands.filter(status=Hand.FINISHED, settled=False).exists()):
        holds.release(table, [seat.user_id])


def _wallet_id(seat: Seat) -> int:
    if seat.is_bot or seat.user_id is None:
        return system_wallet().pk
    return Wallet.objects.get(user_id=seat.user_id).pk
