"""Limits on failed sign-ins: slow password guessing down without letting anyone lock others out.

One implementation for every password form (the site's sign-in, the admin's): both use
:class:`SignInLimitMixin` on their authentication form.

The counters follow OWASP's "device cookies" design.  A successful sign-in leaves a signed,
HttpOnly cookie naming the account (:func:`remember_device`).  Then:

- a client presenting a valid device cookie *for the account it signs in to* is counted only
  against that (account, device) pair: failures of other clients, on this account or any other,
  from its address or anywhere, never refuse it;
- any other client is counted per (account, address), refused past ``CAISHEN_LOGIN_ATTEMPTS``
  (one name guessed from one address is stopped), and per address: past the higher
  ``CAISHEN_LOGIN_ADDRESS_ATTEMPTS`` the address is slowed down by a growing delay on its failed
  attempts (accounts.signin_delay), never refused outright, so that a right password from a new
  device there is not refused because of failures on other accounts.

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

from accounts import signin_delay, throttle
from core.client_address import client_address, rate_limit_bucket

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser
    from django.forms import Form

DEVICE_COOKIE = "caishen_device"
DEVICE_SALT = "caishen.signin.device"
DEVICE_COOKIE_MAX_AGE = 365 * 24 * 3600  # a year: the cookie only vouches for past success
THROTTLED = "throttled"  # the error code of a refused attempt (the views answer it with 429)
TOO_MANY = _("Too many sign-in attempts. Wait a few minutes and try again.")
TRY_AGAIN_IN = _("Too many failed sign-ins from your network. Try again in %(seconds)s s.")
RETRY_AFTER_ATTRIBUTE = "signin_retry_after"  # set on the form when a client is told to wait


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

    def account_counter(self) -> str:
        """The counter of this account for this client: its device, else its address."""
        if self.device is not None:
            return f"signin:device:{self.device}"
        return f"signin:account:{_account_key(self.username)}:{self.address}"

    def address_counter(self) -> str | None:
        """The address's counter, for clients without a device cookie for this account."""
        return None if self.device is not None else f"signin:address:{self.address}"


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
    """Whether this client has used up its attempts on this account (the address's failures
    alone never refuse: they slow the address down instead, see :func:`wait_before_check`)."""
    return throttle.count(client.account_counter(), window()) >= account_limit()


def wait_before_check(client: SignInClient) -> int:
    """Seconds this client must still wait, after its own failure on this account while its
    address was past the threshold, before its password is checked again (0: check it now)."""
    if client.address_counter() is None:
        return 0
    return signin_delay.remaining(client.account_counter())


def record_failure(client: SignInClient) -> int:
    """Count a failed attempt; the seconds the client must now wait before its next attempt on
    this account is checked (0 unless its address is past its threshold)."""
    throttle.hit(client.account_counter(), window())
    address_counter = client.address_counter()
    if address_counter is None:
        return 0
    address_failures = throttle.hit(address_counter, window())
    return signin_delay.after_failure(client.account_counter(), address_failures, address_limit())


def record_success(client: SignInClient) -> None:
    # The account's own counter starts again; the address counter does not (signing in to one's
    # own account must not buy more guesses at other people's).
    throttle.reset(client.account_counter(), window())


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
    """Whether the form was refused or slowed down by the limits (answer 429), not only told
    that the password was wrong."""
    return form.has_error(NON_FIELD_ERRORS, THROTTLED)


def retry_after(form: Form) -> int | None:
    """The seconds a slowed-down client is told to wait (a ``Retry-After``), if any."""
    seconds = getattr(form, RETRY_AFTER_ATTRIBUTE, None)
    return seconds if isinstance(seconds, int) and seconds > 0 else None


def _try_again_in(seconds: int) -> ValidationError:
    return ValidationError(TRY_AGAIN_IN, code=THROTTLED, params={"seconds": seconds})


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
        wait = wait_before_check(client)
        if wait:
            setattr(self, RETRY_AFTER_ATTRIBUTE, wait)
            raise _try_again_in(wait)
        try:
            cleaned: dict[str, Any] = super().clean()  # type: ignore[misc]
        except ValidationError as wrong:
            wait = record_failure(client)
            if not wait:
                raise
            # Checked and wrong, past the address's threshold: say so, and how long to wait.
            setattr(self, RETRY_AFTER_ATTRIBUTE, wait)
            raise ValidationError([*wrong.error_list, _try_again_in(wait)]) from None
        if self.get_user() is not None:  # type: ignore[attr-defined]
            record_success(client)
        return cleaned
