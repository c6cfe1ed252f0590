"""The lobby: creating tables, sitting down and standing up, bots, readiness and its countdown."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from accounts.models import Wallet
from games import timers
from games.engine.options import OptionsError
from games.engine.variants import get_variant
from games.models import Seat, Table
from games.services import match, presence
from games.services.common import (
    Refused,
    announce_table_change,
    deadline_token,
    setting,
)


def create_table(
    owner: User,
    variant: str,
    options: dict[str, Any] | None = None,
    stake: int = 1,
    hands_total: int = 4,
    turn_seconds: int = 20,
    claim_seconds: int = 8,
    is_private: bool = False,
    score_only: bool = False,
) -> Table:
    """``score_only`` (tournaments) allows stake 0: hands are scored but move no wallet units."""
    try:
        rules = get_variant(variant)
        opts = rules.validate_options(options or {})
    except (ValueError, OptionsError) as exc:
        raise Refused(str(exc)) from None
    if stake < 1 and not (score_only and stake == 0):
        raise Refused("the stake must be at least 1")
    if not 1 <= hands_total <= 64:
        raise Refused("a match has 1 to 64 hands")
    if not 5 <= turn_seconds <= 300 or not 3 <= claim_seconds <= 120:
        raise Refused("time limits: 5–300 s per turn, 3–120 s per claim")
    with transaction.atomic():
        table = Table.objects.create(
            variant=variant,
            options=opts,
            stake=stake,
            hands_total=hands_total,
            turn_seconds=turn_seconds,
            claim_seconds=claim_seconds,
            is_private=is_private,
            owner=owner,
        )
        Seat.objects.bulk_create([Seat(table=table, position=p) for p in range(4)])
    return table


def min_balance(table: Table) -> int:
    """What a player must hold to sit: a multiple of the stake (CAISHEN_SIT_MULTIPLE, default 20)."""
    return int(table.stake) * int(setting("CAISHEN_SIT_MULTIPLE", 20))


def _locked_table(table_id: int) -> Table:
    try:
        return Table.objects.select_for_update().get(pk=table_id)
    except Table.DoesNotExist:
        raise Refused("no such table") from None


def sit(table_id: int, user: User, position: int | None = None) -> Seat:
    with transaction.atomic():
        table = _locked_table(table_id)
        if table.status != Table.WAITING:
            raise Refused("the match has started; you can watch")
        seats = list(table.seats.select_for_update())
        if any(s.user_id == user.pk for s in seats):
            raise Refused("you already sit at this table")
        wallet = Wallet.objects.get(user=user)
        if wallet.balance < min_balance(table):
            raise Refused(f"you need at least {min_balance(table)} to sit at this table (you have {wallet.balance})")
        free = [s for s in seats if not s.occupied]
        if position is not None:
            free = [s for s in free if s.position == position]
        if not free:
            raise Refused("that seat is taken" if position is not None else "the table is full")
        seat = free[0]
        seat.user, seat.is_bot, seat.ready = user, False, False
        seat.save()
        announce_table_change(table)
        return seat


def stand(table_id: int, user: User) -> None:
    with transaction.atomic():
        table = _locked_table(table_id)
        seat = table.seats.filter(user=user).first()
        if seat is None:
            raise Refused("you do not sit at this table")
        if table.status == Table.PLAYING:
            presence.leave_match(table, seat)
            return
        vacate(seat)
        _cancel_countdown(table)
        announce_table_change(table)


def vacate(seat: Seat) -> None:
    """Free a chair (stood up, unseated).  Its connection count was its occupant's: the sockets
    that counted there move to watching on the table change (games.consumers), so the chair
    starts again at none for whoever sits next."""
    seat.user, seat.ready = None, False
    seat.connections, seat.connected, seat.timeouts, seat.disconnects = 0, False, 0, 0
    seat.save()


def add_bots(table_id: int, user: User) -> int:
    """The owner fills every empty seat with a ready bot; returns how many."""
    with transaction.atomic():
        table = _locked_table(table_id)
        if table.owner_id != user.pk:
            raise Refused("only the table's owner may add bots")
        if table.status != Table.WAITING:
            raise Refused("the match has started")
        empty = [s for s in table.seats.select_for_update() if not s.occupied]
        for s in empty:
            s.is_bot, s.ready = True, True
            s.save()
        _after_ready_change(table)
        return len(empty)


def set_ready(table_id: int, user: User, ready: bool = True) -> None:
    """Confirm the stake (Ready).  Four ready seats start the match."""
    with transaction.atomic():
        table = _locked_table(table_id)
        if table.status != Table.WAITING:
            raise Refused("the match has started")
        seat = table.seats.filter(user=user).first()
        if seat is None:
            raise Refused("you do not sit at this table")
        if ready and Wallet.objects.get(user=user).balance < min_balance(table):
            raise Refused(f"you need at least {min_balance(table)} to play at this table")
        seat.ready = ready
        seat.save(update_fields=["ready"])
        _after_ready_change(table)


def _after_ready_change(table: Table) -> None:
    seats = list(table.seats.all())
    ready = [s for s in seats if s.occupied and s.ready]
    if len(ready) == 4:
        table.ready_deadline = None
        table.save(update_fields=["ready_deadline"])
        match.start_match(table)
        return
    unready = [s for s in seats if s.user_id is not None and not s.ready]
    if len(ready) == 3 and len(unready) == 1 and table.ready_deadline is None:
        # The fourth gets a countdown: ready by then or be unseated.
        table.ready_deadline = timezone.now() + timedelta(seconds=setting("CAISHEN_READY_SECONDS", 30))
        table.save(update_fields=["ready_deadline"])
        timers.schedule_on_commit("table", table.pk, deadline_token(table.ready_deadline), table.ready_deadline)
    elif len(ready) < 3:
        _cancel_countdown(table)
    announce_table_change(table)


def _cancel_countdown(table: Table) -> None:
    if table.ready_deadline is not None:
        table.ready_deadline = None
        table.save(update_fields=["ready_deadline"])
