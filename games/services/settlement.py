"""Booking a finished hand into the wallets (inline, or by the scaled mode's Celery task), idempotently."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from accounts.models import Wallet
from accounts.services import settle, split_movement, system_wallet
from games.engine import Result, get_variant
from games.models import Hand, Seat
from games.runtime.process import runtime
from games.services import holds, locks
from games.services.common import (
    announce_table_change,
)


def settle_hand(row: Hand, result: Result, seats: list[Seat]) -> dict[str, int]:
    """Book the hand into wallets: engine points × stake; bots play for the house (system wallet).

    A loser pays from this table's hold plus their free balance (accounts.services.settle, under
    the cap for losses larger than that).  Returns the units each chair moved *as booked*: what
    ``Hand.deltas``, the table's scores and the hand-end frame show, so they sum to zero and equal
    the hand's ledger rows even when a loss was capped (the house's bots share its one row).
    """
    table = row.table
    stake = int(table.stake)
    house = system_wallet()
    prepaid = row.prepaid or {}
    claims: dict[int, int] = {}  # chair -> uncapped units
    chair_wallet: dict[int, int] = {}
    for engine_seat, points in enumerate(result.deltas):
        chair = row.position_of(engine_seat)
        points -= int(prepaid.get(str(chair), 0))  # 杠分 a leaver already settled
        seat = seats[chair]
        wallet_id = house.pk if seat.is_bot or seat.user_id is None else Wallet.objects.get(user_id=seat.user_id).pk
        chair_wallet[chair] = wallet_id
        claims[chair] = points * stake
    by_wallet: dict[int, int] = {}
    for chair, wallet_id in chair_wallet.items():
        by_wallet[wallet_id] = by_wallet.get(wallet_id, 0) + claims[chair]
    entries = settle(
        f"hand:{row.pk}", by_wallet, note=f"table {row.table_id} hand {row.number}", hold=holds.reference(table)
    )
    moved = {e.wallet_id: e.amount for e in entries}
    out: dict[str, int] = {}
    for wallet_id in by_wallet:
        shared = {chair: claims[chair] for chair, w in chair_wallet.items() if w == wallet_id}
        for chair, units in split_movement(moved.get(wallet_id, 0), shared).items():
            out[str(chair)] = units
    # The match's running scores, shown in every frame (the caller saves the table row, which
    # every path here holds locked: the step's or the settlement's own lock on the hand).  On a
    # score-only table (stake 0: tournaments) no unit moves, so they are the hands' points, as
    # the tournament's standings count them; else every plate would read 0 all match.
    gained = out if stake else {str(row.position_of(s)): int(p) for s, p in enumerate(result.deltas)}
    table.scores = {c: int((table.scores or {}).get(c, 0)) + int(gained.get(c, 0)) for c in ("0", "1", "2", "3")}
    _release_stakes(row, seats)
    for booked in HAND_BOOKED:
        booked(row, seats)
    return out


# Called with every hand as it is booked, inside the booking's transaction and after the table's
# scores include it: ratings (ratings/apps.py) rate a match once its last hand is booked, so a
# rating moves with the settlement or not at all.  The games app knows nothing of ratings.
HAND_BOOKED: list[Callable[[Hand, list[Seat]], None]] = []


def _release_stakes(row: Hand, seats: list[Seat]) -> None:
    """Release the holds no hand of this match can book against any more, now that ``row`` is booked.

    The match's last hand frees every seat's hold; under an escape penalty (东北) a leaver's hold
    is freed once the hands their wallet played are booked (a house bot plays the chair after).
    In the scaled mode hands are booked by the worker, possibly out of order, so nothing is freed
    while an earlier finished hand is still unbooked: it still needs its holds.
    """
    table = row.table
    if Hand.objects.filter(table_id=table.pk, status=Hand.FINISHED, settled=False).exclude(pk=row.pk).exists():
        return
    if row.number >= table.hands_total or (
        Hand.objects.filter(table_id=table.pk, number__gte=table.hands_total, status=Hand.FINISHED).exists()
    ):
        holds.release(table)
        return
    if not get_variant(table.variant).escape_penalty_bases:
        return  # a leaver's 托管 plays on for their wallet: the hold stays to the end of the match
    latest = Hand.objects.filter(table_id=table.pk).order_by("-number").values_list("number", flat=True).first()
    # A leaver's wallet plays up to the hand they left in; a later hand's chair is a house bot.
    gone = [s.user_id for s in seats if s.left and s.user_id is not None and (s.is_bot or row.number >= (latest or 0))]
    if gone:
        holds.release(table, gone)


def connect(settle_later: Callable[[int], None]) -> None:
    """Hand this module the queueing of settlements for the scaled mode's worker (games.tasks:
    the tasks import the services, so the services do not import them; GamesConfig.ready does,
    once per process)."""
    runtime().connected.settle_later = settle_later


def queue_settlement(hand_id: int) -> None:
    """Queue the settlement of a finished hand (``CAISHEN_SETTLEMENT=celery``)."""
    settle_later = runtime().connected.settle_later
    if settle_later is None:
        raise RuntimeError("games.services.settlement is not connected: GamesConfig.ready connects it")
    settle_later(hand_id)


def settle_finished_hand(hand_id: int) -> bool:
    """Settle a finished hand that is not settled yet (the scaled mode's Celery task).  Idempotent."""
    with transaction.atomic():
        row = locks.lock_hand(hand_id)
        if row.status != Hand.FINISHED or row.settled or row.result is None:
            return False
        row.deltas = settle_hand(row, Result.from_json(row.result), list(row.table.seats.all()))
        row.settled = True
        row.save(update_fields=["deltas", "settled"])
        row.table.save(update_fields=["scores"])
        announce_table_change(row.table)
        return True


def unsettled_hands(older_than: float = 10.0) -> list[int]:
    """Finished hands still unsettled a while after they ended: their settlement task was lost
    (a broker restart, a worker killed before acking).  Settling is idempotent, so the sweeper
    simply settles them again."""
    cutoff = timezone.now() - timedelta(seconds=older_than)
    return list(
        Hand.objects.filter(status=Hand.FINISHED, settled=False, finished_at__lte=cutoff).values_list("pk", flat=True)
    )


def record_sweep() -> None:
    """Remember when the deadline sweeper last ran (health checks read it)."""
    cache.set("caishen:last_sweep", timezone.now().isoformat(), timeout=None)


def last_sweep() -> str | None:
    value = cache.get("caishen:last_sweep")
    return str(value) if value else None
