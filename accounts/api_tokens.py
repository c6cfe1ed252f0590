"""API tokens for scripts and bots: one key per account, made and revoked on the profile page.

Scripts send ``Authorization: Token <key>`` (DRF's header; the authentication class is
:class:`accounts.token_auth.HashedTokenAuthentication`).  The database keeps only the key's
SHA-256 digest (:class:`accounts.models.ApiToken`): the key is shown once, on the page that made
it, and a copy of the database holds no working credential.  A plain digest is enough, unlike a
password's slow hash: the key is 240 random bits, not something a person chose.  Keys start
with :data:`KEY_PREFIX`, so a key is recognisable as this site's (in a leak, a secret scanner),
and the profile page names a key by its first characters.  One key per account, no scopes: a
token acts as its account, which can do nothing a signed-in player cannot.  A password change
revokes it (accounts.token_revocation).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from accounts.models import ApiToken

KEY_PREFIX = "csn_"
SHOWN_PREFIX = len(KEY_PREFIX) + 6  # "csn_" and 6 random characters: names the key, reveals nothing useful


@dataclass(frozen=True)
class NewToken:
    """A key just made: ``key`` exists only here and on the page that shows it once."""

    token: ApiToken
    key: str


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def current(user: Any) -> ApiToken | None:
    return ApiToken.objects.filter(user=user).first()


def replace(user: Any) -> NewToken:
    """A new key for ``user``: the old one (if any) stops working at once."""
    key = KEY_PREFIX + secrets.token_urlsafe(30)  # 240 random bits
    ApiToken.objects.filter(user=user).delete()
    token = ApiToken.objects.create(user=user, prefix=key[:SHOWN_PREFIX], digest=digest(key))
    return NewToken(token, key)


def revoke(user: Any) -> bool:
    deleted, _rows = ApiToken.objects.filter(user=user).delete()
    return deleted > 0


def find(key: str) -> ApiToken | None:
    """The token whose key this is (looked up by digest: equal digests mean equal keys)."""
    return ApiToken.objects.select_related("user").filter(digest=digest(key)).first()
