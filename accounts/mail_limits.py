"""Limits on the mail a visitor can make the site send: password resets and address confirmations.

Each mail asked for counts, sent or not (a reset for an address that belongs to no account sends
nothing, yet counts the same: the answer must not tell the two apart).  Counted per email address
(``CAISHEN_MAIL_ATTEMPTS``: nobody can flood one mailbox), per signed-in account for the
confirmations (the same limit), and per client address (``CAISHEN_MAIL_ADDRESS_ATTEMPTS``: one
client cannot go through many mailboxes), in fixed windows of ``CAISHEN_MAIL_WINDOW`` seconds on
the cache, with the sign-in limits' mechanism (accounts/throttle.py) and client address
(core/client_address.py).  A password reset's "account" is its address: looking the account up
first would make a refusal say that it exists.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from accounts import throttle
from core.client_address import client_address, rate_limit_bucket

TOO_MANY = _("Too many emails were asked for. Wait a while and try again.")


def _counters(request: HttpRequest, email: str, account: Any = None) -> list[tuple[str, int]]:
    per_target = int(settings.CAISHEN_MAIL_ATTEMPTS)
    mailbox = hashlib.sha256(email.strip().casefold().encode()).hexdigest()[:32]
    found = [
        (f"mail:to:{mailbox}", per_target),
        (f"mail:address:{rate_limit_bucket(client_address(request))}", int(settings.CAISHEN_MAIL_ADDRESS_ATTEMPTS)),
    ]
    if account is not None:
        found.append((f"mail:account:{account.pk}", per_target))
    return found


def take(request: HttpRequest, email: str, account: Any = None) -> bool:
    """Count one mail to ``email`` asked for by this client (and ``account``, when signed in).
    False, counting nothing, when a counter is already at its limit: send nothing then."""
    window = int(settings.CAISHEN_MAIL_WINDOW)
    counters = _counters(request, email, account)
    if any(throttle.count(key, window) >= limit for key, limit in counters):
        return False
    for key, _limit in counters:
        throttle.hit(key, window)
    return True
