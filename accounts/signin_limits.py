"""Limits on failed sign-ins: slow password guessing down without letting anyone lock others out.

One implementation for every password form (the site's sign-in, the admin's): both use
:class:`SignInLimitMixin` on their authentication form.

The counters follow OWASP's "device cookies" design.  A successful sign-in leaves a signed,
HttpOnly cookie naming the account (:func:`remember_device`).  Then:

- a client presenting a valid device cookie *for the account it signs in to* is counted only
  against that (account, device) pair: failures of other clients, on this account or any other,
  from its address or anywhere, never refuse it;
- any other client is counted per (account, address) and per address, with separate thresholds
  (``CAISHEN_LOGIN_ATTEMPTS`` and the higher ``CAISHEN_LOGIN_ADDRESS_ATTEMPTS``), so one address
  guessing many names is stopped, and one name guessed from one address is stopped.

The address is the client's, seen through a trusted proxy's header when one is configured
(``core.client_address``).  Counters live in Django's cache: per process in the
embedded mode, Redis in the scaled mode, so every process shares them.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core import signing
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.http import HttpRequest, HttpResponseBase
from django.utils.translation import gettext_lazy as _

from accounts import throttle
from core.client_address import client_address, rate_limit_bucket

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser
    from django.forms import Form

DEVICE_COOKIE = "caishen_device"
DEVICE_SALT = "caishen.signin.device"
DEVICE_COOKIE_MAX_AGE = 365 * 24 * 3600  # a year: the cookie only vouches for past success
THROTTLED = "throttled"  # the error code of a refused attempt (the views answer it with 429)
TOO_MANY = _("Too many sign-in attempts. Wait a few minutes and try again.")


def window() -> int:
    return int(settings.CAISHEN_LOGIN_WINDOW)


def account_limit() -> int:
    return int(settings.CAISHEN_LOGIN_ATTEMPTS)


def address_limit() -> int:
    return int(settings.CAISHEN_LOGIN_ADDRESS_ATTEMPTS)


def normalise_username(raw: Any) -> str:
    """The username as Django's sign-in form reads it (NFKC, trimmed)."""
    return unicodedata.normalize("NFKC", str(raw or "")).strip()[:150]


def _account_key(username: str) -> str:
    # Case-folded and hashed: "Demo" and "demo" share a counter; any text is a safe cache key.
    return hashlib.sha256(username.casefold().encode()).hexdigest()[:32]


@dataclass(frozen=True)
class SignInClient:
    """Who is trying to sign in to which account: the counters that apply to the attempt."""

    username: str
    address: str
    device: str | None  # the nonce of a valid device cookie naming this account

    def account_counter(self) -> tuple[str, int]:
        """The counter of this account for this client: its device, else its address."""
        if self.device is not None:
            return f"signin:device:{self.device}", account_limit()
        return f"signin:account:{_account_key(self.username)}:{self.address}", account_limit()

    def counters(self) -> list[tuple[str, int]]:
        if self.device is not None:
            return [self.account_counter()]
        return [self.account_counter(), (f"signin:address:{self.address}", address_limit())]


def _device_nonce(request: HttpRequest, username: str) -> str | None:
    raw = request.COOKIES.get(DEVICE_COOKIE)
    if not raw or not username:
        return None
    try:
        data = signing.loads(raw, salt=DEVICE_SALT, max_age=DEVICE_COOKIE_MAX_AGE)
    except signing.BadSignature:  # also an expired cookie
        return None
    if not isinstance(data, dict) or data.get("u") != username or not isinstance(data.get("d"), str):
        return None
    return str(data["d"])


def client_for(request: HttpRequest, raw_username: Any) -> SignInClient:
    username = normalise_username(raw_username)
    return SignInClient(
        username=username,
        address=rate_limit_bucket(client_address(request)),
        device=_device_nonce(request, username),
    )


def is_refused(client: SignInClient) -> bool:
    return any(throttle.count(key, window()) >= limit for key, limit in client.counters())


def record_failure(client: SignInClient) -> None:
    for key, _limit in client.counters():
        throttle.hit(key, window())


def record_success(client: SignInClient) -> None:
    # The account's own counter starts again; the address counter does not (signing in to one's
    # own account must not buy more guesses at other people's).
    throttle.reset(client.account_counter()[0], window())


def remember_device(request: HttpRequest, response: HttpResponseBase, user: AbstractBaseUser) -> None:
    """Leave the device cookie that exempts this browser from lockouts caused by others."""
    value = signing.dumps({"u": user.get_username(), "d": secrets.token_urlsafe(16)}, salt=DEVICE_SALT)
    response.set_cookie(
        DEVICE_COOKIE,
        value,
        max_age=DEVICE_COOKIE_MAX_AGE,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure() or bool(settings.SESSION_COOKIE_SECURE),
    )


def was_refused(form: Form) -> bool:
    """Whether the form was refused by the limit (answer 429), not for a wrong password."""
    return form.has_error(NON_FIELD_ERRORS, THROTTLED)


class SignInLimitMixin:
    """For ``AuthenticationForm`` subclasses (built with the request, as LoginView does): refuse
    a limited client before the password is checked, count a failure, reset on success."""

    request: HttpRequest | None
    data: Any

    def clean(self) -> dict[str, Any]:
        if self.request is None:
            raise TypeError(f"{type(self).__name__} needs the request (LoginView passes it)")
        client = client_for(self.request, self.data.get("username"))
        if is_refused(client):
            raise ValidationError(TOO_MANY, code=THROTTLED)
        try:
            cleaned: dict[str, Any] = super().clean()  # type: ignore[misc]
        except ValidationError:
            record_failure(client)
            raise
        if self.get_user() is not None:  # type: ignore[attr-defined]
            record_success(client)
        return cleaned
