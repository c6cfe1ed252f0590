"""Bounded JSON decoding for everything a client sends.

``json.loads`` trusts its input: ``[[[[...`` a few thousand deep ends in a RecursionError (a 500,
not a 400), ``1e999`` decodes to ``inf``, ``NaN`` is accepted, and a 10**24 integer decodes fine
only to overflow a database column later.  :func:`loads_bounded` is the one decoder for client
input — the REST parser (mahjong_platform/parsers.py), each line of a replay checked through the
API (games/records/replay.py) and the table socket's frames — and refuses all of that with a ValueError
whose message says which bound was crossed.

Pure standard library: the socket consumer and anything else may import it without Django.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

__all__ = [
    "MAX_DEPTH",
    "MAX_INT",
    "MAX_LENGTH",
    "JSONLimitError",
    "loads_bounded",
]

# Deepest nesting of arrays and objects.  The deepest document we produce ourselves (a replay's
# header: header → initial snapshot → players → melds → ...) is well under ten.
MAX_DEPTH: Final = 32
# Integers must stay below 2**53 in magnitude: every one of them is then exact in a JavaScript
# client, and fits every integer column (64-bit at most) with room for sums.
MAX_INT: Final = 2**53 - 1
# Characters in one document.  Callers with a larger legitimate input (a replay line) pass their own.
MAX_LENGTH: Final = 1_000_000

# A JSON string literal (escapes included) or one bracket: the depth scan skips over strings so
# that brackets inside them do not count.  The unrolled form keeps the regex linear and fast.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
# Decimal digits of 2**53: a literal longer than this (sign aside) cannot be within bounds, and is
# refused before int() spends time on it.
_MAX_INT_DIGITS: Final = len(str(MAX_INT))


class JSONLimitError(ValueError):
    """Valid or not, the text crosses one of the bounds (depth, length, number size)."""


def _depth_exceeds(text: str, max_depth: int) -> bool:
    if text.count("[") + text.count("{") <= max_depth:  # the usual small document: no scan needed
        return False
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "[{":  # a string token is never a one-character "[" or "{"
            depth += 1
            if depth > max_depth:
                return True
        elif token in "]}":
            depth -= 1
    return False


def _parse_int(literal: str) -> int:
    if len(literal.lstrip("-")) > _MAX_INT_DIGITS:
        raise JSONLimitError(f"integer {literal[:20]}… is too large (at most {MAX_INT} in magnitude)")
    value = int(literal)
    if abs(value) > MAX_INT:
        raise JSONLimitError(f"integer {literal} is too large (at most {MAX_INT} in magnitude)")
    return value


def _parse_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise JSONLimitError(f"number {literal[:40]} is out of range")
    return value


def _parse_constant(name: str) -> Any:
    raise JSONLimitError(f"{name} is not a JSON number")


# One decoder, built once: json.loads with hooks would build a new one per call.
_DECODER: Final = json.JSONDecoder(parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)


def loads_bounded(text: str | bytes, *, max_depth: int = MAX_DEPTH, max_length: int = MAX_LENGTH) -> Any:
    """Decode one JSON document, refusing what crosses a bound.

    Raises ValueError (``json.JSONDecodeError`` for malformed text, :class:`JSONLimitError` for a
    crossed bound) with a message fit to show the client: nesting deeper than ``max_depth``, more
    than ``max_length`` characters, an integer of magnitude above 2**53 - 1, a float that overflows
    (``1e999``), ``NaN`` or ``Infinity``.  Bytes must be UTF-8.
    """
    if isinstance(text, bytes | bytearray):
        if len(text) > 4 * max_length:  # no UTF-8 character is longer than four bytes
            raise JSONLimitError(f"the JSON text is too long (over {max_length} characters)")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"the JSON text is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    if not isinstance(text, str):
        raise TypeError(f"JSON text must be str or bytes, not {type(text).__name__}")
    if len(text) > max_length:
        raise JSONLimitError(f"the JSON text is too long (over {max_length} characters)")
    # Checked before decoding: the decoder recurses once per level and would fail (RecursionError)
    # long before it could report where.
    if _depth_exceeds(text, max_depth):
        raise JSONLimitError(f"the JSON text is nested too deeply (more than {max_depth} levels)")
    try:
        return _DECODER.decode(text)
    except RecursionError:  # only if a caller raised max_depth past what the stack allows
        raise JSONLimitError("the JSON text is nested too deeply") from None
