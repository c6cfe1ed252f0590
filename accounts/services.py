"""The only code that moves units: every movement is a ledger row plus a balance update in one transaction.

It is also the only code that writes holds (units committed to a running match), and it writes
them only under the wallet's row lock, taken in wallet-id order like every multi-wallet lock here:
so holds and balances change together and a balance never backs more holds than it covers.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Hold, HoldChange, LedgerEntry, Profile, Wallet

K = TypeVar("K", bound=Hashable)

log = logging.getLogger("caishen.accounts")


class InsufficientFunds(ValueError):
    """A debit larger than the balance."""


class HeldFunds(InsufficientFunds):
    """A staff debit that would leave the balance below what the wallet's active holds need: the
    running matches could then not be paid what they hold (a staff member releases or reduces a
    hold first, :func:`change_hold`)."""

    def __init__(self, balance: int, held: int, amount: int) -> None:
        super().__init__(f"a debit of {amount} would leave {balance - amount}, below the {held} held")
        self.balance = balance
        self.held = held
        self.amount = amount


def starting_grant() -> int:
    return int(settings.CAISHEN_STARTING_GRANT)


def open_account(user: User) -> Wallet:
    """Profile, wallet and starting grant for a new user (idempotent)."""
    with transaction.atomic():
        Profile.objects.get_or_create(user=user)
        wallet, created = Wallet.objects.get_or_create(user=user)
        if created and starting_grant() > 0:
            post(wallet, starting_grant(), LedgerEntry.GRANT, reference="grant", note="starting grant")
        return wallet


def system_wallet() -> Wallet:
    """The house: bots play for it and escape penalties go to it.

    It opens with a float (CAISHEN_HOUSE_FLOAT, default 1,000,000 units) so that bots
    can pay their losses; staff top it up with a credit like any other wallet.
    """
    with transaction.atomic():
        wallet, created = Wallet.objects.get_or_create(kind=Wallet.KIND_SYSTEM, user=None)
        float_units = int(settings.CAISHEN_HOUSE_FLOAT)
        if created and float_units > 0:
            post(wallet, float_units, LedgerEntry.GRANT, reference="house-float", note="opening float of the house")
        return wallet


def post(
    wallet: Wallet,
    amount: int,
    reason: str,
    reference: str = "",
    note: str = "",
    by: User | None = None,
) -> LedgerEntry:
    """Append one entry and update the cached balance; refuses to go below zero."""
    with transaction.atomic():
        locked = Wallet.objects.select_for_update().get(pk=wallet.pk)
        new_balance = locked.balance + amount
        if new_balance < 0:
            raise InsufficientFunds(f"balance {locked.balance} cannot cover {-amount}")
        entry = LedgerEntry.objects.create(
            wallet=locked,
            amount=amount,
            balance_after=new_balance,
            reason=reason,
            reference=reference,
            note=note,
            created_by=by,
        )
        locked.balance = new_balance
        locked.save(update_fields=["balance", "updated_at"])
        wallet.balance = new_balance
        return entry


def adjust(wallet: Wallet, amount: int, note: str, by: User, reference: str = "") -> LedgerEntry:
    """A staff credit (amount > 0) or debit (amount < 0), with the written reason as the note.

    Raises ``InsufficientFunds`` (and writes nothing) when a debit would take the balance below zero.
    """
    if amount == 0:
        raise ValueError("an adjustment must move at least one unit")
    if not note.strip():
        raise ValueError("an adjustment needs a written reason")
    reason = LedgerEntry.STAFF_CREDIT if amount > 0 else LedgerEntry.STAFF_DEBIT
    with transaction.atomic():
        if amount < 0:
            # Under the wallet's lock, like every writer of holds: a match cannot take a hold
            # between this check and the debit.  A hold's units are what its match's winners are
            # paid from, so a debit may take only the free balance.
            locked = Wallet.objects.select_for_update().get(pk=wallet.pk)
            held = sum(h.amount for h in _active_holds([locked.pk])[locked.pk].values())
            if held and locked.balance + amount < held:
                raise HeldFunds(int(locked.balance), held, -amount)
        return post(wallet, amount, reason, reference=reference, note=note.strip(), by=by)


class HoldNotActive(ValueError):
    """The hold was released already (its match ended, or a staff member released it)."""


def change_hold(hold_id: int, amount: int | None, reason: str, by: User) -> HoldChange:
    """A staff member releases a hold (``amount`` None) or reduces it to ``amount`` units, with a
    written reason, recorded as a :class:`HoldChange` and logged.

    The units set free become the free balance a staff debit may take; the hold's match then
    pays its losses from what is left held plus the free balance, as settlement always does.
    Raises ``Hold.DoesNotExist``, ``HoldNotActive``, or ``ValueError`` for a missing reason or an
    amount that is not less than what is held.
    """
    reason = reason.strip()
    if not reason:
        raise ValueError("a hold change needs a written reason")
    wallet_id = Hold.objects.values_list("wallet_id", flat=True).get(pk=hold_id)
    with transaction.atomic():
        Wallet.objects.select_for_update().get(pk=wallet_id)
        hold = Hold.objects.get(pk=hold_id)  # read again under the lock: settlement may have shrunk it
        if hold.released_at is not None:
            raise HoldNotActive(f"hold {hold.pk} ({hold.reference}) was already released")
        before = int(hold.amount)
        if amount is None:
            hold.released_at = timezone.now()
            hold.save(update_fields=["released_at"])
        else:
            if not 0 <= amount < before:
                raise ValueError(f"the new amount must be from 0 to {before - 1} (held now: {before})")
            hold.amount = amount
            hold.save(update_fields=["amount"])
        change = HoldChange.objects.create(
            hold=hold, before=before, after=amount or 0, released=amount is None, reason=reason, created_by=by
        )
    log.info(
        "hold %s (%s, wallet %s) %s by %s: %s -> %s; reason: %s",
        hold.pk, hold.reference, wallet_id, "released" if amount is None else "reduced", by.get_username(),
        before, change.after, reason,
    )  # fmt: skip
    return change


def capped_movements(deltas: Mapping[int, int], balances: Mapping[int, int]) -> dict[int, int]:
    """Wallet movements for a hand's deltas when a loser cannot cover their loss.

    The rule (docs/operations.md, "Losses larger than the balance"): a loser pays at
    most what they can pay (``balances``: for settlement, the balance less the holds of
    other matches, see :func:`payable`); what the losers actually pay is shared among the
    winners in proportion to their winnings, remainders going to the largest
    winners first.  The movements still sum to zero and no balance goes negative.
    """
    if sum(deltas.values()) != 0:
        raise ValueError(f"hand deltas must sum to zero: {dict(deltas)}")
    paid = {w: max(d, -balances[w]) for w, d in deltas.items() if d < 0}
    owed = sum(-d for d in deltas.values() if d < 0)
    collected = sum(-p for p in paid.values())
    winners = {w: d for w, d in deltas.items() if d > 0}
    moves = {w: 0 for w in deltas}
    moves.update(paid)
    if collected == owed:
        moves.update(winners)
        return moves
    share = {w: d * collected // owed for w, d in winners.items()}
    rest = collected - sum(share.values())
    for w in sorted(winners, key=lambda w: (-winners[w], w))[:rest]:
        share[w] += 1
    moves.update(share)
    return moves


def split_movement(total: int, claims: Mapping[K, int]) -> dict[K, int]:
    """Split one wallet's booked ``total`` among the parties that share the wallet (the house's
    bots at one table), given what each party's uncapped result was (``claims``).

    Booked exactly as claimed: the claims.  Otherwise the cap cut the wallet's net movement, and
    the cut falls on the side it came from, pro rata like :func:`capped_movements`: a net winner
    got less than its winners claimed (its losers still paid in full: they are the same wallet),
    a net loser paid less than its losers owed.  The parts always sum to ``total``, so what is
    shown per chair adds up to the ledger rows.
    """
    parts = dict(claims)
    diff = total - sum(claims.values())
    if diff == 0 or not parts:
        return parts
    side = {k: v for k, v in claims.items() if (v > 0 if diff < 0 else v < 0)}
    if not side:  # cannot happen with capped movements; keep the sum right regardless
        first = min(parts, key=str)
        parts[first] += diff
        return parts
    # The side's parts add up to ``pool`` (>= 0 for winners, <= 0 for losers), shared by size.
    pool = abs(sum(side.values()) + diff)
    weight = sum(abs(v) for v in side.values())
    share = {k: abs(v) * pool // weight for k, v in side.items()}
    rest = pool - sum(share.values())
    for k in sorted(side, key=lambda k: (-abs(side[k]), str(k)))[:rest]:
        share[k] += 1
    sign = 1 if diff < 0 else -1
    parts.update({k: sign * v for k, v in share.items()})
    return parts


def _active_holds(wallet_ids: Iterable[int]) -> dict[int, dict[str, Hold]]:
    """wallet id -> reference -> active hold (read under the wallets' locks by every caller)."""
    out: dict[int, dict[str, Hold]] = defaultdict(dict)
    for hold in Hold.objects.filter(wallet_id__in=list(wallet_ids), released_at__isnull=True):
        out[hold.wallet_id][hold.reference] = hold
    return out


def payable(balance: int, holds: Mapping[str, Hold], hold: str | None) -> int:
    """What a wallet can pay towards the movement ``hold`` backs: its own hold there plus the free
    balance, i.e. the balance less every *other* active hold (never another match's stake)."""
    elsewhere = sum(h.amount for ref, h in holds.items() if ref != hold)
    return max(0, balance - elsewhere)


def take_holds(reference: str, amounts: Mapping[int, int], note: str = "") -> dict[int, int]:
    """Hold ``amounts`` (wallet id -> units) for ``reference``, all or none.

    Returns the wallets that cannot cover their amount any more, with what they have available;
    when that is not empty nothing was held.  The wallets are locked in id order (as settlement
    locks them), so two matches starting at once with shared players cannot deadlock and cannot
    both count the same free units.  A wallet that already holds for ``reference`` keeps that hold.
    """
    wanted = {pk: int(units) for pk, units in amounts.items() if units > 0}
    if not wanted:
        return {}
    with transaction.atomic():
        wallets = {w.pk: w for w in Wallet.objects.select_for_update().filter(pk__in=list(wanted)).order_by("pk")}
        holds = _active_holds(wallets)
        short: dict[int, int] = {}
        for pk, units in wanted.items():
            if reference in holds[pk]:
                continue
            free = wallets[pk].balance - sum(h.amount for h in holds[pk].values())
            if free < units:
                short[pk] = max(0, free)
        if short:
            return short
        Hold.objects.bulk_create(
            [
                Hold(wallet_id=pk, reference=reference, amount=units, initial=units, note=note)
                for pk, units in sorted(wanted.items())
                if reference not in holds[pk]
            ]
        )
        return {}


def release_holds(reference: str, wallet_ids: Iterable[int] | None = None) -> int:
    """Release the active holds of ``reference`` (only those of ``wallet_ids`` if given).

    Idempotent; returns how many were released.  Locks the wallets first, in id order, like
    every other writer of holds.
    """
    active = Hold.objects.filter(reference=reference, released_at__isnull=True)
    if wallet_ids is not None:
        active = active.filter(wallet_id__in=list(wallet_ids))
    with transaction.atomic():
        pks = sorted(set(active.values_list("wallet_id", flat=True)))
        if not pks:
            return 0
        list(Wallet.objects.select_for_update().filter(pk__in=pks).order_by("pk").values_list("pk", flat=True))
        return active.filter(wallet_id__in=pks).update(released_at=timezone.now())


def settle(reference: str, deltas: Mapping[int, int], note: str = "", hold: str | None = None) -> list[LedgerEntry]:
    """Write one hand's movements (wallet id -> units) exactly once.

    ``hold``: the reference of the holds that back this movement (the table's match).  A loser
    pays at most that hold plus their free balance, never units held for another match, and what
    they pay comes out of that hold first.  Without it a loser pays only from the free balance.

    Idempotent: a second call with the same reference finds the entries and writes nothing.
    """
    try:
        with transaction.atomic():
            # Lock the wallets first (in id order, so that settlements sharing wallets cannot
            # deadlock), then look for the entries: a concurrent settlement of the same reference
            # holds these locks until it commits, and this read then sees its rows (READ COMMITTED).
            # Looking before the locks let the second call book against the first's new balances
            # (usually nothing once a loser was emptied) and return that instead of the entries.
            wallets = {w.pk: w for w in Wallet.objects.select_for_update().filter(pk__in=list(deltas)).order_by("pk")}
            existing = list(LedgerEntry.objects.filter(reference=reference))
            if existing:
                return existing
            holds = _active_holds(wallets)
            can_pay = {pk: payable(w.balance, holds[pk], hold) for pk, w in wallets.items()}
            moves = capped_movements(deltas, can_pay)
            entries = [
                post(wallets[pk], moves[pk], LedgerEntry.HAND, reference=reference, note=note)
                for pk in sorted(moves)
                if moves[pk]
            ]
            # A loss is paid out of this match's hold first: what stays held is what the match may
            # still take, and the wallet's other holds stay covered by what is left of the balance.
            for pk, moved in moves.items():
                backing = holds[pk].get(hold) if hold is not None else None
                if moved < 0 and backing is not None and backing.amount > 0:
                    backing.amount -= min(-moved, backing.amount)
                    backing.save(update_fields=["amount"])
            return entries
    except IntegrityError:
        # A concurrent settlement of the same hand won the race (unique wallet+reference): it is done.
        return list(LedgerEntry.objects.filter(reference=reference))
