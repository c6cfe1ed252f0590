"""/api/table-settings/: per-account table settings — read, change, bad values refused, anonymous refused."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from games.models import PlayerTableSettings

pytestmark = pytest.mark.django_db
URL = "/api/table-settings/"
# Every setting off but the sounds, which a new account hears until it mutes them.
DEFAULTS = {name: name == "sound" for name in PlayerTableSettings.FIELDS}


def signed_in(name: str) -> tuple[Any, APIClient]:
    user = get_user_model().objects.create_user(name, password="pw-123456")
    client = APIClient()
    client.force_authenticate(user)
    return user, client


def test_settings_start_off_but_the_sounds() -> None:
    _user, client = signed_in("a")
    response = client.get(URL)
    assert response.status_code == 200
    assert response.json() == DEFAULTS


def test_patch_changes_only_the_named_settings_and_is_remembered() -> None:
    user, client = signed_in("a")
    response = client.patch(URL, {"sound": True, "tsumogiri": True}, format="json")
    assert response.status_code == 200, response.content
    assert response.json() == {**DEFAULTS, "sound": True, "tsumogiri": True}
    # Another client of the same account (a new browser) reads the same settings.
    other = APIClient()
    other.force_authenticate(user)
    assert other.get(URL).json() == {**DEFAULTS, "sound": True, "tsumogiri": True}
    assert client.patch(URL, {"sound": False}, format="json").json() == {**DEFAULTS, "sound": False, "tsumogiri": True}


def test_settings_are_per_account() -> None:
    _a, client_a = signed_in("a")
    _b, client_b = signed_in("b")
    client_a.patch(URL, {"auto_win": True}, format="json")
    assert client_b.get(URL).json() == DEFAULTS


@pytest.mark.parametrize(
    "body",
    [
        {"sound": "yes"},
        {"sound": 1},
        {"sound": None},
        {"auto_pass_claims": [True]},
        {"no_such_setting": True},
        {"sound": True, "colour": "red"},
        {},
    ],
)
def test_bad_bodies_are_refused_and_change_nothing(body: dict[str, Any]) -> None:
    user, client = signed_in("a")
    response = client.patch(URL, body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()  # a reason is given
    row = PlayerTableSettings.objects.filter(user=user).first()
    assert row is None or row.as_dict() == DEFAULTS


def test_anonymous_gets_no_settings() -> None:
    client = APIClient()
    assert client.get(URL).status_code in (401, 403)
    assert client.patch(URL, {"sound": True}, format="json").status_code in (401, 403)
    assert not PlayerTableSettings.objects.exists()
