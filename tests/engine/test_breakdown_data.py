"""Every breakdown line of every rule set carries its structured data (docs/scoring.md
"Breakdown line data"): a stable ``code``, a ``unit`` for its value, named ``params`` (tiles as
tile codes, seats as seat winds), and the table page has words for every code and reason.

The lines are taken from the golden scenarios and from simulated bot hands of each rule set,
so a new pattern or settlement line without its data, or without its words in
static/js/breakdown.js, fails here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from games.engine import scenario
from games.engine.bots import make_bot
from games.engine.simulate import hand_seed, play_hand
from games.engine.state import SEATS, UNITS
from games.engine.tiles import parse_tiles
from games.engine.variants import all_variants
from tests.engine.rig import SCENARIOS

ROOT = Path(__file__).resolve().parents[2]
BREAKDOWN_JS = (ROOT / "static" / "js" / "breakdown.js").read_text(encoding="utf-8")
HANDS_PER_RULE_SET = 30
TILE_KEYS = {"tile", "tiles", "guess"}
SEAT_KEYS = {"payer", "payee", "seat", "loser", "from", "pays_all", "next_dealer"}
TILELESS_WINS = {"three_golds"}  # 漳州 三金倒 may win on the dealt hand: no tile won on
UNCOUNTED = {"contract"}  # 漳州 承包's value is a flag (1), not a number to show
WORDED_KEYS = {"rule", "reason", "liable", "hand_class"}  # params whose value is a word code


def js_keys(block: str) -> set[str]:
    """The keys of one top-level object literal of breakdown.js (``export const ITEMS = {``)."""
    start = BREAKDOWN_JS.index(block)
    body = BREAKDOWN_JS[start : BREAKDOWN_JS.index("\n};", start)]
    return set(re.findall(r"^\s+(\w+): p?gettext\(", body, flags=re.M))


ITEM_WORDS = js_keys("export const ITEMS = {")
PHRASES = js_keys("const P = {")


@cache
def lines_of(variant: str) -> list[dict[str, Any]]:
    """The breakdown lines (as the table page receives them) of the rule set's golden
    scenarios and of a few simulated hands, each with the result it belongs to."""
    out: list[dict[str, Any]] = []
    for path in sorted(SCENARIOS.glob("*.json")):
        sc = json.loads(path.read_text(encoding="utf-8"))
        if sc["variant"] != variant:
            continue
        sc.pop("expect")
        got = scenario.run(sc)
        out.extend({**b, "_source": path.stem} for b in got["breakdown"])
    v = next(v for v in all_variants() if v.key == variant)
    for i in range(HANDS_PER_RULE_SET):
        bot = ("greedy", "random")[i % 2]
        played = play_hand(v, hand_seed("breakdown-data", i), [make_bot(bot) for _ in range(4)], keep_events=False)
        result = played.hand.result
        assert result is not None
        out.extend({**b.to_json(), "_source": f"hand {i}"} for b in result.breakdown)
    return out


VARIANTS = sorted(v.key for v in all_variants())


def walk(value: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    """Every (key, leaf value) inside a params dict, lists and nested dicts included."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from walk(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from walk(v, key)
    else:
        yield key, value


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_line_has_a_code_a_unit_and_params(variant: str) -> None:
    lines = lines_of(variant)
    assert lines, "no breakdown line seen"
    for b in lines:
        where = f"{variant} {b['_source']} {b['name']}"
        assert isinstance(b["code"], str) and re.fullmatch(r"[a-z][a-z0-9_]*", b["code"]), where
        assert isinstance(b["params"], dict), where
        json.dumps(b["params"])  # plain JSON values only
        unit = b.get("unit", "")
        assert unit == "" or unit in UNITS, where
        if b["value"] and b["code"] not in UNCOUNTED:
            assert unit, f"{where}: a line with a value says what it counts"
        if unit in ("multiplier", "fan", "points", "exponent") and unit in b["params"]:
            assert b["params"][unit] == b["value"], where
        if b.get("seat") is not None:
            assert b["seat"] in SEATS and b["name"] == f"{b['seat']}:{b['code']}", where


@pytest.mark.parametrize("variant", VARIANTS)
def test_tiles_and_seats_in_params_are_codes(variant: str) -> None:
    for b in lines_of(variant):
        for key, value in walk(b["params"]):
            if key in TILE_KEYS and value:
                assert parse_tiles(str(value)), f"{b['name']}: {key}={value!r}"
            if key in SEAT_KEYS and value is not None:
                assert value in SEATS, f"{b['name']}: {key}={value!r}"
        for key in ("held", "points_by_seat", "owed", "concealed_kongs"):
            assert set(b["params"].get(key, {})) <= set(SEATS), b["name"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_table_page_has_words_for_every_code_and_reason(variant: str) -> None:
    for b in lines_of(variant):
        assert b["code"] in ITEM_WORDS, f"breakdown.js ITEMS lacks {b['code']!r} ({variant})"
        for key, value in walk(b["params"]):
            if key in WORDED_KEYS and value:
                word = f"class_{value}" if key == "hand_class" else (f"liable_{value}" if key == "liable" else value)
                assert word in PHRASES, f"breakdown.js has no phrase {word!r} ({variant} {b['code']})"
            if key == "reasons":
                assert value in PHRASES, value
            if key == "code":  # a 番 listed inside a payment
                assert value in ITEM_WORDS, value


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_win_names_its_winning_tile(variant: str) -> None:
    v = next(v for v in all_variants() if v.key == variant)
    wins = 0
    for i in range(HANDS_PER_RULE_SET):
        result = play_hand(v, hand_seed("breakdown-data", i), [make_bot("greedy") for _ in range(4)]).hand.result
        assert result is not None
        data = result.to_json()
        if result.status == "win" and data["win_kind"] not in TILELESS_WINS:
            wins += 1
            assert data["win_tile"] is not None and len(parse_tiles(data["win_tile"])) == 1
        elif result.status != "win":
            assert data["win_tile"] is None
    assert wins, "no win among the simulated hands"


def test_a_zero_fan_pattern_line_says_it_is_worth_nothing() -> None:
    """浙东得 lists a pattern whose table value is 0 (自摸 at 0番): its line's value is 0 and it
    moves nothing, which is what lets the table page leave it out (breakdown.js ``visible``)."""
    zero = [b for b in lines_of("zhedong_de") if b.get("unit") == "fan" and b["value"] == 0]
    for b in zero:
        assert not b.get("payments") and b["params"]["fan"] == 0
