"""What the schemathesis run (test_api_schemathesis.py) found, pinned one by one.

Each test failed on the code before its fix; the schemathesis run keeps looking for the next one.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db
CSRF = "findingsCsrfToken0123456789abcde"  # a 32-character secret, as Django's cookie holds


@pytest.fixture
def signed_in() -> APIClient:
    """A browser's session: signed in, CSRF enforced, the token in its cookie and header."""
    user = get_user_model().objects.create_user("finder", password="pw-123456")
    client = APIClient(enforce_csrf_checks=True, raise_request_exception=False)
    client.force_login(user)
    client.cookies["csrftoken"] = CSRF
    client.credentials(HTTP_X_CSRFTOKEN=CSRF)
    return client


# ------------------------------------------------- the replay check, signed in, its own media type
@pytest.mark.parametrize("content_type", ["application/jsonl", "text/plain", "application/x-ndjson"])
def test_a_signed_in_replay_check_reads_json_lines(signed_in: APIClient, content_type: str) -> None:
    # Was 415: the CSRF check reads request.POST, which made DRF parse the body with the JSON and
    # form parsers only — the endpoint's documented application/jsonl was "unsupported".
    response = signed_in.post("/api/replays/check/", '{"type": "action"}\n', content_type=content_type)

    assert response.status_code == 400, response.content
    assert response.json()["line"] == 1 and response.json()["reason"] == "the first line must be the header"


@pytest.mark.parametrize("form", ["multipart", "urlencoded"])
def test_a_replay_sent_as_a_form_is_a_400_not_a_500(signed_in: APIClient, form: str) -> None:
    # A parser for every media type took forms too, and the CSRF check then read bytes for a form.
    if form == "multipart":
        response = signed_in.post("/api/replays/check/", {"replay": "{}"}, format="multipart")
    else:
        response = signed_in.post("/api/replays/check/", "replay=x", content_type="application/x-www-form-urlencoded")

    assert response.status_code == 400 and "not as a form" in response.json()["detail"]


def test_a_signed_in_replay_check_still_needs_the_csrf_token(signed_in: APIClient) -> None:
    signed_in.credentials()  # no X-CSRFToken header
    response = signed_in.post("/api/replays/check/", "{}", content_type="application/jsonl")

    assert response.status_code == 403 and "CSRF" in response.json()["detail"]


def test_an_oversized_replay_is_still_refused(signed_in: APIClient) -> None:
    response = signed_in.post("/api/replays/check/", "x" * 2_000_001, content_type="application/jsonl")

    assert response.status_code == 400 and response.json()["detail"] == "the replay is too large"


# ----------------------------------------------------------------------------- query filters
def test_an_unknown_table_status_filter_is_a_400(signed_in: APIClient) -> None:
    # Was 200 []: a mistyped filter read as "no tables".
    for value in ("AAA", ""):
        response = signed_in.get("/api/tables/", {"status": value})

        assert response.status_code == 400
        assert response.json()["detail"].startswith(f"unknown status {value!r}")
    assert signed_in.get("/api/tables/", {"status": "waiting"}).status_code == 200


@pytest.mark.parametrize("value", ["null", "abc", "0", "-3", "1.5"])
def test_a_malformed_ledger_page_size_is_a_400(signed_in: APIClient, value: str) -> None:
    # Was 200 with the default page: the parameter is an integer of 1 or more.
    response = signed_in.get("/api/account/ledger/", {"page_size": value})

    assert response.status_code == 400
    assert "page_size" in response.json()["detail"]


def test_a_large_ledger_page_size_is_capped_not_refused(signed_in: APIClient) -> None:
    response = signed_in.get("/api/account/ledger/", {"page_size": "100000"})

    assert response.status_code == 200


# ----------------------------------------------------------------------------- JSON 404s
@pytest.mark.parametrize(
    "path", ["/api/tables/null,null/", "/api/hands/abc/verify/", "/api/rulesets/%F0%AE%A8%BE/", "/api/nothing/"]
)
def test_an_api_path_that_matches_no_route_answers_json(signed_in: APIClient, path: str) -> None:
    # Was Django's HTML page: the schema documents JSON for every API answer.
    response = signed_in.get(path)

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["detail"].startswith("not found")


def test_site_pages_keep_the_html_404(signed_in: APIClient) -> None:
    response = signed_in.get("/no-such-page/")

    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")


# ----------------------------------------------------------------------- the schema's refusals
@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def _operations(openapi: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, ops in openapi["paths"].items() for method, op in ops.items()]


def test_every_operation_needing_a_session_or_csrf_documents_403(openapi: dict[str, Any]) -> None:
    # Was undocumented on most: signed out (SessionAuthentication answers 403) or no CSRF token.
    for path, method, op in _operations(openapi):
        if {} not in op.get("security", [{}]) or method in ("post", "put", "patch", "delete"):
            assert "403" in op["responses"], f"{method.upper()} {path}"


def test_every_operation_with_an_id_documents_404_and_every_body_400(openapi: dict[str, Any]) -> None:
    for path, method, op in _operations(openapi):
        if "{" in path:
            assert "404" in op["responses"], f"{method.upper()} {path}"
        if "requestBody" in op:
            assert "400" in op["responses"] and "415" in op["responses"], f"{method.upper()} {path}"


def test_a_body_without_a_content_type_is_a_documented_415(signed_in: APIClient) -> None:
    # schemathesis sent a raw body with no Content-Type: DRF answers 415, which was undocumented.
    response = signed_in.generic("POST", "/api/tables/join/", b"room_code=x", content_type="")

    assert response.status_code == 415


def test_csv_operations_document_their_refusals_as_csv(openapi: dict[str, Any]) -> None:
    refusal = openapi["paths"]["/api/account/ledger.csv"]["get"]["responses"]["403"]
    assert set(refusal["content"]) == {"application/json", "text/csv"}


# --------------------------------------------------------------------- JSON types are JSON's
@pytest.mark.parametrize(
    ("url", "method", "body", "field"),
    [
        ("/api/account/", "patch", {"display_name": 0}, "display_name"),  # was taken as the name "0"
        ("/api/tables/", "post", {"variant": "zhejiang_caishen", "stake": "5"}, "stake"),
        ("/api/tables/", "post", {"variant": "zhejiang_caishen", "is_private": 1}, "is_private"),
        ("/api/tables/", "post", {"variant": "zhejiang_caishen", "hands_total": 4.0}, "hands_total"),
        ("/api/tables/", "post", {"variant": "zhejiang_caishen", "options": []}, "options"),
        ("/api/tables/join/", "post", {"room_code": 123456}, "room_code"),
        ("/api/tournaments/", "post", {"name": "Cup", "variant": "dongbei", "rounds": True}, "rounds"),
    ],
)
def test_json_values_of_the_wrong_type_are_refused(
    signed_in: APIClient, url: str, method: str, body: dict[str, Any], field: str
) -> None:
    response = getattr(signed_in, method)(url, body, format="json")

    assert response.status_code == 400, response.content
    data = response.json()
    errors = data.get("errors", data)
    assert "in JSON" in str(errors[field])


def test_form_posts_still_read_text_as_numbers(signed_in: APIClient) -> None:
    response = signed_in.post("/api/tables/", {"variant": "zhejiang_caishen", "stake": "5", "is_private": "true"})

    assert response.status_code == 201, response.content
    assert response.json()["stake"] == 5 and response.json()["is_private"] is True


# ------------------------------------------------------------------- a PATCH that changes nothing
@pytest.mark.parametrize("body", [{}, {"displayname": "typo"}, {"balance": 5}])
def test_a_patch_naming_no_changeable_field_is_a_400(signed_in: APIClient, body: dict[str, Any]) -> None:
    # Was 200, as if something had changed (schemathesis: `[]` as a multipart body, an empty form).
    response = signed_in.patch("/api/account/", body, format="json")

    assert response.status_code == 400
    assert "display_name" in response.json()["detail"]


def test_an_empty_multipart_patch_is_a_400(signed_in: APIClient) -> None:
    response = signed_in.patch("/api/account/", {}, format="multipart")

    assert response.status_code == 400
