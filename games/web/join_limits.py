"""Limits on wrong room-code guesses: a private table's code must not be found by trying many.

Counted per client, with the sign-in limits' mechanism (``accounts.throttle`` on Django's cache:
shared by all processes in the scaled mode): per session (``CAISHEN_ROOM_CODE_ATTEMPTS``) and per
address (``CAISHEN_ROOM_CODE_ADDRESS_ATTEMPTS``, higher: a proxy or a school shares one; set
``CAISHEN_CLIENT_IP_HEADER`` behind a proxy).  Only well-formed codes that match no table count;
a limited client is refused even with the right code, or the limit would only slow nobody down.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from accounts import throttle
from core.client_address import client_address, rate_limit_bucket

WINDOW = 300  # seconds
TOO_MANY = _("Too many wrong room codes. Wait a few minutes and try again.")


def _counters(request: HttpRequest) -> list[tuple[str, int]]:
    address = rate_limit_bucket(client_address(request))
    counters = [(f"roomcode:address:{address}", int(settings.CAISHEN_ROOM_CODE_ADDRESS_ATTEMPTS))]
    session_key = request.session.session_key if hasattr(request, "session") else None
    if session_key:
        # Hashed: a session id is a credential and does not belong in cache key names.
        digest = hashlib.sha256(session_key.encode()).hexdigest()[:32]
        counters.append((f"roomcode:session:{digest}", int(settings.CAISHEN_ROOM_CODE_ATTEMPTS)))
    return counters


def is_refused(request: HttpRequest) -> bool:
    return any(throttle.count(key, WINDOW) >= limit for key, limit in _counters(request))


def record_miss(request: HttpRequest) -> None:
    for key, _limit in _counters(request):
        throttle.hit(key, WINDOW)
