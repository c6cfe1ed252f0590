"""A match's stake held in the wallets: taken when the match starts, released when it ends.

Each human seat holds ``required(table)`` (the table's stake × CAISHEN_SIT_MULTIPLE, what sitting
down asks for) under the reference ``table:<id>``; bots play for the house and hold nothing, and
score-only tables (stake 0) hold nothing.  The hand's settlement pays a loser's loss out of this
table's hold plus their free balance, never out of another table's hold (accounts.services.settle).
docs/operations.md, "Holds", has the whole life of a hold.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings

from accounts import services as accounts
from accounts.models import Wallet
from games.engine import JSONValue
from games.models import Seat, Table
from games.services.common import Refused, log


class StakeNotCovered(Refused):
    """Some seats' wallets cannot cover the match's hold any more (committed at another table
    meanwhile): the match does not start.  ``positions``: those seats' chairs."""

    code = "stake_not_covered"

    def __init__(self, message: str, positions: list[int], messages: dict[int, str]) -> None:
        super().__init__(message)
        self.positions = positions
        self.messages = messages  # user id -> what to tell that seat's player


def reference(table: Table | int) -> str:
    return f"table:{table if isinstance(table, int) else table.pk}"


def required(table: Table) -> int:
    """What a match at ``table`` holds per human seat (and what sitting and readying ask for)."""
    return int(table.stake) * int(settings.CAISHEN_SIT_MULTIPLE)


def shortfall(needed: int, wallet: Wallet, doing: str = "play") -> Refused:
    """The refusal of a seat its wallet cannot back, with the figures as its parameters."""
    held = wallet.held  # one query (a refusal, not a hot path)
    params: dict[str, JSONValue] = {"needed": needed, "doing": doing, "balance": int(wallet.balance)}
    if not held:
        return Refused(shortfall_message(needed, wallet, doing), "balance_short", params)
    params |= {"available": max(0, int(wallet.balance) - held), "held": held}
    return Refused(shortfall_message(needed, wallet, doing), "balance_held", params)


def shortfall_message(needed: int, wallet: Wallet, doing: str = "play") -> str:
    """Why ``wallet`` cannot back a seat (to ``doing``: sit or play): what it has available, and
    what its other matches hold when that is why."""
    held = wallet.held
    if not held:
        return f"you need at least {needed} to {doing} at this table (you have {wallet.balance})"
    return (
        f"you need {needed} available to {doing} at this table (you have {wallet.available} available: "
        f"{held} of your balance of {wallet.balance} is held by your other matches)"
    )


def take(table: Table, seats: Iterable[Seat]) -> None:
    """Hold the match's stake for every human seat, all or none; raises StakeNotCovered."""
    amount = required(table)
    humans = {s.user_id: s for s in seats if s.user_id is not None and not s.is_bot}  # user id -> seat
    if amount <= 0 or not humans:
        return
    wallet_of: dict[int, int] = dict(Wallet.objects.filter(user_id__in=list(humans)).values_list("user_id", "pk"))
    short = accounts.take_holds(
        reference(table),
        {wallet_of[user_id]: amount for user_id in humans},
        note=f"table {table.pk} ({table.variant}), stake {table.stake}",
    )
    if not short:
        return
    wallets = {w.pk: w for w in Wallet.objects.filter(pk__in=list(short))}
    uncovered = sorted((s for u, s in humans.items() if wallet_of[u] in short), key=lambda s: s.position)
    messages = {u: shortfall_message(amount, wallets[wallet_of[u]]) for u, s in humans.items() if s in uncovered}
    log.info(
        "stake not covered",
        extra={"table": table.pk, "seats": [s.position for s in uncovered], "required": amount},
    )
    raise StakeNotCovered(
        f"the match cannot start: seat {', '.join(str(s.position + 1) for s in uncovered)} "
        f"cannot cover the stake of {amount} any more",
        [s.position for s in uncovered],
        messages,
    )


def release(table: Table | int, user_ids: Iterable[int] | None = None) -> int:
    """Release the table's holds (only those of ``user_ids`` if given); idempotent."""
    wallet_ids = None
    if user_ids is not None:
        wallet_ids = list(Wallet.objects.filter(user_id__in=list(user_ids)).values_list("pk", flat=True))
    return accounts.release_holds(reference(table), wallet_ids)
