"""The replay check takes any text: a mutated replay is refused with ReplayError, never a crash.

/api/replays/check/ answers ReplayError as 400 and anything else as 500; schemathesis sends it
random text only (the body is a string in the schema), which never gets past the first line.
Here hypothesis mutates a real replay — one value anywhere in one line replaced by another JSON
value (huge numbers, wrong types, deep nesting, odd notation) — and replay.loads must either
accept it or raise ReplayError.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import services
from games.models import Hand
from games.records import replay

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("instant_play")]

REPLACEMENTS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 3, 4, 2**53, 10**24, 1e300, -0.5]),
    st.text(max_size=8),
    st.sampled_from(["５m", "0m", "10m", "9h", "E", "123m 456p", "", "discard", "win", "ESWN", "Z"]),
    st.lists(st.integers(-2, 40), max_size=4),
    st.dictionaries(st.sampled_from(["do", "tile", "tiles", "seat", "kind"]), st.text(max_size=4), max_size=3),
    st.just([[[[[[[[[[[[]]]]]]]]]]]]),
)


@pytest.fixture
def exported() -> list[str]:
    owner = get_user_model().objects.create_user("fuzz-owner", password="pw-123456")
    table = services.create_table(owner, "zhejiang_caishen", {}, hands_total=1)
    services.add_bots(table.pk, owner)  # four bots, no delay: the hand plays out in this call
    return replay.export_lines(Hand.objects.get(table=table))


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every position in a JSON value (the root included)."""
    out = [prefix]
    if isinstance(value, dict):
        for key, sub in value.items():
            out.extend(_paths(sub, (*prefix, key)))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            out.extend(_paths(sub, (*prefix, index)))
    return out


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replaced(value[head], rest, new)}
    return [*value[:head], _replaced(value[head], rest, new), *value[head + 1 :]]


@settings(max_examples=150, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_mutated_replay_is_refused_cleanly(exported: list[str], data: st.DataObject) -> None:
    lines = list(exported)
    index = data.draw(st.integers(0, len(lines) - 1), label="line")
    parsed = json.loads(lines[index])
    path = data.draw(st.sampled_from(_paths(parsed)), label="where")
    lines[index] = json.dumps(_replaced(parsed, path, data.draw(REPLACEMENTS, label="new value")))
    with contextlib.suppress(replay.ReplayError):  # the 400 the endpoint answers; anything else: its 500
        replay.loads("\n".join(lines))


def _with(exported: list[str], path: tuple[Any, ...], new: Any) -> str:
    header = json.loads(exported[0])
    return "\n".join([json.dumps(_replaced(header, path, new)), *exported[1:]])


def test_an_option_of_the_wrong_type_equal_to_the_snapshots_is_a_replay_error(exported: list[str]) -> None:
    # 0 == false passed the header-against-snapshot comparison, then the rule set refused the
    # option while re-dealing from the seed: an OptionsError, a 500 from the check endpoint.
    with pytest.raises(replay.ReplayError, match="options or context are not valid"):
        replay.loads(_with(exported, ("options", "ron_on_discarded_wild"), 0))


def test_a_hand_that_is_not_text_is_a_replay_error(exported: list[str]) -> None:
    # A list where the snapshot has a hand in notation was an AttributeError in parse_tiles.
    with pytest.raises(replay.ReplayError, match="tile notation is text"):
        replay.loads(_with(exported, ("initial", "players", 2, "hand"), [[[]]]))
