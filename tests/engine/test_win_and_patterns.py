"""The shared scoring pieces: Pattern objects, the one Result builder, the typed rule-set state."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.engine.hand import WinContext, state_of
from games.engine.patterns import Pattern, by_key, matching
from games.engine.rule_state import RuleState
from games.engine.state import BreakdownItem
from games.engine.variants import all_variants, load_hand
from games.engine.variants.dongbei import scoring as dongbei
from games.engine.variants.wenzhou import hands as wenzhou
from games.engine.variants.zhangzhou import scoring as zhangzhou
from games.engine.variants.zhedong_de import scoring as zhedong_de
from games.engine.variants.zhejiang_caishen import rules as zhejiang
from games.engine.win import WinFacts, draw_result, payments_total, win_result

ALL_PATTERNS: dict[str, tuple[Pattern[Any], ...]] = {
    "zhejiang_caishen": zhejiang.PATTERNS,
    "zhedong_de": zhedong_de.PATTERNS,
    "wenzhou": (wenzhou.SOFT_PATTERN, *wenzhou.HARD_PATTERNS, *wenzhou.DOUBLE_PATTERNS),
    "zhangzhou": zhangzhou.PATTERNS,
    "dongbei": (*dongbei.HEAD_FANS, *dongbei.TAIL_FANS),
}


def ctx(source: str = "self_draw", from_seat: int | None = None) -> WinContext:
    return WinContext(1, 5, source, from_seat, "draw", [0] * 34, [])


# ------------------------------------------------------------------------------ patterns
def test_a_pattern_is_valued_by_its_option_fixed_value_or_price() -> None:
    opts = {"fan_x": 3, "a": 2, "b": 5}
    assert Pattern("x", "X", option="fan_x").value(opts) == 3
    assert Pattern("y", "Y", fixed=4).value(opts) == 4
    assert Pattern("z", "Z", price=lambda o: o["a"] * o["b"]).value(opts) == 10
    assert Pattern("x", "X", option="fan_x").item(opts, "why") == BreakdownItem(
        "x", "X", 3, "why", unit="multiplier", params={"multiplier": 3}
    )
    line = Pattern("f", "F", option="fan_x", unit="fan").item(opts, tiles="2m")
    assert (line.code, line.unit, line.params) == ("f", "fan", {"fan": 3, "tiles": "2m"})


def test_matching_keeps_the_rule_sets_order_and_a_key_is_listed_once() -> None:
    ps = (Pattern("b", "B", lambda n: n > 1), Pattern("a", "A", lambda n: n > 0), Pattern("c", "C"))
    assert [p.key for p in matching(ps, 2)] == ["b", "a"]
    assert [p.key for p in matching(ps, 1)] == ["a"]
    with pytest.raises(ValueError, match="listed twice"):
        by_key((*ps, Pattern("a", "again")))


@pytest.mark.parametrize("key", sorted(ALL_PATTERNS))
def test_every_pattern_option_is_one_of_the_rule_sets_options(key: str) -> None:
    variant = next(v for v in all_variants() if v.key == key)
    defaults = variant.validate_options(None)
    patterns = ALL_PATTERNS[key]
    by_key(patterns)  # no key twice
    for p in patterns:
        assert p.label
        if p.option is not None:
            assert p.option in defaults, p.key
        assert isinstance(p.value(defaults), int)


def test_win_facts_carry_the_context() -> None:
    facts = WinFacts.of(ctx("discard", 2), wilds=1, shaped=False)
    assert (facts.seat, facts.tile, facts.source, facts.from_seat, facts.turn_kind) == (1, 5, "discard", 2, "draw")
    assert (facts.wilds, facts.shaped, facts.self_drawn, facts.dealer) == (1, False, False, False)


# ------------------------------------------------------------------------------- results
def test_a_win_results_deltas_are_the_sum_of_its_payments() -> None:
    items = [
        BreakdownItem("self_draw", "自摸", 1),
        BreakdownItem("hand", "和牌", 1, payments={"E": -2, "S": 6, "W": -2, "N": -2}),
        BreakdownItem("side", "杠分", 1, payments={"E": 3, "W": -3}),
    ]
    r = win_result(ctx(), items, "self_draw")
    assert r.deltas == [1, 6, -5, -2]
    assert (r.status, r.winner, r.from_seat, r.self_drawn, r.win_kind) == ("win", 1, None, True, "self_draw")
    assert r.breakdown == items


def test_a_discard_win_names_its_discarder_unless_the_rule_set_calls_it_self_drawn() -> None:
    pay = [BreakdownItem("hand", "和牌", 1, payments={"W": -4, "S": 4})]
    assert win_result(ctx("discard", 2), pay, "discard").from_seat == 2
    robbed = win_result(ctx("rob_gold", None), pay, "rob_gold", self_drawn=True)
    assert robbed.self_drawn and robbed.from_seat is None


def test_a_line_that_does_not_balance_is_refused() -> None:
    with pytest.raises(AssertionError, match="does not balance"):
        payments_total([BreakdownItem("bad", "bad", 1, payments={"E": 3, "S": -2})])


def test_a_draw_result_sums_its_lines_too() -> None:
    r = draw_result(
        [BreakdownItem("exhaustive_draw", "流局"), BreakdownItem("k", "杠分", 1, payments={"E": -1, "N": 1})]
    )
    assert (r.status, r.deltas, r.win_kind) == ("draw", [-1, 0, 0, 1], None)
    assert draw_result([], win_kind="false_win").win_kind == "false_win"


# --------------------------------------------------------------------------------- state
@pytest.mark.parametrize("variant", all_variants(), ids=lambda v: v.key)
def test_each_rule_set_keeps_its_own_state_and_saves_it(variant: Any) -> None:
    hand = variant.new_hand(seed="state")
    assert type(hand.state) is variant.state_type and issubclass(variant.state_type, RuleState)
    assert variant.state_type is not RuleState  # every rule set records something of its own
    assert state_of(hand, variant.state_type) is hand.state
    saved = json.loads(json.dumps(hand.to_json()))
    again = load_hand(saved)
    assert again.state == hand.state and again.wild_set == hand.wild_set
    assert again.state is not hand.state
    # A snapshot is a copy: changing the live state afterwards does not reach it.
    before = json.dumps(saved["state"], sort_keys=True)
    hand.state.wilds.append(0)
    assert json.dumps(hand.to_json()["state"], sort_keys=True) != before
    assert json.dumps(saved["state"], sort_keys=True) == before


def test_a_hand_read_as_another_rule_sets_state_is_refused() -> None:
    hand = next(v for v in all_variants() if v.key == "zhejiang_caishen").new_hand(seed="x")
    with pytest.raises(TypeError, match="ZhangzhouState"):
        state_of(hand, zhangzhou.ZhangzhouState)
