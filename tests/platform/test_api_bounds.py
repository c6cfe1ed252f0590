"""Bounded input on the REST side: nesting, length and numbers answer a clear 400.

Unbounded, a replay line nested a few thousand deep would be a RecursionError (500) in
/api/replays/check/, any JSON body nested so would be one in DRF's parser, and a stake of 10**24
would overflow its column (500).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from core.jsonlimits import MAX_INT
from games.models import Table
from mahjong_platform.parsers import MAX_BODY
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db
HUGE = 10**24
DEEP = "[" * 50_000 + "]" * 50_000


@pytest.fixture
def user() -> Any:
    return get_user_model().objects.create_user("bounded", password="pw-123456", is_staff=True)


@pytest.fixture
def client(user: Any) -> APIClient:
    c = APIClient(raise_request_exception=False)  # a 500 must show as a status, not an exception
    c.force_login(user)
    return c


# ---------------------------------------------------------------------------- replay check
def test_a_deeply_nested_replay_line_is_a_400_naming_the_line(client: APIClient) -> None:
    response = client.post("/api/replays/check/", "\n" + DEEP, content_type="application/jsonl")

    assert response.status_code == 400
    body = response.json()
    assert body["line"] == 2 and "nested too deeply" in body["reason"]


@pytest.mark.parametrize("line", ['{"type": "header", "hand": 1e999}', '{"type": "header", "n": NaN}'])
def test_replay_lines_with_unbounded_numbers_are_refused(client: APIClient, line: str) -> None:
    response = client.post("/api/replays/check/", line, content_type="application/jsonl")

    assert response.status_code == 400
    assert response.json()["line"] == 1 and response.json()["reason"].startswith("not JSON")


# ----------------------------------------------------------------------------- JSON bodies
@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"variant": "zhejiang_caishen", "options": ' + DEEP + "}", "nested too deeply"),
        ('{"variant": "zhejiang_caishen", "stake": 1e999}', "out of range"),
        ('{"variant": "zhejiang_caishen", "stake": NaN}', "not a JSON number"),
        ('{"variant": "zhejiang_caishen", "options": {"base": 9007199254740992}}', "too large"),
        ('{"variant": "' + "x" * (MAX_BODY + 1) + '"}', "too large"),
    ],
)
def test_unbounded_json_bodies_are_a_400_parse_error(client: APIClient, body: str, message: str) -> None:
    response = client.post("/api/tables/", body, content_type="application/json")

    assert response.status_code == 400
    detail = response.json()["detail"]
    assert detail.startswith("JSON parse error - ") and message in detail
    assert not Table.objects.exists()


def test_a_bounded_json_body_still_works(client: APIClient) -> None:
    body = {"variant": "zhejiang_caishen", "options": {"multiplier_heaven": 8}, "stake": 5}
    response = client.post("/api/tables/", json.dumps(body), content_type="application/json")

    assert response.status_code == 201, response.content
    assert Table.objects.get().options["multiplier_heaven"] == 8


# --------------------------------------------------------------------------- huge integers
# Form-encoded bodies skip the JSON parser: the serializers' own max_value must refuse them.
@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/api/tournaments/", {"name": "Cup", "variant": "zhejiang_caishen", "stake": HUGE}),
        ("/api/tournaments/", {"name": "Cup", "variant": "zhejiang_caishen", "turn_seconds": HUGE}),
        ("/api/tournaments/", {"name": "Cup", "variant": "zhejiang_caishen", "claim_seconds": -HUGE}),
        ("/api/tables/", {"variant": "zhejiang_caishen", "stake": HUGE}),
        ("/api/tables/", {"variant": "zhejiang_caishen", "hands_total": HUGE}),
        ("/api/tables/", {"variant": "zhejiang_caishen", "turn_seconds": HUGE}),
        ("/api/tables/", {"variant": "zhejiang_caishen", "claim_seconds": HUGE}),
    ],
)
@pytest.mark.parametrize("fmt", ["multipart", "json"])
def test_huge_integers_are_a_400(client: APIClient, url: str, body: dict[str, Any], fmt: str) -> None:
    if fmt == "json":
        response = client.post(url, json.dumps(body), content_type="application/json")
    else:
        response = client.post(url, body)

    assert response.status_code == 400, response.content
    assert "detail" in response.json()
    assert not Table.objects.exists() and not Tournament.objects.exists()


def test_the_reported_stake_of_ten_to_the_24_is_a_400_naming_the_field(client: APIClient) -> None:
    response = client.post("/api/tournaments/", {"name": "Cup", "variant": "zhejiang_caishen", "stake": HUGE})

    assert response.status_code == 400
    assert "stake" in response.json()["errors"]


def test_an_event_stake_within_bounds_is_kept(client: APIClient) -> None:
    response = client.post("/api/tournaments/", {"name": "Cup", "variant": "zhejiang_caishen", "stake": 1_000_000})

    assert response.status_code == 201, response.content
    assert Tournament.objects.get().stake == 1_000_000


def _integer_properties(schema: dict[str, Any], components: dict[str, Any], where: str) -> list[tuple[str, Any]]:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return _integer_properties(components[name], components, name)
    out = []
    if schema.get("type") == "integer":
        out.append((where, schema))
    for key, sub in schema.get("properties", {}).items():
        out.extend(_integer_properties(sub, components, f"{where}.{key}"))
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            out.extend(_integer_properties(schema[key], components, f"{where}[]"))
    for key in ("allOf", "oneOf", "anyOf"):
        for sub in schema.get(key, []):
            out.extend(_integer_properties(sub, components, where))
    return out


def test_every_integer_a_request_body_takes_is_bounded_in_the_schema() -> None:
    # Keeps the 10**24 class of bug found: a request field without bounds (a serializer
    # IntegerField without min_value/max_value) fails here, and the schema tells clients the range.
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    checked = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for media in operation.get("requestBody", {}).get("content", {}).values():
                for where, prop in _integer_properties(media["schema"], components, f"{method.upper()} {path}"):
                    checked.append(where)
                    assert "minimum" in prop and "maximum" in prop, f"{where} has no bounds"
                    assert -MAX_INT <= prop["minimum"] <= prop["maximum"] <= MAX_INT, where
    assert len(checked) >= 10, checked  # the request bodies were really found
