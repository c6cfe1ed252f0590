"""The lobby: creating tables, sitting down and standing up, bots, readiness and its countdown."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Wallet
from games.engine import OptionsError, get_variant
from games.models import Seat, Table
from games.runtime import timers
from games.services import holds, locks, match, overload, presence
from games.services.common import (
    Refused,
    announce_table_change,
    deadline_token,
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
    hints: bool = False,
    offline_grace_seconds: int = 0,
    seat_owner: bool = False,
    quick_play: bool = False,
) -> Table:
    """``seat_owner``: the creator sits at once when their available balance covers the table's
    minimum (else they watch until they sit, as a private table's owner may set a stake for
    richer friends).  ``quick_play``: a table made by :func:`quick_play`.
    ``score_only`` (tournaments) allows stake 0: hands are scored but move no wallet units.
    ``hints``: 听牌 hints for the seated players; never at a tournament's (score-only) table.
    ``offline_grace_seconds``: how long the table waits for a seated player who is not connected
    before 托管 takes their turns (games.services.grace; 0: the ordinary clock)."""
    try:
        rules = get_variant(variant)
        opts = rules.validate_options(options or {})
    except (ValueError, OptionsError) as exc:
        raise Refused(str(exc), "bad_options", {"detail": str(exc)}) from None
    if stake < 1 and not (score_only and stake == 0):
        raise Refused("the stake must be at least 1", "stake_too_small")
    if not 1 <= hands_total <= 64:
        raise Refused("a match has 1 to 64 hands", "hands_out_of_range")
    if not 5 <= turn_seconds <= 300 or not 3 <= claim_seconds <= 120:
        raise Refused("time limits: 5–300 s per turn, 3–120 s per claim", "time_limits_out_of_range")
    if hints and score_only:
        raise Refused("a tournament table has no hints", "hints_not_in_tournaments")
    if stake > 0 and not score_only:
        _refuse_unaffordable(stake)
    # A saturated process takes no new table (games/services/overload.py): the players it would bring
    # would slow every running table down.  After the checks above, so a bad request still
    # hears what is wrong with it.
    overload.refuse_new_work()
    with transaction.atomic():
        table = Table.objects.create(
            variant=variant,
            options=opts,
            stake=stake,
            hands_total=hands_total,
            turn_seconds=turn_seconds,
            claim_seconds=claim_seconds,
            is_private=is_private,
            hints=bool(hints),
            owner=owner,
            offline_grace_seconds=max(0, int(offline_grace_seconds)),
            quick_play=quick_play,
        )
        Seat.objects.bulk_create([Seat(table=table, position=p) for p in range(4)])
        wallet = Wallet.objects.filter(user=owner).first() if seat_owner else None
        if wallet is not None and wallet.available >= min_balance(table):
            sit(table.pk, owner)
    return table


def _refuse_unaffordable(stake: int) -> None:
    """Refuse a stake that no account could sit down at.

    Sitting and readying ask for ``stake × CAISHEN_SIT_MULTIPLE`` available (``holds.required``:
    the multiple is the platform's bound on one match's loss, what the match holds per seat); a
    stake whose requirement exceeds the largest balance of any account would make a table nobody
    can ever play at.  The largest balance, not the owner's: a private table's owner may set a
    stake for richer friends."""
    needed = int(stake) * int(settings.CAISHEN_SIT_MULTIPLE)
    # Players' wallets only: the house (bots' wallet, opened with a float of a million units
    # the moment a bot first plays) would make any stake look affordable.
    richest = Wallet.objects.filter(kind=Wallet.KIND_PLAYER).aggregate(top=Max("balance"))["top"] or 0
    if needed > richest:
        raise Refused(
            f"nobody could sit at a stake of {stake}: it needs {needed} per player and no wallet holds that much",
            "stake_unaffordable",
            {"stake": int(stake), "needed": needed, "richest": int(richest)},
        )


def min_balance(table: Table) -> int:
    """What a player must have available to sit and to ready up, and what the match holds from
    each human seat when it starts: a multiple of the stake (CAISHEN_SIT_MULTIPLE, default 20)."""
    return holds.required(table)


def sit(table_id: int, user: User, position: int | None = None) -> Seat:
    with transaction.atomic():
        table = locks.lock_table(table_id)
        if table.status != Table.WAITING:
            raise Refused("the match has started; you can watch", "match_started_watch")
        seats = locks.lock_seats(table)
        if any(s.user_id == user.pk for s in seats):
            raise Refused("you already sit at this table", "already_seated")
        wallet = Wallet.objects.get(user=user)
        # Available, not balance: units held by the player's running matches back those matches.
        if wallet.available < min_balance(table):
            raise holds.shortfall(min_balance(table), wallet, "sit")
        free = [s for s in seats if not s.occupied]
        if position is not None:
            free = [s for s in free if s.position == position]
        if not free:
            raise (
                Refused("that seat is taken", "seat_taken")
                if position is not None
                else Refused("the table is full", "table_full")
            )
        seat = free[0]
        seat.user, seat.is_bot, seat.ready = user, False, False
        seat.save()
        announce_table_change(table)
        return seat


def stand(table_id: int, user: User) -> None:
    with transaction.atomic():
        table = locks.lock_table(table_id)
        seat = table.seats.filter(user=user).first()
        if seat is None:
            raise Refused("you do not sit at this table", "not_seated")
        if table.status == Table.PLAYING:
            presence.leave_match(table, seat)
            return
        vacate(seat)
        if not table.quick_play:  # a quick-play table's clock is its bots' (quick_table_due)
            _cancel_countdown(table)
        announce_table_change(table)


def closure_blockers(user: User) -> list[str]:
    """Why ``user`` cannot close their account now (accounts.closure): a seat in a running match
    (its hands still settle to the wallet), or at a table waiting to start (it would start with
    them)."""
    reasons = []
    seats = Seat.objects.filter(user=user, table__status__in=[Table.PLAYING, Table.WAITING])
    for seat in seats.select_related("table"):
        if seat.table.status == Table.PLAYING:
            reason = _("You are seated in a running match (table #%(table)s): finish it first.")
        else:
            reason = _("You are seated at table #%(table)s: stand up first.")
        reasons.append(reason % {"table": seat.table_id})
    return reasons


def vacate(seat: Seat) -> None:
    """Free a chair (stood up, unseated).  Its connection count was its occupant's: the sockets
    that counted there move to watching on the table change (games.live.consumers), so the chair
    starts again at none for whoever sits next."""
    seat.user, seat.ready = None, False
    seat.connections, seat.connected, seat.timeouts, seat.disconnects = 0, False, 0, 0
    seat.save()


def add_bots(table_id: int, user: User, level: str = Seat.STRONG) -> int:
    """The owner fills every empty seat with a ready bot of ``level`` (``Seat.BOT_LEVELS``);
    returns how many."""
    if level not in dict(Seat.BOT_LEVELS):
        raise Refused(f"unknown bot level {level!r}", "bot_level", {"level": str(level)})
    with transaction.atomic():
        table = locks.lock_table(table_id)
        if table.owner_id != user.pk:
            raise Refused("only the table's owner may add bots", "owner_only")
        if table.status != Table.WAITING:
            raise Refused("the match has started", "match_started")
        added = fill_with_bots(table, level)
        uncovered = _after_ready_change(table)
    _refuse_if_uncovered(uncovered, user)
    return added


def set_ready(table_id: int, user: User, ready: bool = True) -> None:
    """Confirm the stake (Ready).  Four ready seats start the match.

    Readying asks for the table's minimum *available* (the balance less what the player's other
    matches hold).  The hold itself is taken when the match starts, under the wallets' locks: a
    seat whose units were committed at another table meanwhile is unreadied there and the match
    waits; when that seat is the caller's, the refusal comes back to the caller.
    """
    with transaction.atomic():
        table = locks.lock_table(table_id)
        if table.status != Table.WAITING:
            raise Refused("the match has started", "match_started")
        seat = table.seats.filter(user=user).first()
        if seat is None:
            raise Refused("you do not sit at this table", "not_seated")
        if ready:
            wallet = Wallet.objects.get(user=user)
            if wallet.available < min_balance(table):
                raise holds.shortfall(min_balance(table), wallet)
        seat.ready = ready
        seat.save(update_fields=["ready"])
        uncovered = _after_ready_change(table)
    _refuse_if_uncovered(uncovered, user)


def _refuse_if_uncovered(uncovered: holds.StakeNotCovered | None, user: User) -> None:
    """After the commit (the uncovered seats stay unreadied): tell the caller if theirs was one."""
    if uncovered is not None and user.pk in uncovered.messages:
        raise Refused(uncovered.messages[user.pk], "stake_not_covered")


def _after_ready_change(table: Table) -> holds.StakeNotCovered | None:
    """Start the match when four seats are ready, else run the fourth seat's countdown.

    Returns the refusal when the match could not start because some seats' stakes are no longer
    covered: those seats are unreadied (and the countdown logic runs again for the rest).
    """
    seats = list(table.seats.all())
    ready = [s for s in seats if s.occupied and s.ready]
    if len(ready) == 4:
        # Nor a new match (games/services/overload.py): raised inside the caller's transaction, so the
        # seat that would have been the fourth stays unready and can ready up again later.
        try:
            overload.refuse_new_work()
        except overload.Overloaded:
            # Kept outside the transaction that the refusal rolls back: the ready countdown must
            # not unseat a player whose ready-up the server refused, even if the load has fallen
            # by the time it runs out (play._wake_table).
            overload.remember_refused_start(table.pk)
            raise
        table.ready_deadline = None
        table.save(update_fields=["ready_deadline"])
        try:
            match.start_match(table)
        except holds.StakeNotCovered as exc:
            # Nothing was held or changed by start_match (it takes the holds first, all or none).
            table.seats.filter(position__in=exc.positions).update(ready=False)
            _after_ready_change(table)
            return exc
        return None
    if table.quick_play:
        # Its clock is when bots take the empty chairs (quick_play), not the fourth's countdown.
        announce_table_change(table)
        return None
    unready = [s for s in seats if s.user_id is not None and not s.ready]
    if len(ready) == 3 and len(unready) == 1 and table.ready_deadline is None:
        # The fourth gets a countdown: ready by then or be unseated.
        table.ready_deadline = timezone.now() + timedelta(seconds=settings.CAISHEN_READY_SECONDS)
        table.save(update_fields=["ready_deadline"])
        timers.schedule_on_commit("table", table.pk, deadline_token(table.ready_deadline), table.ready_deadline)
    elif len(ready) < 3:
        _cancel_countdown(table)
    announce_table_change(table)
    return None


def _cancel_countdown(table: Table) -> None:
    if table.ready_deadline is not None:
        table.ready_deadline = None
        table.save(update_fields=["ready_deadline"])


# ------------------------------------------------------------------------------- quick play
def quick_play(user: User, variant: str, stake: int = 1, bots: bool = False) -> Table:
    """One tap to a game: seat ``user``, ready (the tap confirms the stake), at the oldest public
    quick-play table of ``variant`` and ``stake`` that waits for players, or at a new one (the
    rule set's default options, four hands).  ``bots``: bots take the empty chairs and the match
    starts now; otherwise the table waits ``CAISHEN_QUICK_PLAY_WAIT_SECONDS`` for people, then bots
    take the chairs still empty (games.services.wakes) unless everyone has stood up (cancelled).

    A seat the player holds at another waiting quick-play table is given up (they moved on);
    asked again for the same rule set and stake, the table they wait at is theirs again.  Raises
    ``Refused`` (a short wallet: the same as sitting), ``overload.Overloaded`` (nothing changed:
    no table made, no seat taken)."""
    try:
        get_variant(variant)
    except ValueError as exc:
        raise Refused(str(exc), "bad_options", {"detail": str(exc)}) from None
    with transaction.atomic():
        for seat in Seat.objects.filter(user=user, table__status=Table.WAITING, table__quick_play=True).exclude(
            table__variant=variant, table__stake=stake
        ):
            stand(seat.table_id, user)
        table = _open_quick_table(user, variant, stake)
        if table is None:
            table = create_table(user, variant, stake=stake, quick_play=True)
        if not table.seats.filter(user=user).exists():
            sit(table.pk, user)
        table = locks.lock_table(table.pk)
        table.seats.filter(user=user).update(ready=True)
        if bots:
            fill_with_bots(table)
        elif table.ready_deadline is None:
            table.ready_deadline = timezone.now() + timedelta(seconds=settings.CAISHEN_QUICK_PLAY_WAIT_SECONDS)
            table.save(update_fields=["ready_deadline"])
            timers.schedule_on_commit("table", table.pk, deadline_token(table.ready_deadline), table.ready_deadline)
        uncovered = _after_ready_change(table)
    _refuse_if_uncovered(uncovered, user)
    table.refresh_from_db()
    return table


def _open_quick_table(user: User, variant: str, stake: int) -> Table | None:
    """The quick-play table of this rule set and stake where ``user`` sits, else the oldest with
    a free chair (locked and checked again: another player may have taken the last one)."""
    waiting = Table.objects.filter(
        status=Table.WAITING, quick_play=True, is_private=False, variant=variant, stake=stake
    ).order_by("created_at", "pk")
    mine = waiting.filter(seats__user=user).first()
    if mine is not None:
        return mine
    for pk in waiting.filter(seats__user__isnull=True, seats__is_bot=False).values_list("pk", flat=True).distinct()[:5]:
        table = locks.lock_table(pk)
        if table.status == Table.WAITING and any(not s.occupied for s in locks.lock_seats(table)):
            return table
    return None


def fill_with_bots(table: Table, level: str = Seat.STRONG) -> int:
    """Ready bots of ``level`` in the (locked) table's empty chairs; the caller starts the match
    (``after_ready_change``).  Returns how many."""
    empty = [s for s in locks.lock_seats(table) if not s.occupied]
    for s in empty:
        s.is_bot, s.ready, s.bot_level = True, True, level
        s.save()
    return len(empty)


def quick_table_due(table: Table) -> None:
    """A quick-play table's wait is over (games.services.wakes, the table locked): bots take the
    empty chairs and the match starts.  Whoever sits there unready (pressed Not ready) is
    unseated, as the ready countdown would; a table nobody sits at any more is closed.  A
    saturated process starts no match: the wait starts again."""
    for seat in locks.lock_seats(table, user__isnull=False, ready=False):
        vacate(seat)
    table.ready_deadline = None
    if not table.seats.filter(user__isnull=False).exists():
        table.status = Table.ABORTED
        table.save(update_fields=["ready_deadline", "status"])
        announce_table_change(table)
        return
    table.save(update_fields=["ready_deadline"])
    try:
        with transaction.atomic():
            fill_with_bots(table)
            _after_ready_change(table)
    except overload.Overloaded:
        table.ready_deadline = timezone.now() + timedelta(seconds=settings.CAISHEN_QUICK_PLAY_WAIT_SECONDS)
        table.save(update_fields=["ready_deadline"])
        timers.schedule_on_commit("table", table.pk, deadline_token(table.ready_deadline), table.ready_deadline)
        announce_table_change(table)
