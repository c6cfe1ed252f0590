"""The account's email address: asked for, confirmed by a link mailed to it, then in use.

An address becomes the account's (``user.email``, the one password resets are sent to) only when
the link mailed to it is followed: until then it waits on the profile (``pending_email``) and the
old address stays.  The link is signed (Django's signing, the secret key), names the account and
the address, and works for ``PASSWORD_RESET_TIMEOUT`` seconds and only while that address is the
one waiting (asking for another replaces it).

An address belongs to one account at most, whatever its case (the database's index,
accounts/migrations/0006).  Asking for an address that another account uses answers as any other
request ("a link was sent"), so the form tells nobody whose address it is; the mail to that
address says instead that it already belongs to an account, and how to reset that password.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import BaseUserManager
from django.core import signing
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from accounts import mail
from accounts.models import Profile

SALT = "caishen.accounts.email-confirmation"


class Refused(ValueError):
    """A confirmation that cannot be applied; the message says why, in the reader's language."""


def normalise(raw: str) -> str:
    """Trimmed, the domain in lower case (Django's rule; the part before @ is kept as typed)."""
    return BaseUserManager.normalize_email(raw.strip())


def in_use(email: str, apart_from: Any) -> bool:
    """Whether an account other than ``apart_from`` has ``email``, whatever its case."""
    return get_user_model().objects.filter(email__iexact=email).exclude(pk=apart_from.pk).exists()


def _link(request: HttpRequest, user: Any, email: str) -> str:
    token = signing.dumps({"u": user.pk, "e": email}, salt=SALT, compress=True)
    return request.build_absolute_uri(reverse("accounts:email_confirm", args=[token]))


def ask(request: HttpRequest, user: Any, email: str) -> bool:
    """Mail ``email`` (the caller counted it against the mail limits); once the mail is sent the
    address waits for confirmation on ``user``'s profile.  False, changing nothing, when the
    mail could not be sent."""
    context = {"username": user.get_username(), "email": email}
    if in_use(email, user):
        reset = request.build_absolute_uri(reverse("accounts:password_reset"))
        sent = mail.send(email, "address_in_use", {**context, "reset_url": reset})
    else:
        sent = mail.send(email, "confirm_address", {**context, "url": _link(request, user, email)})
    if sent:
        Profile.objects.filter(user=user).update(pending_email=email)
    return sent


def remove(user: Any) -> None:
    """The account keeps no address (and none waiting): no password reset by mail then."""
    with transaction.atomic():
        get_user_model().objects.filter(pk=user.pk).update(email="")
        Profile.objects.filter(user=user).update(pending_email="")


def read(token: str) -> tuple[Any, str]:
    """The account and the address a confirmation link names, or :class:`Refused`."""
    try:
        data = signing.loads(token, salt=SALT, max_age=settings.PASSWORD_RESET_TIMEOUT)
    except signing.SignatureExpired:
        raise Refused(_("This link has expired. Ask for a new one on your profile page.")) from None
    except signing.BadSignature:
        raise Refused(_("This link is not valid. Copy the whole link from the email.")) from None
    user = get_user_model().objects.filter(pk=data.get("u"), is_active=True).select_related("profile").first()
    email = str(data.get("e", ""))
    if user is None or user.profile.pending_email.casefold() != email.casefold():
        raise Refused(_("This link is no longer in use: the address it confirms is not the one waiting."))
    return user, email


def confirm(token: str) -> tuple[Any, str]:
    """Make the link's address the account's; returns the account and the address."""
    user, email = read(token)
    # Whoever follows the link holds the address, so saying that it is taken tells them nothing
    # new.  The index catches two confirmations of one address racing past the first look.
    taken = Refused(_("This address already belongs to another account."))
    if in_use(email, user):
        raise taken
    try:
        with transaction.atomic():
            get_user_model().objects.filter(pk=user.pk).update(email=email)
            Profile.objects.filter(user=user).update(pending_email="")
    except IntegrityError:
        raise taken from None
    user.email = email
    return user, email
