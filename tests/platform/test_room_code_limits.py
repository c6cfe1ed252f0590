"""Wrong room-code guesses are limited per session and per address (games.web.join_limits), on the lobby's
form (/tables/join/) and on the API (/api/tables/join/)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from games import services
from games.models import Table

pytestmark = pytest.mark.django_db
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
VARIANT = "zhejiang_caishen"
WRONG = ["ZZZZ22", "ZZZZ23", "ZZZZ24", "ZZZZ25", "ZZZZ26", "ZZZZ27", "ZZZZ28", "ZZZZ29", "ZZZZ32", "ZZZZ33"]


@pytest.fixture
def table() -> Table:
    owner = get_user_model().objects.create_user("owner", password="pw-123456")
    return services.create_table(owner, VARIANT, is_private=True)


def join(client: Client, code: str, address: str = "198.51.100.9") -> Any:
    return client.post(reverse("games:join"), {"room_code": code}, REMOTE_ADDR=address, **EN)


def member(name: str) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_user(name, password="pw-123456"))
    return client


def test_a_session_that_guessed_too_often_is_refused_even_the_right_code(settings: Any, table: Table) -> None:
    settings.CAISHEN_ROOM_CODE_ATTEMPTS = 10
    guesser = member("guesser")
    assert [join(guesser, code).status_code for code in WRONG] == [400] * 10

    refused = join(guesser, table.room_code)
    assert refused.status_code == 429
    assert "Too many wrong room codes" in refused.content.decode()
    assert guesser.get(reverse("games:table", args=[table.pk])).status_code == 404
    # Another session at the same address still joins (the address allows more).
    friend = member("friend")
    assert join(friend, table.room_code).status_code == 302


def test_an_address_that_guessed_too_often_is_refused(settings: Any, table: Table) -> None:
    settings.CAISHEN_ROOM_CODE_ADDRESS_ATTEMPTS = 5
    for code in WRONG[:5]:
        assert join(Client(), code).status_code == 400  # a fresh client each time: no session to count

    assert join(Client(), table.room_code).status_code == 429
    assert join(Client(), table.room_code, address="203.0.113.4").status_code == 302


def test_malformed_codes_and_right_codes_do_not_count(settings: Any, table: Table) -> None:
    settings.CAISHEN_ROOM_CODE_ATTEMPTS = 2
    client = member("typist")
    for _ in range(5):
        assert join(client, "!!").status_code == 400
        assert join(client, table.room_code).status_code == 302
    assert join(client, WRONG[0]).status_code == 400
    assert join(client, table.room_code).status_code == 302


def test_the_api_join_shares_the_limit_and_answers_429(settings: Any, table: Table) -> None:
    settings.CAISHEN_ROOM_CODE_ADDRESS_ATTEMPTS = 3
    client = APIClient()
    for code in WRONG[:3]:
        assert client.post("/api/tables/join/", {"room_code": code}, format="json").status_code == 404

    refused = client.post("/api/tables/join/", {"room_code": table.room_code}, format="json", **EN)
    assert refused.status_code == 429
    assert "Too many wrong room codes" in refused.json()["detail"]
    # The lobby form at that address is limited too: one limiter.
    assert join(Client(), table.room_code, address="127.0.0.1").status_code == 429
