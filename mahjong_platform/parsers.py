"""The REST API's JSON parser: DRF's, decoding through :func:`loads_bounded`.

DRF's own JSONParser reads the whole stream (Django's DATA_UPLOAD_MAX_MEMORY_SIZE guards
``request.body``, not the stream DRF reads) and hands it to ``json.load``: a deeply nested body is
a RecursionError, which DRF does not catch — a 500.  This one reads at most MAX_BODY bytes and
answers every crossed bound with DRF's ParseError: 400 ``{"detail": "JSON parse error - ..."}``.
"""

from __future__ import annotations

from typing import IO, Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from core.jsonlimits import MAX_LENGTH, loads_bounded

# Bytes in one JSON request body: the API's bodies are a few hundred bytes (a table's options).
MAX_BODY = MAX_LENGTH


class BoundedJSONParser(JSONParser):
    """``application/json`` bodies of at most MAX_BODY bytes, nested at most 32 deep, numbers bounded."""

    def parse(
        self, stream: IO[bytes], media_type: str | None = None, parser_context: dict[str, Any] | None = None
    ) -> Any:
        context = parser_context or {}
        encoding = context.get("encoding", settings.DEFAULT_CHARSET)
        raw = stream.read(MAX_BODY + 1)
        if len(raw) > MAX_BODY:
            raise ParseError(f"JSON parse error - the body is too large (over {MAX_BODY} bytes)")
        try:
            return loads_bounded(raw.decode(encoding))
        except (UnicodeDecodeError, LookupError):
            raise ParseError(f"JSON parse error - the body is not {encoding} text") from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
