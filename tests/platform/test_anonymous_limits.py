"""Heavy work an anonymous client may ask for is bounded per client address (games/web/api.py,
``AnonymousHeavyWork``), not counted as the tables' load: one client cannot slow everyone down."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from games.web.api import AnonymousHeavyWork

LIMIT = int(AnonymousHeavyWork.rate.split("/")[0])
NOT_A_REPLAY = b'{"not": "a replay"}\n'


def check(client: APIClient, address: str = "203.0.113.7") -> Any:
    return client.post("/api/replays/check/", NOT_A_REPLAY, content_type="application/jsonl", REMOTE_ADDR=address)


@pytest.mark.django_db
def test_an_anonymous_client_is_limited_and_told_when_to_come_back() -> None:
    client = APIClient()
    answers = [check(client).status_code for _ in range(LIMIT)]
    assert answers == [400] * LIMIT  # checked (and refused as a replay), not limited
    limited = check(client)
    assert limited.status_code == 429 and int(limited["Retry-After"]) > 0
    assert "detail" in limited.json()
    assert check(APIClient(), address="198.51.100.9").status_code == 400  # another client is not


@pytest.mark.django_db
def test_a_signed_in_client_is_not_limited_here() -> None:
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_user("checker", password="pw-123456"))
    assert {check(client).status_code for _ in range(LIMIT + 5)} == {400}


@pytest.mark.django_db
def test_the_schema_documents_the_limit() -> None:
    paths = APIClient().get("/api/schema/?format=json").json()["paths"]
    for path, method in (("/api/replays/check/", "post"), ("/api/hands/{id}/verify/", "get")):
        answers = paths[path][method]["responses"]
        assert "429" in answers and "Retry-After" in answers["429"].get("headers", {}), path
