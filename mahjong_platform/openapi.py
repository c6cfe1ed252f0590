"""OpenAPI post-processing: the refusals every operation can answer, documented once.

drf-spectacular documents what each view says it returns.  Some answers come from the layers
around every view instead, and were missing from most operations (schemathesis found them,
tests/platform/test_api_schemathesis.py):

* 403 — not signed in (SessionAuthentication answers 403, not 401), or, on an unsafe method, a
  missing or wrong CSRF token: every operation that needs a session, and every unsafe one;
* 404 — an id that is not a number, or no such object: every operation with a path parameter
  (mahjong_platform.views.not_found answers API paths with JSON), and a ledger page past the end;
* 400 — a body that cannot be parsed (malformed or unbounded JSON, mahjong_platform/parsers.py)
  or a query parameter out of its shape: every operation that takes a body or a query;
* 415 — a body whose media type the operation does not read, or with no Content-Type at all
  (DRF's parser negotiation): every operation that takes a body.

An operation that already documents one of these keeps its own description.
"""

from __future__ import annotations

from typing import Any

DETAIL_SCHEMA = {"type": "object", "properties": {"detail": {"type": "string"}}, "required": ["detail"]}
# A 400 is `{"detail": reason}` from a parser, or DRF's per-field errors (`{"language": [...]}`)
# from a generic view's serializer.
INVALID_SCHEMA = {"type": "object", "properties": {"detail": {"type": "string"}}, "additionalProperties": True}
UNSAFE = {"post", "put", "patch", "delete"}


def _response(description: str, operation: dict[str, Any], schema: dict[str, Any] = DETAIL_SCHEMA) -> dict[str, Any]:
    content: dict[str, Any] = {"application/json": {"schema": schema}}
    # A view that renders CSV renders its refusals as CSV too (accounts.api.CSVRenderer).
    if any("text/csv" in r.get("content", {}) for r in operation.get("responses", {}).values()):
        content["text/csv"] = {"schema": {"type": "string"}}
    return {"description": description, "content": content}


def document_refusals(result: dict[str, Any], generator: Any, request: Any, public: bool, **_: Any) -> dict[str, Any]:
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            parameters = operation.get("parameters", [])
            needs_session = {} not in operation.get("security", [{}])
            additions = {}
            if needs_session or method in UNSAFE:
                additions["403"] = 'Not signed in, or (unsafe methods) no valid CSRF token: `{"detail": reason}`.'
            if any(p.get("in") == "path" for p in parameters) or any(
                p.get("in") == "query" and p.get("name") == "page" for p in parameters
            ):
                additions["404"] = 'No such object (or page), or a path that names none: `{"detail": reason}`.'
            if "requestBody" in operation or any(
                p.get("in") == "query" and p.get("name") != "format" for p in parameters
            ):
                additions["400"] = (
                    "A body or query parameter that cannot be read: malformed, nested or numbered past the "
                    "bounds, or not of the documented shape."
                )
            if "requestBody" in operation:
                additions["415"] = "A body in a media type the operation does not read (or with no Content-Type)."
            for code, description in additions.items():
                schema = INVALID_SCHEMA if code == "400" else DETAIL_SCHEMA
                responses.setdefault(code, _response(description, operation, schema))
    return result
