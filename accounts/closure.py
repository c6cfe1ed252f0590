"""Closing an account: the player leaves, the record of what they played stays whole.

What goes: the username (replaced by a tombstone, ``closed-<id>``, so standings, replays,
leaderboards and exports that name the player show the tombstone from then on: they all read the
username), the email address and the one waiting for confirmation, the display name, the first and
last names, the password (unusable), the API token and the authenticator devices.  The account is
inactive: it cannot sign in, and its sessions stop working (the password's hash is part of each).

What stays: the user row (seats, hands, ratings and tournament rows point at it) and the wallet
with every ledger row, amounts and references untouched, so every past hand still sums to zero.

A player seated at a table, or entered in a tournament that has not finished, is refused with the
reason: the apps that know those things add their checks to ``CLOSURE_CHECKS`` when they start
(accounts is below them and imports neither).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django_otp import devices_for_user

from accounts import api_tokens
from accounts.models import Profile

TOMBSTONE_PREFIX = "closed-"

# Each returns why ``user`` cannot close the account now (translated sentences; none: it may).
CLOSURE_CHECKS: list[Callable[[Any], list[str]]] = []


class MustWait(Exception):
    """The account cannot be closed yet; ``reasons`` say why, in the reader's language."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__("; ".join(reasons))
        self.reasons = reasons


def reasons_to_wait(user: Any) -> list[str]:
    return [reason for check in CLOSURE_CHECKS for reason in check(user)]


def is_tombstone(username: str) -> bool:
    """Whether ``username`` has the tombstones' form (sign-up refuses such names)."""
    rest = username.casefold().removeprefix(TOMBSTONE_PREFIX)
    return rest != username.casefold() and rest.split("-")[0].isdigit()


def _tombstone(user: Any) -> str:
    name = f"{TOMBSTONE_PREFIX}{user.pk}"
    # Names of this form are refused at sign-up, but one made before that rule (or by staff in
    # the admin) may exist: then the tombstone takes a random tail rather than failing.
    if get_user_model().objects.filter(username__iexact=name).exclude(pk=user.pk).exists():
        name = f"{name}-{secrets.token_hex(4)}"
    return name


def close(user: Any) -> None:
    """Close ``user``'s account, or raise :class:`MustWait` and change nothing."""
    with transaction.atomic():
        locked = get_user_model().objects.select_for_update().get(pk=user.pk)
        reasons = reasons_to_wait(locked)
        if reasons:
            raise MustWait(reasons)
        locked.username = _tombstone(locked)
        locked.email = locked.first_name = locked.last_name = ""
        locked.set_unusable_password()
        locked.is_active = False
        locked.save()  # its post_save makes the table frames' name cache forget the old name
        profile, _created = Profile.objects.get_or_create(user=locked)
        profile.display_name = profile.pending_email = ""
        profile.closed_at = timezone.now()
        profile.save()
        api_tokens.revoke(locked)
        for device in devices_for_user(locked, confirmed=None):
            device.delete()
