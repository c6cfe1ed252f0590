"""The worked examples of the player rules are the engine's numbers.

Each example is played through the engine's scenario runner and the amounts it settles must be
the bold numbers of the example in both languages, so the text cannot drift from the scoring.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from games.engine import scenario
from games.rules import player_text
from tests.engine.rig import ROB_ACTIONS, ROB_HANDS, SCENARIOS, act, fill_hands


def _example(key: str, lang: str) -> str:
    """The worked-example section of the rule set's text in ``lang``."""
    text = player_text.source(key, lang)
    assert text is not None
    heading = "### 算例" if lang == "zh" else "### Worked example"
    assert heading in text
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def _bold_numbers(section: str) -> list[int]:
    return [int(n) for n in re.findall(r"\*\*(\d+)\*\*", section)]


def _zhejiang_robbed_kong() -> dict[str, Any]:
    """South adds to a pung of 7m, West robs it; base 2 (the text's example)."""
    hands = fill_hands(ROB_HANDS, avoid="7m P C E", flipped="9p", wall="E E E 7m")
    sc = {
        "variant": "zhejiang_caishen",
        "hands": hands,
        "actions": [*ROB_ACTIONS, act("W", "win")],
        "flipped": "9p",
        "wall": "E E E 7m",
        "options": {"base": 2},
    }
    return scenario.run(sc)


def _wenzhou_settlement() -> dict[str, Any]:
    sc = json.loads((SCENARIOS / "wenzhou_settlement.json").read_text(encoding="utf-8"))
    sc.pop("expect", None)
    return scenario.run(sc)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_zhejiang_example_is_what_the_engine_settles(lang: str) -> None:
    out = _zhejiang_robbed_kong()

    assert (out["winner"], out["from"]) == ("W", "S")
    paid = -out["deltas"]["S"]
    assert out["deltas"]["E"] == out["deltas"]["N"] == 0 and out["deltas"]["W"] == paid
    section = _example("zhejiang_caishen", lang)
    assert _bold_numbers(section) == [paid, paid]
    assert f"12 × 2 = **{paid}**" in section


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_wenzhou_example_is_what_the_engine_settles(lang: str) -> None:
    out = _wenzhou_settlement()
    d = out["deltas"]

    assert out["winner"] == "S"
    section = _example("wenzhou", lang)
    # East, West, North pay; South receives: in that order in the text.
    assert _bold_numbers(section) == [-d["E"], -d["W"], -d["N"], d["S"]]
    assert sum(d.values()) == 0


@pytest.mark.parametrize("key", ["zhejiang_caishen", "wenzhou", "zhedong_de", "zhangzhou", "dongbei"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_both_languages_give_the_same_example_numbers(key: str, lang: str) -> None:
    assert _bold_numbers(_example(key, lang)) == _bold_numbers(_example(key, "zh"))
    assert _bold_numbers(_example(key, lang))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_dongbei_example_is_what_the_engine_settles(lang: str) -> None:
    from tests.engine.test_dongbei import _w_wins_on_n

    out = _w_wins_on_n({}, {})
    d = out["deltas"]

    assert (out["winner"], out["from"]) == ("W", "N")
    section = _example("dongbei", lang)
    # East, South, North pay; West receives: in that order in the text.
    assert _bold_numbers(section) == [-d["E"], -d["S"], -d["N"], d["W"]]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_zhedong_example_is_what_the_engine_settles(lang: str) -> None:
    from tests.engine.test_zhedong_de import GOLDEN, play, total_of

    out = play(GOLDEN, [act("E", "discard", "5s"), act("S", "win")])
    d = out["deltas"]

    assert (out["winner"], out["from"]) == ("S", "E") and d["W"] == d["N"]
    section = _example("zhedong_de", lang)
    # The winner's total, what East pays, what each other non-dealer pays, what South receives.
    assert _bold_numbers(section) == [total_of(out, "S"), -d["E"], -d["W"], d["S"]]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_zhangzhou_example_is_what_the_engine_settles(lang: str) -> None:
    from tests.engine.test_zhangzhou import run, table

    hands = table({"S": "1p 1p 1p 1p 123m 456m 789m 23s E"}, wall="E", tail="4s")
    actions = [act("E", "discard", "F"), act("S", "draw"), act("S", "kong", "1p"), act("S", "win")]
    out = run(hands, actions, wall="E", tail="4s")
    d = out["deltas"]

    assert out["winner"] == "S" and d["E"] == d["W"] == d["N"]
    section = _example("zhangzhou", lang)
    assert _bold_numbers(section) == [-d["E"], d["S"]]
