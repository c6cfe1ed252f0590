"""API tokens at rest: the database keeps a digest, never the key; the key is shown once, with a
prefix that tells keys apart; a password change revokes it, by whatever path; each use stamps
its last-used time, shown on the profile page; keys made before the digests keep working."""

from __future__ import annotations

import hashlib
import importlib
import re
from io import StringIO
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts import api_tokens

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-password-1"
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def player() -> Any:
    return get_user_model().objects.create_user("scripter", password=PASSWORD)


def signed_in(user: Any) -> Client:
    c = Client()
    c.force_login(user)
    return c


def made_on_the_profile_page(user: Any) -> tuple[Client, str]:
    c = signed_in(user)
    page = c.post(reverse("accounts:api_token"), **EN).content.decode()
    found = re.search(r'id="api-token-key" class="token-key" value="([^"]+)"', page)
    assert found, "the new key is shown on the page that made it"
    return c, found.group(1)


def whole_database() -> str:
    out = StringIO()
    call_command("dumpdata", stdout=out)
    return out.getvalue()


def script(key: str) -> APIClient:
    return APIClient(HTTP_AUTHORIZATION=f"Token {key}", **EN)


def refused(key: str) -> bool:
    # 403, not 401: the session's authentication comes first, and it names no challenge.
    answer = script(key).get("/api/account/")
    return answer.status_code == 403 and "username" not in answer.json()


def test_the_database_holds_no_key_and_the_page_shows_it_once(player: Any) -> None:
    c, key = made_on_the_profile_page(player)
    assert key not in whole_database()
    assert script(key).get("/api/account/").json()["username"] == "scripter"
    # The prefix tells keys apart; the page never shows the key again.
    assert key.startswith("csn_")
    page = c.get(reverse("accounts:profile"), **EN).content.decode()
    assert key not in page and f"<code>{key[:10]}…</code>" in page
    # A second key replaces the first, with another prefix.
    _, second = made_on_the_profile_page(player)
    assert second[:10] != key[:10]
    assert refused(key)
    assert script(second).get("/api/account/").status_code == 200


def test_a_wrong_key_is_refused(player: Any) -> None:
    _, key = made_on_the_profile_page(player)
    for wrong in (key[:-1], key + "x", key.upper(), "csn_", hashlib.sha256(key.encode()).hexdigest()):
        assert refused(wrong)


def test_each_use_shows_as_the_last_used_time(player: Any) -> None:
    c, key = made_on_the_profile_page(player)
    assert 'id="api-token-last-used">Not used yet.' in c.get(reverse("accounts:profile"), **EN).content.decode()
    assert script(key).get("/api/account/").status_code == 200
    token = api_tokens.current(player)
    assert token is not None and token.last_used_at is not None
    page = c.get(reverse("accounts:profile"), **EN).content.decode()
    assert 'id="api-token-last-used">Last used ' in page


def test_the_password_form_revokes_the_token(player: Any) -> None:
    c, key = made_on_the_profile_page(player)
    changed = c.post(
        reverse("accounts:password_change"),
        {"old_password": PASSWORD, "new_password1": "N3w-pass-word-77", "new_password2": "N3w-pass-word-77"},
        **EN,
    )
    assert changed.status_code == 302
    assert api_tokens.current(player) is None
    assert refused(key)


def test_any_other_password_change_revokes_it_too(player: Any) -> None:
    # The admin, manage.py changepassword and a reset all end in set_password and a save.
    _, key = made_on_the_profile_page(player)
    player.set_password("An0ther-pass-word")
    player.save()
    assert refused(key)


def test_saving_the_user_for_anything_else_keeps_it(player: Any) -> None:
    _, key = made_on_the_profile_page(player)
    player.first_name = "Renamed"
    player.save()
    # The same password hashed again (as a stronger hasher does at sign-in) is no change.
    player.set_password(PASSWORD)
    player.save()
    assert script(key).get("/api/account/").status_code == 200


def test_keys_made_before_the_digests_keep_working(player: Any) -> None:
    """The data migration turns the clear keys of DRF's table into digests and deletes them."""
    token_model = apps.get_model("authtoken", "Token")
    old = token_model.objects.create(user=player)
    migration = importlib.import_module("accounts.migrations.0009_hash_existing_api_tokens")
    migration.hash_existing(apps, None)
    assert not token_model.objects.exists() and old.key not in whole_database()
    assert script(old.key).get("/api/account/").json()["username"] == "scripter"
    token = api_tokens.current(player)
    assert token is not None and token.prefix == old.key[:8]
