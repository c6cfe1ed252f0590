"""API tokens for scripts and bots: one key per account, made and revoked on the profile page.

DRF's ``rest_framework.authtoken`` rather than a token model of our own: its
``TokenAuthentication`` is the header scripts expect (``Authorization: Token <key>``),
drf-spectacular documents it in the OpenAPI schema by itself, and one key per account that the
owner can replace or revoke at any time is all the site needs (no scopes: a token acts as its
account, which can do nothing a signed-in player cannot).  The key is shown once, on the page
that made it; afterwards the page only says that a token exists and when it was made.
"""

from __future__ import annotations

from typing import Any

from rest_framework.authtoken.models import Token


def current(user: Any) -> Token | None:
    return Token.objects.filter(user=user).first()


def replace(user: Any) -> Token:
    """A new key for ``user``: the old one (if any) stops working at once."""
    Token.objects.filter(user=user).delete()
    return Token.objects.create(user=user)


def revoke(user: Any) -> bool:
    deleted, _rows = Token.objects.filter(user=user).delete()
    return deleted > 0
