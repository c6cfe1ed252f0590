"""core.jsonlimits: the one bounded JSON decoder for client input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.jsonlimits import MAX_DEPTH, MAX_INT, JSONLimitError, loads_bounded

REPO = Path(__file__).resolve().parents[2]


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    "text",
    [
        '{"type": "act", "hand": 42, "seq": 17, "action": {"do": "discard", "tile": "5m"}}',
        '[1, -2, 3.5, -0.25, 1e300, true, false, null, "x", {"a": []}]',
        '"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["',  # brackets inside a string are text
        '"\\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\\\"',  # escaped quotes do not end the string
        nested(MAX_DEPTH),
        str(MAX_INT),
        str(-MAX_INT),
        ' \n{"é": "財神"}\n ',
    ],
)
def test_what_json_loads_accepts_within_bounds_decodes_the_same(text: str) -> None:
    assert loads_bounded(text) == json.loads(text)
    assert loads_bounded(text.encode()) == json.loads(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (nested(MAX_DEPTH + 1), "nested too deeply"),
        (nested(100_000), "nested too deeply"),  # json.loads: RecursionError, not a ValueError
        ('{"a":' * 40 + "1" + "}" * 40, "nested too deeply"),
        (str(MAX_INT + 1), "too large"),
        (str(-(MAX_INT + 1)), "too large"),
        ("1" * 5000, "too large"),  # past int()'s own digit limit: still this message
        ('{"stake": 1000000000000000000000000}', "too large"),
        ("1e999", "out of range"),
        ("-1e999", "out of range"),
        ("NaN", "not a JSON number"),
        ("[Infinity]", "not a JSON number"),
        ("-Infinity", "not a JSON number"),
        ('"' + "x" * 1_000_000 + '"', "too long"),
    ],
)
def test_crossed_bounds_are_value_errors_saying_which(text: str, message: str) -> None:
    with pytest.raises(JSONLimitError, match=message):
        loads_bounded(text)


def test_malformed_text_is_a_value_error() -> None:
    for text in ("", "{", "[1,]", "{'a': 1}", "[1] [2]"):
        with pytest.raises(ValueError):
            loads_bounded(text)
    with pytest.raises(ValueError, match="not UTF-8"):
        loads_bounded(b'"\xff"')


def test_the_bounds_can_be_chosen_per_caller() -> None:
    assert loads_bounded(nested(40), max_depth=40) == json.loads(nested(40))
    with pytest.raises(JSONLimitError, match="too long"):
        loads_bounded("[1, 2, 3]", max_length=8)


def test_importable_without_django() -> None:
    # The table socket's consumer and any pure module may use it: no Django, no settings.
    code = (
        "import sys, core.jsonlimits as j; j.loads_bounded('[1]'); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'django', 'rest_framework', 'channels'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"
