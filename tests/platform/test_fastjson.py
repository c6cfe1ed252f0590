"""games.wire.fastjson encodes what the standard library does, and falls back where orjson cannot."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from hypothesis import given, settings
from hypothesis import strategies as st

from games.wire import fastjson

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6) | st.integers(-99, 99), inner, max_size=4)
    ),
    max_leaves=20,
)


def standard(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_the_same_json_as_the_standard_library(value: Any) -> None:
    text = fastjson.dumps(value)
    assert json.loads(text) == json.loads(standard(value))


def test_tiles_keys_and_tuples_as_the_frames_have_them() -> None:
    value = {"hand": ("1m", "发"), 0: {"seat": 3, "ok": True, "gone": None}, "x": 1.5}
    assert (
        fastjson.dumps(value) == standard(value) == '{"hand":["1m","发"],"0":{"seat":3,"ok":true,"gone":null},"x":1.5}'
    )


def test_what_orjson_refuses_is_encoded_by_the_standard_library() -> None:
    huge = {"n": 2**70}  # beyond 64 bits: orjson raises, json does not
    assert fastjson.dumps(huge) == '{"n":1180591620717411303424}'


def test_a_column_value_is_null_or_the_encoded_text() -> None:
    assert fastjson.for_column(None, connection) is None
    if connection.vendor == "sqlite":
        assert fastjson.for_column({"a": [1, "中"]}, connection) == '{"a":[1,"中"]}'
