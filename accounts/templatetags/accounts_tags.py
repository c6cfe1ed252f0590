"""Template helpers for account data shown on every page."""

from __future__ import annotations

import re
from typing import Any

from django import template
from django.utils.translation import gettext

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


_HAND_NOTE = re.compile(r"table (\d+) hand (\d+)")


@register.filter
def ledger_note(note: str) -> str:
    """A ledger row's note in the reader's words: the notes the platform writes itself (stored
    in English, as data) are translated; a staff member's own note is shown as written."""
    if note == "starting grant":
        return gettext("starting grant")
    if match := _HAND_NOTE.fullmatch(note or ""):
        return gettext("table %(table)s, hand %(number)s") % {"table": match[1], "number": match[2]}
    return note
