"""JSON encoding on the step's hot path: orjson, with the standard library as the fallback.

Every applied step encodes the engine snapshot (a few kB) for its row, the step's events and
actions for the log rows, and one frame per reader (docs/performance.md, "Where the real
server's step goes"); the standard encoder spent ~0.4 ms a step on them, orjson about a tenth.
The output is the same JSON as ``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``
for what the platform encodes (dicts with str or int keys, lists, tuples, str, int, float, bool,
None): int keys become strings as the standard library makes them.  A value orjson refuses (an
integer beyond 64 bits, a type it does not know) is encoded by the standard library instead, so
nothing that encoded before fails now.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from psycopg.types.json import Jsonb

_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> str:
    """Compact JSON text of ``value``; non-ASCII characters as themselves (UTF-8 on the wire)."""
    try:
        return orjson.dumps(value, option=_OPTIONS).decode()
    except TypeError:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def for_column(value: Any, connection: Any) -> Any:
    """What a ``JSONField`` without a custom encoder hands the driver for ``value`` (its
    ``get_db_prep_save``), encoded by :func:`dumps`: PostgreSQL's ``jsonb`` adapter with this
    encoder, the JSON text on SQLite (and any other backend)."""
    if value is None:
        return None  # SQL NULL, as JSONField.get_db_prep_save gives
    if connection.vendor == "postgresql":
        return Jsonb(value, dumps=dumps)
    return dumps(value)
