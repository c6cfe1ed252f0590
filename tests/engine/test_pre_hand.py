"""Pre-hand questions: 温州 买底/顶底 with their obligations, 东北 飘."""

from __future__ import annotations

from games.engine.variants import get_variant


def test_wenzhou_asks_buy_then_counter_and_keeps_obligations() -> None:
    v = get_variant("wenzhou")
    opts = v.validate_options({})
    qs = v.pre_hand_questions(opts, {})
    assert [(q.key, q.seats) for q in qs] == [("buy_base", (0,)), ("counter_base", (1, 2, 3))]
    ctx = v.apply_pre_hand_answers({}, qs[0], {0: True})
    ctx = v.apply_pre_hand_answers(ctx, qs[1], {1: True, 2: False, 3: False})
    assert ctx == {"buy_base": True, "counter_base": ["S"]}
    v.validate_context(ctx)
    # The dealer keeps the deal: bets carry over as obligations and those seats are not asked again.
    again = v.pre_hand_questions(opts, {"dealer_streak": 2, **ctx})
    assert [(q.key, q.seats) for q in again] == [("counter_base", (2, 3))]
    ctx2 = v.apply_pre_hand_answers(ctx, again[0], {2: True})
    assert ctx2["counter_base"] == ["S", "W"]


def test_dongbei_asks_everyone_for_piao_within_the_options_range() -> None:
    v = get_variant("dongbei")
    opts = v.validate_options({"piao_max": 5})
    (q,) = v.pre_hand_questions(opts, {})
    assert q.key == "piao" and q.seats == (0, 1, 2, 3) and q.choices == (0, 1, 2, 3, 5) and q.default == 0
    ctx = v.apply_pre_hand_answers({}, q, {0: 5, 1: 0, 2: 2, 3: 0})
    assert ctx == {"piao": {"E": 5, "W": 2}}
    assert v.validate_context(ctx)["piao"] == {"E": 5, "W": 2}


def test_other_rule_sets_ask_nothing() -> None:
    v = get_variant("zhejiang_caishen")
    assert v.pre_hand_questions(v.validate_options({}), {}) == []


def test_dongbei_first_dealer_comes_from_a_die() -> None:
    v = get_variant("dongbei")
    opts = v.validate_options({})
    dealers = {v.first_dealer(f"seed-{i}", opts) for i in range(60)}
    assert dealers == {0, 1, 2, 3}
    assert get_variant("wenzhou").first_dealer("x", {}) == 0
