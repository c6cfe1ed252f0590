"""The strong bot (games/engine/strong_bot.py) on rigged positions of every rule set: it folds
against a ready opponent, acceptance decides its discards, it takes the rule sets' own choices
(抢金, 游金, 抢暗杠, 报听, claims, the pre-hand bets) by their worth, and nothing it decides
depends on a tile its seat cannot see."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest

from games.engine import scenario
from games.engine.hand import CLAIM, ON_ADDED_KONG, Hand
from games.engine.insight.acceptance import acceptance
from games.engine.insight.danger import Opponent, tile_risk
from games.engine.insight.seat_view import SeatView
from games.engine.insight.win_value import (
    dongbei_ready_multiplier,
    dongbei_win_fan,
    zhedong_ready_total,
    zhedong_win_total,
)
from games.engine.state import DISCARD, KONG, PASS, PUNG, WIN, Action
from games.engine.strong_bot import StrongBot, win_chance
from games.engine.tiles import format_tiles, parse_tile, parse_tiles, tile_str, to_counts
from games.engine.variants import get_variant
from games.engine.variants.dongbei.scoring import READY
from games.engine.variants.zhangzhou.rules import ROB_GOLD, ROB_KONG, YOU
from tests.engine.rig import act, fill_hands, hand_after
from tests.engine.test_bot_rules import ROB, after, kong_prompt, show_all_but, single_you, you_hand
from tests.engine.test_zhangzhou import table

T = parse_tile
# Per rule set: the flipped tile (the wild's indicator, the 得, the 财神, the 金) and E's hand size.
FLIPS: dict[str, str | None] = {
    "zhejiang_caishen": "7s",  # wild 7m
    "zhedong_de": "F",
    "wenzhou": "F",
    "zhangzhou": "C",
    "dongbei": None,
}
SIZE = {"zhejiang_caishen": 14, "zhedong_de": 14, "wenzhou": 17, "zhangzhou": 17, "dongbei": 14}
VARIANTS = list(FLIPS)


def choose(hand: Hand, seat: int) -> Action:
    legal = hand.legal_actions(seat)
    chosen = StrongBot().choose(hand, seat, random.Random(0), legal)
    assert chosen in legal
    return chosen


def dealt(variant: str, east: str) -> Hand:
    """E (the dealer, to discard) holds ``east``; the others harmless fillers."""
    flip = FLIPS[variant]
    extra = {"flipped": flip} if flip else {}
    dealer = SIZE[variant]
    hands = fill_hands({"E": east}, flipped=flip, dealer_size=dealer)
    return hand_after(variant, hands, [], **extra)


def decide(view: Mapping[str, Any]) -> Action:
    return StrongBot().decide(view, [Action.from_json(a) for a in view["legal_actions"]])


# ---------------------------------------------------------------------------------- offence
OFFENCE = {
    # One from ready after throwing the N, the 9s or the 5s: 23s with 5s accepts 1s 4s 5s and
    # the 4s 6s around the 5s; keeping the 9s instead accepts fewer.
    "zhejiang_caishen": "123m 456m 789p 23s 5s 9s N",
    "zhedong_de": "123m 456m 789p 23s 5s 9s N",
    "wenzhou": "123m 456m 789p 23s 5s 9s 1p EEE",  # no lone honour: 温州 would force it out first
    "zhangzhou": "123m 456m 789p 23s 5s 9s N EEE",
    "dongbei": "123m 456m 789p 23s 5s 9s N",
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_acceptance_decides_between_discards_at_the_same_distance(variant: str) -> None:
    hand = dealt(variant, OFFENCE[variant])
    view = SeatView.from_view(hand.view(0))
    assert view is not None
    ranked = acceptance(view)
    nearest = [a for a in ranked if a.distance == ranked[0].distance]
    assert len({a.unseen for a in nearest}) > 1  # the distance alone does not decide
    chosen = choose(hand, 0)
    assert chosen.kind == DISCARD and chosen.tile is not None
    assert chosen.tile == ranked[0].tile, tile_str(chosen.tile)
    assert tile_str(chosen.tile) != "5s"  # the discard that keeps fewer tiles


# ---------------------------------------------------------------------------------- defence
FAR = {
    "zhejiang_caishen": "1m 5m 9m 2p 6p 3s 8s 9s E S W N C P",
    "zhedong_de": "1m 5m 9m 2p 6p 3s 8s 9s E S W N C 4p",
    "wenzhou": "1m 4m 8m 2p 5p 9p 1s 4s 8s 9s 3m 6p 2s 6s 6m 1p 5s",
    "zhangzhou": "1m 4m 8m 2p 5p 9p 1s 4s 8s 9s 3m 6p 2s 6s 6m 1p 5s",
    "dongbei": "1m 5m 9m 2p 6p 3s 8s 9s E S W N C P",
}


def threatened(view: Mapping[str, Any], variant: str, safe: str) -> dict[str, Any]:
    """``view`` with S most likely ready: declared (东北 报听) or three melds laid down and nine
    discards; W's last discard is ``safe`` (thrown after S's own last discard, not won on)."""
    out = {**view, "players": [dict(p) for p in view["players"]]}
    s = out["players"][1]
    s["discards"] = "1p 9p 1s 7m 8p 2m 3p 7s 4s"
    if variant == "dongbei":
        s["flags"] = {READY: True}
    else:
        s["melds"] = [
            {"kind": "pung", "tiles": "2m 2m 2m", "claimed": "2m", "from": "E"},
            {"kind": "chow", "tiles": "6s 7s 8s", "claimed": "6s", "from": "E"},
            {"kind": "pung", "tiles": "3p 3p 3p", "claimed": "3p", "from": "W"},
        ]
    out["players"][2]["discards"] = f"8m {safe}"
    out["players"][3]["discards"] = "8p"
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_far_from_ready_it_throws_the_safe_tile_not_the_one_it_would_attack_with(variant: str) -> None:
    hand = dealt(variant, FAR[variant])
    raw = hand.view(0)
    attack = decide(raw)
    assert attack.kind == DISCARD and attack.tile is not None
    safe = next(t for t in parse_tiles(raw["players"][0]["hand"]) if t != attack.tile and t < 27)
    folded = decide(threatened(raw, variant, tile_str(safe)))
    assert folded == Action(0, DISCARD, tile=safe), (tile_str(attack.tile), tile_str(safe))


def test_a_declared_ready_opponent_makes_a_middle_tile_riskier_than_one_passed_by() -> None:
    o = Opponent(seat=1, discards=(T("1p"),), open_melds=0, declared_ready=True, passed=frozenset({T("5s")}))
    assert tile_risk(T("5s"), o, 3, (), False) < tile_risk(T("5m"), o, 3, (), False) / 10
    assert tile_risk(T("E"), o, 0, (), False) == 0.0  # every other E in sight: nobody waits on it


def test_a_ready_hand_is_not_folded() -> None:
    # 东北, E ready after throwing N (waits 3s 6s): against a 报听 it still throws the N.
    hand = dealt("dongbei", "123m 456m 789m 11p 45s N")
    raw = hand.view(0)
    assert decide(threatened(raw, "dongbei", "1p")) in (Action(0, DISCARD, tile=T("N")), Action(0, READY, tile=T("N")))


# ------------------------------------------------------------------------ the rule sets' choices
def test_zhangzhou_robs_the_gold() -> None:
    hand = after("zhangzhou", table({"S": ROB}, flipped="9s"), [], flipped="9s")
    assert choose(hand, 1) == Action(1, ROB_GOLD)


def test_zhangzhou_enters_single_you_and_throws_a_drawn_gold_for_double_you() -> None:
    hand = you_hand("4s")
    assert choose(hand, 1) == Action(1, DISCARD, tile=T("C"))
    hand = single_you("4s 2p 2p 2p E")
    assert choose(hand, 1) == Action(1, WIN)
    hand = single_you("4s 2p 2p 2p 5m")
    assert choose(hand, 1) == Action(1, DISCARD, tile=T("5m"))


def test_zhangzhou_in_you_passes_a_discard_win_but_robs_a_kong() -> None:
    hand = you_hand("4s 2p")
    hand.apply(Action(1, DISCARD, tile=T("C")))
    if hand.phase == CLAIM:
        scenario.close_window(hand)
    hand.apply(Action(2, DISCARD, tile=T("2p")))
    assert hand.players[1].flags[YOU] == 1 and Action(1, WIN) in hand.legal_actions(1)
    assert choose(hand, 1) == Action(1, PASS)
    assert hand.window is not None
    hand.window.kind = ON_ADDED_KONG
    assert choose(hand, 1) == Action(1, WIN)


def test_zhangzhou_guesses_a_concealed_kong_only_on_a_good_bet() -> None:
    hand = kong_prompt("123m 456m 789m 123p 3s 5s 9p 9p")  # 听 on 4s only
    assert choose(hand, 2) == Action(2, PASS)  # 4s is one of many kinds nobody has seen
    show_all_but(hand, "4s", "9s")
    assert choose(hand, 2) == Action(2, ROB_KONG, tile=T("4s"))


def test_dongbei_declares_ready_on_a_live_wait_and_not_on_a_dead_one() -> None:
    # E: 123444789m 123s 5s N waits on 5s alone after throwing N (or on N after the 5s).
    hands = fill_hands({"E": "123444789m 123s 5s N"}, avoid="5s 4m N")
    hand = hand_after("dongbei", hands, [])
    assert choose(hand, 0) in (Action(0, READY, tile=T("N")), Action(0, READY, tile=T("5s")))
    raw = hand.view(0)
    dead = {**raw, "players": [dict(p) for p in raw["players"]]}
    dead["players"][2]["discards"] = "5s 5s 5s N N N"  # every other 5s and N in sight: both dead
    assert decide(dead).kind == DISCARD


def test_a_pung_that_makes_the_hand_ready_is_taken() -> None:
    # 财神 (wild 7m): S holds 123m 456m 78p 55s 99s E; E throws 9s: punging (and throwing E)
    # leaves S ready on 6p / 9p.
    hands = fill_hands({"E": "9s 7m 1p 3p 2s E S W N C F P 4m 8m", "S": "123m456m78p 55s 99s E"}, flipped="7s")
    hand = hand_after("zhejiang_caishen", hands, [act("E", "discard", "9s")], flipped="7s")
    assert Action(1, PUNG) in hand.legal_actions(1)
    assert choose(hand, 1) == Action(1, PUNG)


def test_dongbei_opens_an_unlikely_hand_with_a_pung_that_keeps_its_distance() -> None:
    # S: EE 12m 45m 78p 23s 56s 9p, two from ready, unopened (立门); E throws the E.  Punging
    # leaves it two from ready.  Early in the hand its win chance makes 立门's doubled win worth
    # keeping: it passes.  With two rounds left it would mostly pay another's win, at double
    # while unopened: it pungs.
    hands = fill_hands({"E": "E 1p 3p 5p 7p 2m 4m 6m 8m 1s 3s 5s 7s 9s", "S": "EE 12m 45m 78p 23s 56s 9p"})
    hand = hand_after("dongbei", hands, [act("E", "discard", "E")])
    raw = hand.view(1)
    assert decide(raw) == Action(1, PASS)
    late = {**raw, "table": {**raw["table"], "drawable": 8}}
    assert decide(late) == Action(1, PUNG)


def test_every_win_offered_is_taken_outside_you() -> None:
    hand = dealt("dongbei", "123m 456m 789m 11p 456s")
    assert Action(0, WIN) in hand.legal_actions(0)
    assert choose(hand, 0) == Action(0, WIN)


def test_dongbei_piao_is_left_at_its_default() -> None:
    rules = get_variant("dongbei")
    options = rules.validate_options({})
    for question in rules.pre_hand_questions(options, {}):
        for wind in question.seats:
            assert StrongBot().pre_hand("dongbei", question, wind) == question.default


def test_wenzhou_the_dealer_buys_the_base_and_the_others_counter_it() -> None:
    rules = get_variant("wenzhou")
    options = rules.validate_options({})
    context: dict[str, Any] = {}
    asked = []
    for question in rules.pre_hand_questions(options, context):
        assert question.default is False
        answers = {wind: StrongBot().pre_hand("wenzhou", question, wind) for wind in question.seats}
        assert all(answer is True for answer in answers.values())
        asked.append(question.key)
        context = rules.apply_pre_hand_answers(context, question, answers)
    assert asked == ["buy_base", "counter_base"]
    assert context["buy_base"] is True and context["counter_base"] == ["S", "W", "N"]


def test_the_win_chance_grows_with_acceptance_and_shrinks_with_distance() -> None:
    assert win_chance(0, 8, 100, 10) > win_chance(0, 4, 100, 10) > win_chance(1, 4, 100, 10)
    assert win_chance(-1, 0, 100, 0) == 1.0 and win_chance(2, 30, 100, 0) == 0.0


# ------------------------------------------------------------------------------- hidden tiles
def around(variant: str, own: list[int], seed: int) -> Hand:
    """E holds ``own``; the other hands and the wall are the rest of the set shuffled by ``seed``."""
    rules = get_variant(variant)
    flip = FLIPS[variant]
    pool = [t for t in rules.tile_set(rules.validate_options({})) if t < 34]
    for t in [*own, *([T(flip)] if flip else [])]:
        pool.remove(t)
    random.Random(seed).shuffle(pool)
    size = rules.hand_size
    hands = {"E": format_tiles(own)}
    for i, seat in enumerate("SWN"):
        hands[seat] = format_tiles(pool[i * size : (i + 1) * size])
    wall = format_tiles(pool[3 * size : 3 * size + 20])
    extra = {"flipped": flip} if flip else {}
    return hand_after(variant, hands, [], wall=wall, **extra)


@pytest.mark.parametrize("variant", VARIANTS)
def test_no_decision_depends_on_a_hidden_tile(variant: str) -> None:
    """E's hand and everything public fixed, the others' hands and the wall dealt three ways:
    the strong bot decides the same every time."""
    own = parse_tiles(FAR[variant])
    decisions = set()
    for seed in (1, 2, 3):
        hand = around(variant, own, seed)
        decisions.add(str(choose(hand, 0)))
    assert len(decisions) == 1, decisions


def test_wenzhou_makes_a_concealed_kong_that_costs_a_step() -> None:
    # E: 3333m 45m 123p 456p 78s 99s 1s is ready after throwing the 1s (333m 345m); the kong of
    # 3m leaves it one step farther, but 温州 pays a concealed kong at once (2 from each).
    east = "3333m 45m 123p 456p 78s 99s 1s"
    assert choose(dealt("wenzhou", east), 0) == Action(0, KONG, tile=T("3m"))


def test_zhangzhou_makes_a_concealed_kong_that_costs_a_step() -> None:
    # E: 3333m 45m 123p 456p 79s 9s 1s E is one from ready after throwing the E (333m 345m); the
    # kong of 3m leaves it two from ready, but 漳州 adds an 暗杠's 2 points to E's base: each
    # loser pays (底分 + 2) × K if E wins, the other losers 2 each if another wins.
    east = "3333m 45m 123p 456p 79s 9s 1s E"
    assert choose(dealt("zhangzhou", east), 0) == Action(0, KONG, tile=T("3m"))


@pytest.mark.parametrize("variant", ["wenzhou", "zhangzhou"])
def test_a_kong_claimed_from_a_discard_goes_before_a_pung(variant: str) -> None:
    # S: 333m 45m 123p 456p 78s 99s 1s, one from ready; E throws the fourth 3m.  The pung (and
    # the 1s thrown) keeps S one from ready as the kong does and ranks above it, but 温州 pays a
    # 明杠 at once (3 from the discarder) and 漳州 adds its point to S's base.
    flip = FLIPS[variant]
    assert flip is not None
    east = "3m 1m 5m 7m 9m 1p 3p 5p 7p 9p 2s 4s 6s 8s 9s 6p 8p"  # no lone honour (温州)
    hands = fill_hands({"E": east, "S": "333m 45m 123p 456p 78s 99s 1s"}, flipped=flip, dealer_size=17)
    hand = hand_after(variant, hands, [act("E", "discard", "3m")], flipped=flip)
    assert Action(1, PUNG) in hand.legal_actions(1)
    assert choose(hand, 1) == Action(1, KONG, tile=T("3m"))


def test_zhedong_de_waits_for_the_win_that_pays_more_not_for_more_tiles() -> None:
    # E: 123m 456m 789p CC 55s 6s.  Throwing the 5s waits on 4s/7s (8 tiles) for a win of
    # (2 + 10) = 12 (the dragon pair's 2); throwing the 6s waits on C/5s (4 tiles): the C makes
    # a dragon 暗刻, (8 + 10) · 2^1 = 36, the 5s an 暗刻 beside the dragon pair, 4 + 2 + 10 = 16.
    # The bot takes the fewer tiles for the larger win.
    hand = dealt("zhedong_de", "123m 456m 789p CC 55s 6s")
    view = SeatView.from_view(hand.view(0))
    assert view is not None
    assert acceptance(view)[0].tile == T("5s")  # by tiles alone the 5s goes
    assert choose(hand, 0) == Action(0, DISCARD, tile=T("6s"))


def test_a_zhedong_de_win_is_valued_as_its_scorer_pays_it() -> None:
    part = to_counts(parse_tiles("123m 456m 789p CC 55s"))
    assert zhedong_win_total(part, [], T("F"), T("E"), T("C"), {}) == 36
    assert zhedong_win_total(part, [], T("F"), T("E"), T("5s"), {}) == 16
    assert zhedong_win_total(part, [], T("F"), T("E"), T("4s"), {}) is None  # no win
    assert zhedong_ready_total(part, [], [(T("C"), 2), (T("5s"), 1)], T("F"), T("E"), {}) == (2 * 36 + 16) / 3
    assert zhedong_ready_total(part, [], [(T("C"), 0)], T("F"), T("E"), {}) is None  # none left


def test_dongbei_waits_on_seven_pairs_for_its_eightfold_win() -> None:
    # E: 11m 2m 3m 44m 77m 88m 99m 66p.  Throwing a 1m waits on 4m/6p (4 tiles) for 123m 789m
    # 789m: 立门 and 一般高, 2^2; throwing the 2m waits on the 3m alone (3 tiles) for 七小对,
    # 2^3.  The bot takes the fewer tiles for the larger win.
    hand = dealt("dongbei", "11m 2m 3m 44m 77m 88m 99m 66p")
    view = SeatView.from_view(hand.view(0))
    assert view is not None
    assert acceptance(view)[0].tile == T("1m")  # by tiles alone the 1m goes
    chosen = choose(hand, 0)
    assert chosen.kind in (DISCARD, READY) and chosen.tile == T("2m"), chosen


def test_a_dongbei_win_is_valued_by_the_hands_own_fan() -> None:
    seven = to_counts(parse_tiles("11m 3m 44m 77m 88m 99m 66p"))
    assert dongbei_win_fan(seven, [], T("3m"), False, {}) == 3  # 七小对 (立门 not added)
    assert dongbei_win_fan(seven, [], T("3m"), True, {}) == 4  # and 报听
    runs = to_counts(parse_tiles("123m 44m 778899m 66p"))
    assert dongbei_win_fan(runs, [], T("6p"), False, {}) == 2  # 立门, 一般高
    assert dongbei_win_fan(runs, [], T("5p"), False, {}) is None
    assert dongbei_ready_multiplier(runs, [], [(T("4m"), 2), (T("6p"), 2)], False, {}) == 4.0


def test_zhangzhou_pungs_into_you_rather_than_win_on_the_discard() -> None:
    # S (gold 5m) waits on 4s (its pung, C with the gold the pair) and on C: E's 4s wins now as
    # a plain discard win (K 1), or its pung leaves five melds, the gold and C, and throwing C
    # enters 单游 (the next own draw wins K 4).
    hands = table(
        {"E": "4s 9m 9m 9m 2p 2p 2p 6p 6p 6p E E S S W W N", "S": "123m 678m 789p 111s 4s 4s 5m C"},
        flipped="5m",
    )
    hand = after("zhangzhou", hands, [act("S", "pass"), act("E", "discard", "4s")], flipped="5m")
    assert hand.phase == CLAIM and Action(1, WIN) in hand.legal_actions(1)
    assert choose(hand, 1) == Action(1, PUNG)
    hand.apply(Action(1, PUNG))
    scenario.close_window(hand)
    assert hand.turn == 1 and Action(1, WIN) not in hand.legal_actions(1)
    assert choose(hand, 1) == Action(1, DISCARD, tile=T("C"))
    hand.apply(Action(1, DISCARD, tile=T("C")))
    assert hand.players[1].flags[YOU] == 1


def test_wenzhou_pungs_into_caishen_pair_rather_than_win_soft() -> None:
    # 财神 F: S waits on 4s (its pung, the 财神 standing in for 9m as the pair) and on 9m.  E's
    # 4s wins now as a soft hand (×1), or its pung leaves five melds, the 财神 and 9m, and
    # throwing the 9m leaves 财神牛: any self-drawn tile then wins it as a hard hand (×2).
    hands = fill_hands(
        {"E": "4s 5s 9m 9m 9m 2p 2p 2p 6p 6p 6p E E S S W W", "S": "123m 456m 789p 111s 4s 4s F 9m"},
        flipped="F",
        dealer_size=17,
    )
    hand = hand_after("wenzhou", hands, [act("E", "discard", "4s")], flipped="F")
    assert hand.phase == CLAIM and Action(1, WIN) in hand.legal_actions(1)
    raw = hand.view(1)
    assert decide(raw) == Action(1, WIN)  # the dealer's first discard: 地胡 (双翻)
    later = {**raw, "players": [dict(p) for p in raw["players"]]}
    later["players"][3]["discards"] = "9p"  # a discard of N before: no 地胡
    assert decide(later) == Action(1, PUNG)
    hand.apply(Action(1, PUNG))
    scenario.close_window(hand)
    assert hand.turn == 1 and Action(1, WIN) not in hand.legal_actions(1)
    assert choose(hand, 1) == Action(1, DISCARD, tile=T("9m"))
