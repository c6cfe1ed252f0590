"""Template helpers for account data shown on every page."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from django import template
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString
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
    if match := _HOLD_NOTE.fullmatch(note or ""):  # a match's hold: "table 5 (dongbei), stake 1"
        return gettext("table %(table)s, stake %(stake)s") % {"table": match[1], "stake": match[2]}
    return note


_HOLD_NOTE = re.compile(r"table (\d+) \([a-z_]+\), stake (\d+)")


def zone_label(moment: datetime) -> str:
    """ "UTC+8", "UTC−3:30", "UTC": the offset of ``moment`` (an aware time)."""
    offset = moment.utcoffset()
    minutes = int(offset.total_seconds() // 60) if offset is not None else 0
    if minutes == 0:
        return "UTC"
    sign = "+" if minutes > 0 else "−"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{rest:02d}" if rest else "")


@register.filter
def when(moment: datetime | None, precision: str = "minutes") -> SafeString | str:
    """A time with its time zone: ``<time>`` in the server's zone ("2026-12-06 14:56 (UTC+8)"),
    which static/js/local_time.js rewrites in the reader's own zone.  ``precision``: "minutes"
    or "seconds"."""
    if moment is None:
        return ""
    local = timezone.localtime(moment)
    shown = local.strftime("%Y-%m-%d %H:%M:%S" if precision == "seconds" else "%Y-%m-%d %H:%M")
    return format_html(
        '<time datetime="{}" data-local="{}">{} ({})</time>', moment.isoformat(), precision, shown, zone_label(local)
    )


_TABLE_HAND = re.compile(r"table (\d+) hand (\d+)")


@register.filter
def reference_words(reference: str, note: str = "") -> str:
    """What a ledger entry or hold is for, in the reader's words instead of its stored reference
    ("hand:42" with its note "table 5 hand 3" -> "Hand 3 at table 5"; "grant" -> "Starting grant";
    "table:5" -> "Match at table 5").  The stored reference stays the data (the API, the staff's
    tooltip)."""
    kind, _, rest = (reference or "").partition(":")
    if kind == "hand":
        if match := _TABLE_HAND.fullmatch(note or ""):
            return gettext("Hand %(number)s at table %(table)s") % {"number": match[2], "table": match[1]}
        return gettext("A hand")
    if kind == "table":
        return gettext("Match at table %(table)s") % {"table": rest}
    if kind == "grant":
        return gettext("Starting grant")
    if kind == "house-float":
        return gettext("Opening float of the house")
    if kind == "staff":
        return gettext("Adjustment by staff")
    if kind == "escape":
        return gettext("Walking out of a match")
    if kind == "escape-penalty":
        return gettext("Escape penalty at table %(table)s") % {"table": rest.split(":")[0]}
    return gettext("Other") if reference else ""
