"""Staff's second factor: a TOTP authenticator app (django-otp's ``otp_totp`` devices).

Staff can move units, so a password alone should not be enough.  A staff member enrols an
authenticator on ``/accounts/second-factor/`` (the page shows the ``otpauth://`` URI and the
secret, and a first valid code confirms it).  From then on a session of theirs uses staff powers
— the admin, the staff wallet pages, the staff API — only after a code from that app has been
given in it (``/accounts/second-factor/verify/``); django-otp's middleware remembers the device
that verified the session, and its device throttling slows guessed codes down.

``CAISHEN_STAFF_REQUIRE_2FA`` makes the second factor compulsory for all staff: those without an
authenticator are sent to enrol it before any staff page.  It is off by default so that the
demo keeps working without one.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django_otp import login as otp_login
from django_otp.plugins.otp_totp.models import TOTPDevice

VERIFY_PAGE = "accounts:second_factor_verify"
SETUP_PAGE = "accounts:second_factor_setup"


def required_for_all_staff() -> bool:
    return bool(settings.CAISHEN_STAFF_REQUIRE_2FA)


def confirmed_device(user: Any) -> TOTPDevice | None:
    if not getattr(user, "is_authenticated", False):
        return None
    return TOTPDevice.objects.filter(user=user, confirmed=True).order_by("-id").first()


def is_verified(user: Any) -> bool:
    """Whether a code was given in this session (django-otp's middleware sets ``is_verified``)."""
    check = getattr(user, "is_verified", None)
    return bool(check()) if callable(check) else False


def missing_step(user: Any) -> str | None:
    """The page a signed-in staff member must pass before staff powers, or None when none.

    The verification page for staff with an authenticator who have not given a code in this
    session; the enrolment page for staff without one when the second factor is required."""
    if not (getattr(user, "is_authenticated", False) and user.is_active and user.is_staff):
        return None
    if is_verified(user):
        return None
    if confirmed_device(user) is not None:
        return VERIFY_PAGE
    return SETUP_PAGE if required_for_all_staff() else None


def pending_device(user: Any) -> TOTPDevice:
    """The user's authenticator being enrolled (one at a time), created with a fresh key if none."""
    device = TOTPDevice.objects.filter(user=user, confirmed=False).order_by("-id").first()
    if device is None:
        device = TOTPDevice.objects.create(user=user, name="authenticator", confirmed=False)
    return device


WRONG_CODE = _("That code is wrong or has expired. Enter the code your authenticator app shows now.")
WAIT = _("Too many wrong codes: wait a little and try again.")


def check_code(request: HttpRequest, device: TOTPDevice, token: str, *, enrolling: bool = False) -> str | None:
    """Check ``token`` against ``device``: None when it is right (this session is then verified by
    the device; when ``enrolling``, the device is confirmed and replaces any earlier one), else
    the reason to show.  A code is accepted once (django-otp remembers the last time step)."""
    with transaction.atomic():
        locked = TOTPDevice.objects.select_for_update().get(pk=device.pk)
        if not locked.verify_is_allowed()[0]:
            return str(WAIT)
        if not locked.verify_token(token.strip()):
            return str(WRONG_CODE)
        if enrolling:
            TOTPDevice.objects.filter(user=locked.user_id).exclude(pk=locked.pk).delete()
            locked.confirmed = True
            locked.save(update_fields=["confirmed"])
    otp_login(request, locked)
    return None
