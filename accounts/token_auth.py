"""``Authorization: Token <key>`` against the digests of accounts.api_tokens.

DRF's ``TokenAuthentication`` looks the key up as stored; here the key's digest is looked up,
the same header and answers otherwise (401 with ``WWW-Authenticate: Token`` for a bad key).
Each use stamps the token's ``last_used_at`` (shown on the profile page), at most once a minute
so a busy script does not write on every request.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from accounts import api_tokens
from accounts.models import ApiToken

LAST_USED_EVERY = timedelta(minutes=1)


class HashedTokenAuthentication(TokenAuthentication):
    keyword = "Token"
    model = ApiToken

    def authenticate_credentials(self, key: str) -> tuple[Any, ApiToken]:
        token = api_tokens.find(key)
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at >= LAST_USED_EVERY:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
        return token.user, token
