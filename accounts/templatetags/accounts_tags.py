"""Template helpers for account data shown on every page."""

from __future__ import annotations

from typing import Any

from django import template

from accounts.models import LedgerEntry, Wallet

register = template.Library()

_REASON_LABELS = dict(LedgerEntry.REASONS)


@register.simple_tag(takes_context=True)
def wallet_balance(context: template.Context) -> int | None:
    """The signed-in user's balance, or None (signed out, or no wallet yet)."""
    user = context.get("user")
    if user is None or not user.is_authenticated:
        return None
    balance = Wallet.objects.filter(user=user).values_list("balance", flat=True).first()
    return balance


@register.filter
def reason_label(reason: str) -> Any:
    """The translated label of a ledger reason code (unknown codes as they are)."""
    return _REASON_LABELS.get(reason, reason)


@register.filter
def signed(amount: int) -> str:
    return f"{amount:+d}" if amount else "0"


@register.filter
def hand_of(reference: str) -> int | None:
    """The hand a ledger entry settles ("hand:42" -> 42), so its row can link the replay; None
    for every other reference (grants, adjustments, holds, escape penalties)."""
    kind, _, rest = (reference or "").partition(":")
    return int(rest) if kind == "hand" and rest.isdigit() else None
