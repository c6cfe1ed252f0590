"""D3 (漳州麻将): the worked examples of spec/rules/SPEC.md §D3.4, and the rules around them."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from games.engine import load_hand, scenario
from games.engine.hand import ENDED, PLAY, Hand, WinContext, WinVerdict
from games.engine.options import OptionsError
from games.engine.state import (
    CHOW,
    KONG_CONCEALED,
    KONG_EXPOSED,
    MELD_CHOW,
    MELD_PUNG,
    PASS,
    PUNG,
    WIN,
    Action,
    Meld,
    Player,
    Result,
)
from games.engine.tiles import WHITE, format_tiles, is_flower, parse_tile, parse_tiles
from games.engine.variants import get_variant
from games.engine.variants.zhangzhou import hands as zh
from games.engine.variants.zhangzhou import scoring as zs
from games.engine.variants.zhangzhou.rules import PROMPT, ROB_GOLD, ROB_KONG, YOU, break_ring, live
from tests.engine.rig import SCENARIOS, act, matches

V = "zhangzhou"
GOLDEN = SCENARIOS / "zhangzhou_double_you.json"

# Filler hands: lone suited tiles three ranks apart and lone honours (a pair or two when they
# run out), far from 听牌 even with a gold, so only the seats a test names can win or claim.
PATTERNS = {
    "E": "1m 4m 7m 2p 5p 8p 3s 6s 9s",
    "S": "2m 5m 8m 3p 6p 9p 1s 4s 7s",
    "W": "3m 6m 9m 1p 4p 7p 2s 5s 8s",
    "N": "1m 4m 7m 3p 6p 9p 2s 5s 8s",
}
HONOURS = parse_tiles("E S W N C F")


def table(given: dict[str, str], flipped: str = "5m", wall: str = "", tail: str = "") -> dict[str, str]:
    """``given`` hands, the other seats filled with harmless tiles (E 17, others 16)."""
    gold = parse_tile(flipped)
    used = Counter(t for h in given.values() for t in parse_tiles(h))
    used.update(parse_tiles(wall) + parse_tiles(tail) + [gold])
    out = dict(given)
    for seat in "ESWN":
        if seat in out:
            continue
        size = 17 if seat == "E" else 16
        suited = parse_tiles(PATTERNS[seat])
        tiles: list[int] = []
        for t in suited + HONOURS + suited + HONOURS:
            if len(tiles) < size and t not in (gold, WHITE) and used[t] < 4 and tiles.count(t) < 2:
                tiles.append(t)
                used[t] += 1
        assert len(tiles) == size, f"cannot fill {seat}"
        assert seat == "E" or not zh.is_ready([tiles.count(k) for k in range(42)], gold), f"{seat} is 听牌"
        out[seat] = format_tiles(tiles)
    return out


def run(hands: dict[str, str], actions: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    extra.setdefault("flipped", "5m")
    return scenario.run({"variant": V, "hands": hands, "actions": actions, **extra})


def after(hands: dict[str, str], actions: list[dict[str, Any]], **extra: Any) -> Hand:
    """The engine hand after ``actions``, played as the scenario runner plays them."""
    extra.setdefault("flipped", "5m")
    hand = scenario.build_hand({"variant": V, "hands": hands, **extra}, open_empty_windows=True)
    answered = False
    for i, raw in enumerate(actions):
        action = scenario.parse_action(raw, i)
        answered = scenario.answers_prompt(hand, action)
        scenario.play_one(hand, action)
    if answered:
        scenario.close_prompt(hand)
    if hand.window is not None and hand.window.responses:
        scenario.close_window(hand)  # as the runner does: the listed answers were all the answers
    return hand


def names(out: dict[str, Any]) -> list[str]:
    return [b["name"] for b in out["breakdown"]]


def item(out: dict[str, Any], name: str) -> dict[str, Any]:
    return next(b for b in out["breakdown"] if b["name"] == name)


T = parse_tile


# -- example 1: 144 tiles, walls of 18 stacks, the break, dealer 17 --------------------------------
def test_break_counts_seats_then_stacks() -> None:
    ring = list(range(144))
    # 3 + 4 = 7: the 7th seat from the dealer is 对家 (offset 2); leave 7 stacks, take from the 8th.
    assert break_ring(ring, (3, 4))[0] == 2 * (2 * 18 + 7)
    assert break_ring(ring, (1, 1))[0] == 2 * (1 * 18 + 2)  # 2: 下家's wall, from stack 3
    assert break_ring(ring, (6, 6))[:2] == [2 * (3 * 18 + 12), 2 * (3 * 18 + 12) + 1]


@pytest.mark.parametrize("seed", ["a", "b", "c", "d", "e"])
def test_deal_dealer_17_others_16_and_79_left(seed: str) -> None:
    hand = get_variant(V).new_hand(seed=seed)
    assert len(hand.wall.tiles) == 144 and all(hand.wall.taken[:65])  # 16 × 4 + the dealer's 跳牌
    assert [len(p.hand) for p in hand.players] == [17, 16, 16, 16]
    flowers = sum(len(p.flowers) for p in hand.players)
    assert hand.wall.remaining() == 79 - flowers  # each flower was replaced from the tail
    assert hand.wall_left() == 79 - flowers - 1  # the 金 lies face up
    census = Counter(t for p in hand.players for t in p.hand + p.flowers)
    census.update(t for t, taken in zip(hand.wall.tiles, hand.wall.taken, strict=True) if not taken)
    assert census == Counter(get_variant(V).tile_set(hand.options))
    assert all(not is_flower(t) for p in hand.players for t in p.hand)


# -- example 2: the opening flower rounds ----------------------------------------------------------
def test_flower_rounds_start_from_the_dealer_each_time() -> None:
    hands = table(
        {"E": "1h 2h 2m 5m 8m 2p 5p 8p 2s 5s 8s E S W N C F", "S": "3h 2m 5m 8m 2p 5p 8p 2s 5s 8s E S W N C F"},
        flipped="9s",
        tail="4h 9m 1p 3m",
    )
    hand = after(hands, [], flipped="9s", tail="4h 9m 1p 3m")
    e, s = hand.players[0], hand.players[1]
    # Round 1: E replaces 2 (4h, 9m), S replaces 1 (1p); round 2: E again, for 4h (3m).
    assert e.flowers == parse_tiles("1h 2h 4h") and s.flowers == parse_tiles("3h")
    assert e.hand[-2:] == parse_tiles("9m 3m") and s.hand[-1] == T("1p")
    assert hand.state.flower_rounds == 2
    assert [len(p.hand) for p in hand.players] == [17, 16, 16, 16]


def test_a_flower_drawn_in_play_is_exposed_and_replaced_from_the_tail() -> None:
    hands = table({})
    hand = after(hands, [act("E", "discard", "F"), act("S", "discard", "9p")], wall="6h", tail="9p")
    s = hand.players[1]
    assert s.flowers == [T("6h")] and T("9p") in s.discards and not any(is_flower(t) for t in s.hand)


# -- example 3: the gold flip -----------------------------------------------------------------------
def test_gold_is_counted_from_the_tail_and_rerolled_on_a_flower() -> None:
    v = get_variant(V)
    rerolled = None
    for i in range(400):
        hand = v.new_hand(seed=f"gold-{i}")
        wall = hand.wall
        ranks = range(wall.tail_cursor, len(wall.tiles))
        order = [p for p in (wall.tail_position(k) for k in ranks) if not wall.taken[p]]
        rolls = hand.state.gold_dice
        for dice in rolls[:-1]:
            assert is_flower(wall.tiles[order[sum(dice) - 1]])  # a flower: put back, roll again
        pos = order[sum(rolls[-1]) - 1]
        assert pos == hand.state.gold_pos and hand.state.gold == wall.tiles[pos]
        assert not is_flower(hand.state.gold) and pos in wall.face_up and pos not in wall.skip
        if len(rolls) > 1:
            rerolled = hand
            break
    assert rerolled is not None, "no seed re-rolled the gold"


def test_rigged_gold_lies_right_after_the_listed_tail() -> None:
    hand = after(table({}), [], flipped="5m", tail="9p 9s")
    pos = hand.wall.tail_position(2)
    assert hand.wall.tiles[pos] == T("5m") and pos in hand.wall.face_up
    assert hand.public_view()["table"]["gold"] == "5m" and hand.public_view()["face_up"] == "5m"


def test_a_replacement_draw_takes_the_gold_in_turn() -> None:
    # S's flower is replaced by the listed tail tile; W's, next, reaches the gold itself.
    hands = table({})
    hand = after(hands, [act("E", "discard", "F"), act("S", "discard", "2m")], wall="6h 7h", tail="2m")
    scenario.close_window(hand)
    s, w = hand.players[1], hand.players[2]
    assert s.flowers == [T("6h")] and s.discards == [T("2m")]
    assert w.flowers == [T("7h")] and w.drawn == T("5m")
    assert hand.public_view()["table"]["gold_in_wall"] is False


def test_gold_option_keeps_the_gold_out_of_the_draws() -> None:
    hand = after(table({}), [], options={"gold_drawable": False})
    assert hand.state.gold_pos in hand.wall.skip and hand.wall.remaining() == 78


# -- example 4: 白板 plays the gold's face ------------------------------------------------------------
def test_white_dragon_is_chowed_as_the_gold() -> None:
    hands = table(
        {"E": "P 1m 4m 7m 1p 4p 7p 1s 4s 7s E S W N C F 9p", "S": "4m 6m 1p 4p 7p 1s 4s 7s E S W N C F 9s 9m"}
    )
    hand = after(hands, [act("E", "discard", "P"), act("S", "chow", tiles="456m")])
    meld = hand.players[1].melds[0]
    assert meld.kind == MELD_CHOW and sorted(meld.tiles) == sorted(parse_tiles("4m 6m P"))
    assert hand.turn == 1 and hand.phase == PLAY


def test_white_dragon_is_punged_and_won_on_as_the_gold() -> None:
    hands = table(
        {
            "E": "P 2m 8m 1p 5p 8p 3s 6s 9s E S W N C F 3p 9p",
            "S": "123m 789p 111s 234s 4m 6m E E",  # waits on 5m: 白板 is the natural 5m
            "W": "P P 3m 6m 9m 1p 4p 7p 2s 5s 8s S W N C F",
        }
    )
    hand = after(hands, [act("E", "discard", "P"), act("W", "pung")])
    assert hand.players[2].melds[0].kind == MELD_PUNG and hand.players[2].melds[0].tiles == (WHITE,) * 3
    out = run(hands, [act("E", "discard", "P"), act("S", "win")])
    assert out["status"] == "win" and out["winner"] == "S" and out["from"] == "E"
    assert out["deltas"] == {"E": -1, "S": 3, "W": -1, "N": -1}  # all three pay (底分 + 0) × 1


def test_zheng_jin_white_dragon_is_the_gold_and_stands_for_nothing() -> None:
    hands = table({"E": "P 1m 4m 7m 1p 4p 7p 1s 4s 7s E S W N C F 9p", "S": "123m 789p 111s 234s 4m 6m E E"})
    out = run(hands, [act("E", "discard", "P"), act("S", "win")], flipped="P")
    assert out["status"] == "illegal" and "金" in out["error"]["reason"]
    assert get_variant(V).chow_stand_ins(after(hands, [], flipped="P")) == {}


# -- example 5: a discarded gold cannot be claimed ------------------------------------------------
@pytest.mark.parametrize(
    ("claim", "word"),
    [
        (act("S", "chow", tiles="456m"), "chow"),
        (act("W", "pung"), "pung"),
        (act("N", "win"), "win"),
    ],
)
def test_discarded_gold_cannot_be_chowed_punged_or_won(claim: dict[str, Any], word: str) -> None:
    hands = table(
        {
            "E": "5m 2m 8m 2p 5p 8p 3s 6s 9s E S W N C F 9m 1p",
            "S": "4m 6m 3p 6p 9p 1s 4s 7s E S W N C F 7m 2p",
            "W": "5m 5m 3m 9m 1p 4p 7p 2s 5s 8s E S W N C F",
            "N": "123m 789p 111s 234s 3p 3p 2s 2s",  # a gold would complete it
        }
    )
    hand = after(hands, [act("E", "discard", "5m")])
    scenario.close_prompt(hand)
    assert hand.window is not None and all(not acts for acts in hand.window.options.values())
    out = run(hands, [act("E", "discard", "5m"), claim])
    assert out["status"] == "illegal"
    assert "金" in out["error"]["reason"] and (word in out["error"]["reason"] or word == "chow")


# -- example 6: two golds win only by self-draw -------------------------------------------------------
TWO_GOLDS = "123m 678m 34s 67s 5m 5m E E 9p 9p"  # 听 on E or 9p


def test_two_golds_may_not_win_on_a_discard_but_may_self_draw() -> None:
    hands = table({"S": TWO_GOLDS})
    out = run(hands, [act("E", "discard", "E"), act("S", "win")])
    assert out["status"] == "illegal" and "两金必须自摸" in out["error"]["reason"]
    out = run(hands, [act("E", "discard", "F"), act("S", "draw"), act("S", "win")], wall="9p")
    assert out["status"] == "win" and out["self_drawn"] is True
    assert out["deltas"] == {"E": -2, "S": 6, "W": -2, "N": -2} and names(out)[0] == "self_draw"


def test_one_gold_may_win_on_a_discard() -> None:
    hands = table({"S": "123m 678m 789p 111s 234s 5m"})
    out = run(hands, [act("E", "discard", "F"), act("S", "win")])
    assert out["status"] == "win" and out["from"] == "E" and names(out)[0] == "discard"


# -- example 7: 三金倒 ----------------------------------------------------------------------------------
def test_three_golds_win_with_any_shape_scored_as_self_draw() -> None:
    hands = table({"S": "5m 5m 2m 8m 3p 6p 9p 2s 5s 8s E S W N C F"})
    out = run(hands, [act("E", "discard", "F"), act("S", "draw"), act("S", "win")], wall="5m")
    assert out["status"] == "win" and out["winner"] == "S" and out["self_drawn"] is True
    assert names(out)[0] == "three_golds" and out["deltas"] == {"E": -2, "S": 6, "W": -2, "N": -2}


def test_two_golds_and_no_shape_is_no_win() -> None:
    hands = table({"S": "5m 5m 2m 8m 3p 6p 9p 2s 5s 8s E S W N C F"})
    out = run(hands, [act("E", "discard", "F"), act("S", "draw"), act("S", "win")], wall="9m")
    assert out["status"] == "illegal" and out["error"]["reason"] == "not a winning hand"


# -- example 8: 抢金 -------------------------------------------------------------------------------------
ROB = "123m 456m 789p 111s 23s E E"  # 听 on 1s, 4s or E


def test_non_dealer_robs_the_gold_with_a_ready_16() -> None:
    hands = table({"S": ROB}, flipped="9s")
    out = run(hands, [act("S", "rob_gold")], flipped="9s")
    assert out["status"] == "win" and out["winner"] == "S" and out["self_drawn"] is True and out["from"] is None
    assert names(out)[0] == "rob_gold" and out["deltas"] == {"E": -2, "S": 6, "W": -2, "N": -2}
    hand = after(hands, [act("S", "rob_gold")], flipped="9s")
    assert hand.wall.taken[hand.state.gold_pos] and T("9s") in hand.players[1].hand


def test_dealer_robs_the_gold_by_setting_one_tile_aside() -> None:
    hands = table({"E": ROB + " 9m"}, flipped="9s")
    out = run(hands, [act("E", "rob_gold")], flipped="9s", context={"dealer_streak": 2})
    assert out["status"] == "win" and out["winner"] == "E"
    assert out["deltas"] == {"E": 12, "S": -4, "W": -4, "N": -4}  # (1 + 0) × 2 × R=2
    hand = after(hands, [act("E", "rob_gold")], flipped="9s")
    assert hand.players[0].discards == [T("9m")] and len(hand.players[0].hand) == 17


def test_rob_gold_refused_when_not_ready() -> None:
    hands = table({}, flipped="9s")
    out = run(hands, [act("E", "rob_gold")], flipped="9s")
    assert out["status"] == "illegal" and "听牌" in out["error"]["reason"]
    out = run(hands, [act("S", "rob_gold")], flipped="9s")
    assert out["status"] == "illegal"


def test_rob_gold_order_dealer_side_first_and_three_golds_before_it() -> None:
    w_ready = "123p 456p 789s 111m 23m S S"
    hands = table({"S": ROB, "W": w_ready}, flipped="9s")
    out = run(hands, [act("W", "rob_gold"), act("S", "rob_gold")], flipped="9s")
    assert out["winner"] == "S"  # 下家 before 对家, whatever the order of the answers
    out = run(hands, [act("W", "rob_gold")], flipped="9s")
    assert out["winner"] == "W"  # S, not named, passes
    hands = table({"S": ROB, "W": "9s 9s 9s 2m 8m 3p 6p 9p 2s 5s 8s E N C F W"}, flipped="9s")
    hand = after(hands, [], flipped="9s")
    hand.apply(Action(1, ROB_GOLD))
    assert hand.phase != ENDED  # W could still declare 三金倒, which comes first
    out = run(hands, [act("S", "rob_gold"), act("W", "win")], flipped="9s")
    assert out["winner"] == "W" and names(out)[0] == "three_golds"


# Everyone may answer the 抢金 question at once (gold 9s): the dealer (setting N aside leaves 听牌),
# S and N 听牌, W with three golds (三金倒); and a table where the dealer holds the three golds.
ROB_ALL = {
    "E": "123p 456p 789m 444s 56s S S N",
    "S": ROB,
    "W": "9s 9s 9s E E C C F F N 3m 8m 9p 3p 2s 6s",
    "N": "234m 567m 678p 555s 7s 8s W W",
}
ROB_DEALER_GOLDS = {
    "E": "9s 9s 9s 1m 4m 7m 2p 5p 8p 3s 6s C F W S N 9m",
    "S": ROB,
    "W": "3m 6m 9m 1p 4p 7p 2s 5s 8s S W N C F E 6p",
    "N": ROB_ALL["N"],
}


def test_the_dealer_is_asked_and_answers_before_playing() -> None:
    hands = table({"E": ROB_ALL["E"], "S": ROB}, flipped="9s")
    hand = after(hands, [], flipped="9s")
    assert get_variant(V).prompt(hand) == {0: [Action(0, ROB_GOLD)], 1: [Action(1, ROB_GOLD)]}
    assert hand.legal_actions(0) == [Action(0, ROB_GOLD), Action(0, PASS)]
    with pytest.raises(ValueError, match="answer first"):
        hand.apply(Action(0, "discard", tile=T("N")))
    hand.apply(Action(0, PASS))  # then the dealer plays on while S decides
    assert Action(0, ROB_GOLD) not in hand.legal_actions(0)
    with pytest.raises(ValueError, match="answered"):
        hand.apply(Action(0, ROB_GOLD))  # the dealer said no; 抢金 is not among their moves later
    hand.apply(Action(0, "discard", tile=T("N")))
    assert hand.legal_actions(1) == [Action(1, ROB_GOLD), Action(1, PASS)]


@pytest.mark.parametrize(
    ("answers", "winner", "kind"),
    [
        ([act("S", "rob_gold"), act("E", "rob_gold")], "E", "rob_gold"),  # the dealer first, whoever answers first
        ([act("S", "rob_gold"), act("E", "pass")], "S", "rob_gold"),
        ([act("N", "rob_gold"), act("W", "pass"), act("E", "pass")], "N", "rob_gold"),
        ([act("E", "rob_gold"), act("S", "rob_gold"), act("W", "win")], "W", "three_golds"),
    ],
)
def test_rob_gold_waits_for_every_higher_answer(answers: list[dict[str, Any]], winner: str, kind: str) -> None:
    hands = table(ROB_ALL, flipped="9s")
    hand = scenario.build_hand({"variant": V, "hands": hands, "flipped": "9s"})
    scenario.play_one(hand, scenario.parse_action(answers[0], 0))
    assert hand.phase != ENDED  # a higher-placed seat (the dealer, or 三金倒) has not answered yet
    out = run(hands, answers, flipped="9s")
    assert out["winner"] == winner and names(out)[0] == kind
    assert item(out, kind)["label"] == zs.LABELS[kind]


def test_the_dealers_three_golds_come_before_every_rob_gold() -> None:
    hands = table(ROB_DEALER_GOLDS, flipped="9s")
    hand = scenario.build_hand({"variant": V, "hands": hands, "flipped": "9s"})
    hand.apply(Action(1, ROB_GOLD))
    assert hand.phase != ENDED and 0 in get_variant(V).prompt(hand)  # type: ignore[operator]
    hand.apply(Action(0, WIN))
    assert hand.result is not None and hand.result.winner == 0 and hand.result.win_kind == "three_golds"
    out = run(hands, [act("S", "rob_gold"), act("E", "pass")], flipped="9s")
    assert out["winner"] == "S" and names(out)[0] == "rob_gold"  # nobody declared 三金倒


def test_dealer_plays_on_while_the_others_decide() -> None:
    hands = table({"S": ROB}, flipped="9s")
    out = run(hands, [act("E", "discard", "F"), act("S", "rob_gold")], flipped="9s")
    assert out["winner"] == "S" and names(out)[0] == "rob_gold"
    hand = after(hands, [act("E", "discard", "F")], flipped="9s")
    assert hand.legal_actions(2) == [] and hand.legal_actions(1) == [Action(1, ROB_GOLD), Action(1, PASS)]
    hand.apply(Action(1, PASS))
    assert get_variant(V).prompt(hand) is None


# -- example 9: 单游 -------------------------------------------------------------------------------------
SINGLE = "123m 678m 789p 111s 234s 5m"  # five melds and a lone gold (5m)
# S draws C and throws it: the pair gold + C is given up for 单游.
SINGLE_PLAY = [
    act("E", "discard", "F"),
    act("S", "discard", "C"),
    act("W", "discard", "2p"),
    act("N", "discard", "2p"),
    act("E", "discard", "2p"),
]


@pytest.mark.parametrize("draw", ["E", "9p"])
def test_single_you_wins_on_any_draw(draw: str) -> None:
    wall = f"C 2p 2p 2p {draw}"
    hands = table({"S": SINGLE}, wall=wall)
    out = run(hands, [*SINGLE_PLAY, act("S", "draw"), act("S", "win")], wall=wall)
    assert out["status"] == "win" and names(out)[0] == "you_single"
    assert out["deltas"] == {"E": -4, "S": 12, "W": -4, "N": -4}


def test_single_you_replaces_a_flower_and_goes_on() -> None:
    wall = "C 2p 2p 2p 1h"
    hands = table({"S": SINGLE}, wall=wall, tail="E")
    out = run(hands, [*SINGLE_PLAY, act("S", "draw"), act("S", "win")], wall=wall, tail="E")
    assert names(out)[0] == "you_single" and "kong_bloom" not in names(out)
    hand = after(hands, SINGLE_PLAY, wall=wall, tail="E")
    assert hand.public_view()["players"][1]["flags"] == {YOU: 1}


def test_leaving_the_you_shape_ends_it() -> None:
    hands = table({"S": SINGLE}, wall="C")
    hand = after(hands, [act("E", "discard", "F"), act("S", "discard", "C")], wall="C")
    assert hand.players[1].flags[YOU] == 1
    hand = after(hands, [act("E", "discard", "F"), act("S", "discard", "1m")], wall="C")
    assert hand.players[1].flags.get(YOU, 0) == 0


# -- examples 10-12: 双游 and 三游 --------------------------------------------------------------------------
def golden() -> dict[str, Any]:
    sc: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return sc


def test_golden_double_you() -> None:
    sc = golden()
    want = sc.pop("expect")
    out = scenario.run(sc)
    assert matches(want, {k: out[k] for k in want})
    assert names(out)[0] == "you_double"


def test_gold_pair_may_win_at_once_as_plain_self_draw() -> None:
    sc = golden()
    sc["actions"] = sc["actions"][:1] + [act("S", "draw"), act("S", "win")]
    out = scenario.run(sc)
    assert out["status"] == "win" and names(out)[0] == "self_draw" and out["deltas"]["S"] == 6


def test_single_you_drawing_a_gold_wins_only_as_plain_self_draw() -> None:
    # 单游 is won with an ordinary tile (摸进一张普通牌); a drawn gold is 自摸, or thrown for 双游.
    wall = "C 2p 2p 2p 5m"
    hands = table({"S": SINGLE}, wall=wall)
    out = run(hands, [*SINGLE_PLAY, act("S", "draw"), act("S", "win")], wall=wall)
    assert names(out)[0] == "self_draw" and out["deltas"]["S"] == 6


def test_a_hand_dealt_into_the_you_shape_wins_only_as_plain_self_draw() -> None:
    # SPEC D3.4.9: 单游 is the 16 tiles "after discarding the pair partner" (把普通牌打出).  Dealt
    # five melds and a lone gold, S has thrown nothing: drawing E is a plain 自摸, not 单游.
    sc = golden()
    sc["wall"] = "E"
    sc["actions"] = sc["actions"][:1] + [act("S", "draw"), act("S", "win")]
    out = scenario.run(sc)
    assert names(out)[0] == "self_draw" and out["deltas"] == {"E": -2, "S": 6, "W": -2, "N": -2}
    assert item(out, "self_draw")["label"] == "自摸"
    # Thrown once (S draws C and throws it, the pair partner), the same draw is 单游.
    sc = golden()
    sc["wall"] = "C 1p 2p 3p E"
    sc["actions"] = [act("E", "discard", "4p"), act("S", "discard", "C")]
    sc["actions"] += [act("W", "discard", "1p"), act("N", "discard", "2p"), act("E", "discard", "3p")]
    out = scenario.run({**sc, "actions": [*sc["actions"], act("S", "draw"), act("S", "win")]})
    assert names(out)[0] == "you_single" and out["deltas"] == {"E": -4, "S": 12, "W": -4, "N": -4}
    assert item(out, "you_single")["label"] == "单游"


def test_golden_you_shape_without_discard() -> None:
    sc = json.loads((GOLDEN.parent / "zhangzhou_you_shape_without_discard.json").read_text(encoding="utf-8"))
    want = sc.pop("expect")
    out = scenario.run(sc)
    assert matches(want, {k: out[k] for k in want})


@pytest.mark.parametrize("claim", ["pung", "chow"])
def test_you_entered_by_a_claim_then_the_partners_discard_is_single_you(claim: str) -> None:
    # S claims E's 2p into a fifth meld, then throws C, the gold's partner: that throw enters 单游.
    # With no throw (S wins at once on the claim's 17 tiles) it would be a discard win.
    s_hand = "123m 678m 789p 111s 2p 2p 5m C" if claim == "pung" else "123m 678m 789p 111s 3p 4p 5m C"
    wall = "7s 8s 9s E"
    hands = table({"E": "2p 1m 4m 7m 5p 8p 3s 6s 9s E S W N C F 1s 4s", "S": s_hand}, wall=wall)
    claimed = act("S", "pung") if claim == "pung" else act("S", "chow", tiles="234p")
    acts = [act("E", "discard", "2p"), claimed, act("S", "discard", "C")]
    acts += [act("W", "discard", "7s"), act("N", "discard", "8s"), act("E", "discard", "9s")]
    hand = after(hands, acts, wall=wall)
    assert hand.players[1].flags[YOU] == 1
    out = run(hands, [*acts, act("S", "draw"), act("S", "win")], wall=wall)
    assert out["winner"] == "S" and names(out)[0] == "you_single"
    assert out["deltas"] == {"E": -4, "S": 12, "W": -4, "N": -4}


def test_double_you_restricts_the_others_to_the_tile_received() -> None:
    sc = golden()
    sc["actions"] = sc["actions"][:2] + [act("W", "discard", "E")]
    out = scenario.run(sc)
    assert out["status"] == "illegal" and out["error"]["index"] == 2
    assert "双游" in out["error"]["reason"] and "1p" in out["error"]["reason"]
    hand = after(golden()["hands"], golden()["actions"][:2], wall=golden()["wall"])
    scenario.close_window(hand)
    assert [a.tile for a in hand.legal_actions(2) if a.kind == "discard"] == [T("1p")]
    assert hand.public_view()["table"]["double_you"] == ["S"]


def test_double_you_forced_discards_may_be_won_but_not_claimed() -> None:
    sc = golden()
    # N holds 2p 2p: no pung of W's forced 1p... give N a pung chance on E's forced 3p instead.
    hand = after(sc["hands"], sc["actions"][:4], wall=sc["wall"])
    scenario.close_window(hand)
    hand.apply(Action(0, "discard", tile=T("3p")))
    assert hand.window is None or all(a.kind == WIN for acts in hand.window.options.values() for a in acts)
    reason = get_variant(V).pung_refusal(hand, 3, T("3p"))
    assert reason is not None and "双游" in reason


def test_the_restriction_ends_with_the_you_players_draw() -> None:
    sc = golden()
    hand = after(sc["hands"], sc["actions"][:5] + [act("S", "draw")], wall=sc["wall"])
    assert hand.state.double_you == [] and hand.turn == 1


def test_triple_you_stops_the_hand_at_once() -> None:
    sc = golden()
    sc["wall"] = "5m 1p 2p 3p 5m"
    sc["actions"] = sc["actions"][:5] + [act("S", "draw")]
    out = scenario.run(sc)
    assert out["status"] == "win" and out["winner"] == "S" and names(out)[0] == "you_triple"
    assert out["deltas"] == {"E": -16, "S": 48, "W": -16, "N": -16}  # 2 × 双游


# -- example 13: 分饼 ---------------------------------------------------------------------------------------
def fenbing_hands() -> dict[str, str]:
    return table(
        {
            "E": "E 9p 2m 1m 4m 7m 1p 4p 7p 1s 4s 7s S W N C F",
            "S": "E 9p 2m 1m 4m 7m 1p 4p 7p 1s 4s 7s S W N C",
            "W": "E 9p 8m 1m 4m 7m 1p 4p 7p 1s 4s 7s S W N F",
            "N": "E 9p 3m 3p 8p 2s 5s 8s 3s 6s 2p S W C F N",
        },
        wall="9s 9s 9s 9s 6p 6p 6p 6p",
    )


FOLLOW = [
    act("E", "discard", "E"),
    act("S", "discard", "E"),
    act("W", "discard", "E"),
    act("N", "discard", "E"),
    act("E", "discard", "9p"),
    act("S", "discard", "9p"),
    act("W", "discard", "9p"),
    act("N", "discard", "9p"),
]


def test_fenbing_first_round_then_doubling() -> None:
    wall = "9s 9s 9s 9s 6p 6p 6p 6p"
    hand = after(fenbing_hands(), FOLLOW[:4], wall=wall)
    assert hand.state.fenbing == [1, False] and zs.fenbing_each(hand) == 1
    hand = after(fenbing_hands(), FOLLOW, wall=wall)
    assert hand.state.fenbing == [2, False] and zs.fenbing_each(hand) == 3
    out = run(fenbing_hands(), FOLLOW + [act("E", "discard", "2m"), act("S", "discard", "1m")], wall=wall)
    assert out["status"] == "in_progress"
    hand = after(fenbing_hands(), FOLLOW + [act("E", "discard", "2m"), act("S", "discard", "1m")], wall=wall)
    assert hand.state.fenbing == [2, True]  # the third lead was not followed: it stops there
    result = get_variant(V).settle_draw(hand)
    assert next(b for b in result.breakdown if b.name == "fenbing").payments == {"E": -9, "S": 3, "W": 3, "N": 3}


def test_no_fenbing_when_the_first_lead_is_not_followed() -> None:
    wall = "9s 9s 9s 9s 6p 6p 6p 6p"
    acts = [act("E", "discard", "E"), act("S", "discard", "2m")] + FOLLOW[2:]
    hand = after(fenbing_hands(), acts, wall=wall)
    assert hand.state.fenbing[0] == 0 and zs.fenbing_each(hand) == 0


# -- examples 14-15: 花分/杠分 and the losers' pairwise settlement --------------------------------------------
def player(flowers: int = 0, concealed: int = 0, exposed: int = 0) -> Player:
    p = Player()
    p.flowers = list(range(34, 34 + flowers))
    p.melds = [Meld(KONG_CONCEALED, (0,) * 4)] * concealed + [Meld(KONG_EXPOSED, (1,) * 4)] * exposed
    return p


@pytest.mark.parametrize(("flowers", "points"), [(0, 0), (3, 0), (4, 1), (5, 2), (6, 3), (8, 5)])
def test_flower_points(flowers: int, points: int) -> None:
    assert zh.points(player(flowers)) == points


def test_concealed_kong_and_five_flowers_is_four() -> None:
    assert zh.points(player(5, concealed=1)) == 4
    assert zh.points(player(0, exposed=2)) == 2


def test_losers_settle_their_points_pairwise_and_the_winner_pays_none() -> None:
    hand = after(golden()["hands"], [])
    hand.players[0].flowers = []  # E (winner below): 3 points, pays none of it
    hand.players[0].melds = [Meld(KONG_CONCEALED, (0,) * 4), Meld(KONG_EXPOSED, (1,) * 4)]
    hand.players[1].flowers = []  # S = A: 0
    hand.players[2].flowers = parse_tiles("1h 2h 3h 4h 5h")  # W = B: 2
    hand.players[3].melds = [Meld(KONG_CONCEALED, (2,) * 4), Meld(KONG_EXPOSED, (3,) * 4)]  # N = C: 3
    ctx = WinContext(0, None, "self_draw", None, "draw", list(hand.players[0].counts), hand.players[0].melds)
    result = zs.settle_win(hand, ctx, WinVerdict(["self_draw"], {"k": 2, "parts": [["self_draw", 2]]}))
    pair = next(b for b in result.breakdown if b.name == "flower_kong_points")
    assert pair.payments == {"S": -5, "W": 1, "N": 4}  # A→B 2, A→C 3, B→C 1
    main = next(b for b in result.breakdown if b.name == "hand")
    # The winner's 3 points sit in the base: (1 + 3) × 2 × R, R = 1 (streak 1).
    assert main.payments == {"E": 24, "S": -8, "W": -8, "N": -8}
    assert result.deltas == [24, -13, -7, -4]


# -- example 16: 先弃后和 -------------------------------------------------------------------------------------
FURITEN = "45m 789p 123s 456s E E E S S"  # 听 on 3m and 6m


def furiten_hands(wall: str = "") -> dict[str, str]:
    return table(
        {
            "E": "3m 1m 4p 7p 1s 7s 9s E W N C F 2p 5p 8p 9m 8s",
            "S": "6m 1m 4p 7p 1s 7s 9s W N C F 2p 5p 8p 9m 8s",
            "W": "3m 1m 4p 7p 1s 7s 9s W N C F 2p 5p 8p 9m 2s",
            "N": FURITEN,
        },
        flipped="P",
        wall=wall,
    )


def test_passing_a_win_bars_discard_wins_until_the_own_turn() -> None:
    hands = furiten_hands()
    out = run(
        hands, [act("E", "discard", "3m"), act("N", "pass"), act("S", "discard", "6m"), act("N", "win")], flipped="P"
    )
    assert out["status"] == "illegal" and "先弃后和" in out["error"]["reason"]
    acts = [act("E", "discard", "3m"), act("N", "pass"), act("S", "discard", "1m"), act("W", "discard", "3m")]
    out = run(hands, [*acts, act("N", "win")], flipped="P")
    assert out["status"] == "illegal" and "先弃后和" in out["error"]["reason"]
    out = run(hands, [act("E", "discard", "3m"), act("N", "win")], flipped="P")
    assert out["status"] == "win" and out["winner"] == "N"


def test_the_own_draw_lifts_it_and_self_draw_is_allowed() -> None:
    wall = "2m 2m 6m"
    hands = furiten_hands(wall)
    acts = [act("E", "discard", "3m"), act("N", "pass"), act("S", "discard", "1m"), act("W", "discard", "1m")]
    out = run(hands, [*acts, act("N", "draw"), act("N", "win")], flipped="P", wall=wall)
    assert out["status"] == "win" and out["self_drawn"] is True and out["winner"] == "N"


# -- example 17: 抢暗杠 and 诈胡 -------------------------------------------------------------------------------
def kong_hands(w: str) -> dict[str, str]:
    return table({"E": "4s 4s 4s 4s 1m 4m 7m 1p 4p 7p E S W N C F 9p", "W": w}, flipped="9s")


GUESSER = "123m 456m 789m 123p 5p 6p 2s 2s"  # 听 on 4p or 7p
ON_4S = "123m 456m 789m 123p 3s 5s 9p 9p"  # 听 on 4s


def guess(tile: str, w: str = GUESSER) -> dict[str, Any]:
    acts = [act("E", "kong", "4s"), act("E", "discard", "F"), act("S", "discard", "F")]
    return run(kong_hands(w), [*acts, act("W", "rob_concealed_kong", tile)], flipped="9s", tail="9m", wall="2p 2p")


def test_every_drawer_is_asked_before_the_draw_while_a_concealed_kong_stands() -> None:
    acts = [act("E", "kong", "4s"), act("E", "discard", "F")]
    hand = after(kong_hands(GUESSER), acts, flipped="9s", tail="9m", wall="2p 2p")
    scenario.close_window(hand)
    assert hand.phase == PROMPT and hand.turn == 1 and len(hand.players[1].hand) == 16
    assert Action(1, ROB_KONG, tile=T("7p")) in hand.legal_actions(1) and hand.timeout_action(1) == Action(1, PASS)
    hand.apply(Action(1, PASS))
    assert hand.phase == PLAY and len(hand.players[1].hand) == 17  # the draw went ahead


def test_wrong_guess_is_zha_hu_paid_to_each_as_a_self_draw() -> None:
    out = guess("7p")
    assert out["status"] == "draw" and out["winner"] is None
    # W pays E (1 + 2 for the 暗杠) × 2 and S, N (1 + 0) × 2.  E's 暗杠 is inside E's share, as a
    # self-drawing winner's is: no pairwise 花分/杠分 on top (paid once, not twice).
    assert out["deltas"] == {"E": 6, "S": 2, "W": -10, "N": 2}
    assert names(out) == ["false_win"]
    assert item(out, "false_win")["payments"] == {"E": 6, "S": 2, "W": -10, "N": 2}


def test_zha_hu_pays_every_payment_of_the_hand() -> None:
    # SPEC D3.4.17 "including 杠分 and 分饼": S guesses wrong after the first round was followed
    # (分饼 1 each) with E's 暗杠 (2) and N's four flowers (1) standing.
    sc = json.loads((GOLDEN.parent / "zhangzhou_false_win_pays_everything.json").read_text(encoding="utf-8"))
    want = sc.pop("expect")
    out = scenario.run(sc)
    assert matches(want, {k: out[k] for k in want})
    assert out["deltas"] == {"E": 6, "S": -14, "W": 3, "N": 5} and sum(out["deltas"].values()) == 0
    assert [b["label"] for b in out["breakdown"]] == ["诈胡", "分饼"]
    # E (1 + 2) × 2, W (1 + 0) × 2, N (1 + 1 for four flowers) × 2: their 花分/杠分 inside the share.
    assert item(out, "false_win")["payments"] == {"E": 6, "S": -12, "W": 2, "N": 4}
    assert item(out, "fenbing")["payments"] == {"S": -2, "W": 1, "N": 1}  # E's 分饼 to S is void
    # The dealer's own wrong guess: 分饼 is the dealer's to pay anyway.
    hand = after(sc["hands"], sc["actions"][:-1], flipped="9s", wall=sc["wall"], tail=sc["tail"])
    result = zs.settle_false_win(hand, 0, "7p", {})
    assert sum(result.deltas) == 0 and all(d > 0 for d in result.deltas[1:])


def test_zha_hu_settlement_sums_to_zero_for_every_claimant() -> None:
    sc = json.loads((GOLDEN.parent / "zhangzhou_false_win_pays_everything.json").read_text(encoding="utf-8"))
    hand = after(sc["hands"], sc["actions"][:-1], flipped="9s", wall=sc["wall"], tail=sc["tail"])
    for claimant in range(4):
        result = zs.settle_false_win(hand, claimant, "7p", {})
        assert sum(result.deltas) == 0
        assert result.deltas[claimant] < 0 and all(d >= 0 for s, d in enumerate(result.deltas) if s != claimant)
        for b in result.breakdown:  # nobody but the claimant pays anything
            assert all(d >= 0 for seat, d in b.payments.items() if seat != "ESWN"[claimant])


def test_right_guess_that_completes_the_hand_robs_the_kong() -> None:
    out = guess("4s", ON_4S)
    assert out["status"] == "win" and out["winner"] == "W" and out["from"] == "E"
    assert names(out)[0] == "robbing_kong" and out["deltas"] == {"E": -2, "S": -2, "W": 6, "N": -2}


def test_right_tile_but_no_win_is_still_zha_hu() -> None:
    out = guess("4s")
    assert out["status"] == "draw" and out["deltas"]["W"] == -10


def test_a_guess_only_when_asked() -> None:
    out = run(table({}), [act("E", "rob_concealed_kong", "4s")])
    assert out["status"] == "illegal" and "asked" in out["error"]["reason"]


# -- example 18: the last four tiles and 承包 ---------------------------------------------------------------
def final_hands(wall: str) -> dict[str, str]:
    return table({"W": "123m 678m 789p 111s 234s 9m", "S": "9m 1m 4p 7p 1s 4s 7s E S W N C F 9p 2p 3p"}, wall=wall)


def test_a_discard_won_in_the_final_round_is_paid_by_the_discarder() -> None:
    # dead_wall 73 leaves 6 drawable tiles: from N's draw on, the last four are being drawn.
    wall = "2s 2s 2s 6p 2m"
    acts = [act("E", "discard", "F"), act("S", "discard", "2s"), act("W", "discard", "2s"), act("N", "discard", "2s")]
    acts += [act("E", "discard", "6p"), act("S", "discard", "9m")]
    hands = final_hands(wall)
    out = run(hands, [*acts, act("W", "win")], wall=wall, options={"dead_wall": 73})
    assert out["status"] == "win" and out["winner"] == "W" and out["from"] == "S"
    assert out["deltas"] == {"E": 0, "S": -3, "W": 3, "N": 0} and "contract" in names(out)
    # The same discard earlier (before the last four) is paid by all three.
    out = run(hands, [act("E", "discard", "F"), act("S", "discard", "9m"), act("W", "win")], wall=wall)
    assert out["deltas"] == {"E": -1, "S": -1, "W": 3, "N": -1}


def test_a_winning_draw_among_the_last_four_wins_by_itself() -> None:
    wall = "2s 2s 2s 6p 2m 9m"  # dead_wall 73: six drawable tiles, W's 9m is the last
    acts = [act("E", "discard", "F"), act("S", "discard", "2s"), act("W", "discard", "2s"), act("N", "discard", "2s")]
    acts += [act("E", "discard", "6p"), act("S", "discard", "2m"), act("W", "draw")]
    hands = final_hands(wall)
    out = run(hands, acts, wall=wall, options={"dead_wall": 73})
    assert out["status"] == "win" and out["winner"] == "W" and out["self_drawn"] is True
    assert out["deltas"] == {"E": -2, "S": -2, "W": 6, "N": -2}
    # A listed win only confirms it.
    assert run(hands, [*acts, act("W", "win")], wall=wall, options={"dead_wall": 73}) == out
    # Earlier in the hand the same draw waits for the player's choice.
    hand = after(hands, [*acts[:2], act("W", "draw")], wall="2s 9m")
    assert hand.phase == PLAY and Action(2, WIN) in hand.legal_actions(2)


def test_no_winner_in_the_last_tiles_is_a_draw_and_the_dead_wall_stays() -> None:
    out = run(table({}), [], then="autoplay", options={"dead_wall": 70})
    assert out["status"] == "draw" and out["winner"] is None
    hand = after(table({}), [])
    scenario.autoplay(hand)
    assert hand.wall.remaining() == 16 and live(hand) == 0
    assert hand.result is not None and hand.result.breakdown[0].name == "exhaustive_draw"


# -- example 19: dealer rotation and the dealer streak ------------------------------------------------------
def test_dealer_rotation() -> None:
    v = get_variant(V)
    dealer_win = Result(status="win", winner=0)
    other_win = Result(status="win", winner=2)
    draw = Result(status="draw")
    false = Result(status="draw", win_kind="false_win")
    assert [v.next_dealer_offset(r) for r in (dealer_win, other_win, draw, false)] == [0, 1, 0, 1]
    assert v.next_context(dealer_win, {"dealer_streak": 2}) == {"dealer_streak": 3}
    assert v.next_context(draw, {}) == {"dealer_streak": 2}
    assert v.next_context(other_win, {"dealer_streak": 3}) == {"dealer_streak": 1}


def test_dealer_streak_multiplies_payments_with_the_dealer_only() -> None:
    sc = golden()
    sc["context"] = {"dealer_streak": 3}
    out = scenario.run(sc)
    assert out["deltas"] == {"E": -24, "S": 40, "W": -8, "N": -8}


def test_context_and_options_are_validated() -> None:
    v = get_variant(V)
    with pytest.raises(OptionsError):
        v.validate_context({"dealer_streak": 0})
    with pytest.raises(OptionsError):
        v.validate_context({"streak": 1})
    with pytest.raises(OptionsError):
        v.validate_options({"dead_wall": -1})
    assert v.validate_options({})["dead_wall"] == 16
    houses = {o.key for o in v.options_schema.all() if o.house}
    assert {"dead_wall", "k_single_you", "k_double_you", "k_triple_you", "dealer_streak_factor"} <= houses


# -- refusals and odd corners ---------------------------------------------------------------------------------
def test_the_gold_cannot_be_konged_and_a_kong_needs_a_live_tile() -> None:
    v = get_variant(V)
    hand = after(table({"E": "5m 5m 5m 1m 4m 7m 1p 4p 7p 1s 4s 7s E S W N C"}), [])
    assert v.kong_refusal(hand, 0, T("5m"), KONG_CONCEALED) == "the 金 cannot be konged"
    out = run(
        table({"E": "9m 9m 9m 9m 1m 4m 7m 1p 4p 7p 1s 4s 7s E S W N"}),
        [act("E", "kong", "9m")],
        options={"dead_wall": 79},
    )
    assert out["status"] == "illegal" and "replacement" in out["error"]["reason"]


def test_claims_answer_the_window_after_the_rob_gold_prompt() -> None:
    # S may rob the gold and also pung E's discard: the pung waits for the prompt, then goes ahead.
    hands = table({"S": "123m 456m 789p 111s F F E E"}, flipped="9s")
    out = run(hands, [act("E", "discard", "F"), act("S", "pung"), act("S", "discard", "E")], flipped="9s")
    assert out["status"] == "in_progress" and out["error"] is None


def test_prompt_refusals_explain_themselves() -> None:
    hands = table({"S": ROB}, flipped="9s")
    hand = after(hands, [act("E", "discard", "F")], flipped="9s")
    with pytest.raises(ValueError, match="waiting for S"):
        hand.apply(Action(2, PASS))
    with pytest.raises(ValueError, match="answer first"):
        hand.apply(Action(1, "discard", tile=T("E")))
    with pytest.raises(ValueError, match="三金倒"):
        hand.apply(Action(1, WIN))


def test_claim_kinds_listed_match_their_reasons_under_stand_ins() -> None:
    hands = table(
        {"E": "P 1m 4m 7m 1p 4p 7p 1s 4s 7s E S W N C F 9p", "S": "4m 6m 3m 7m 1p 4p 7p 1s 4s E S W N C F 9s"}
    )
    hand = after(hands, [act("E", "discard", "P")])
    scenario.close_prompt(hand)
    assert hand.window is not None
    for lo in range(0, 7):
        a = Action(1, CHOW, tiles=tuple(sorted({lo, lo + 1, lo + 2} - {T("5m")} | {WHITE})))
        assert (hand._claim_reason(a) is None) == (a in hand.window.options.get(1, []))
    assert Action(1, PUNG) not in hand.window.options.get(1, [])


def test_snapshot_keeps_prompt_and_you_state() -> None:
    sc = golden()
    hand = after(sc["hands"], sc["actions"][:2], wall=sc["wall"])
    again = load_hand(json.loads(json.dumps(hand.to_json())))
    assert again.to_json() == hand.to_json() and again.legal_actions(2) == hand.legal_actions(2)
    hand = after(kong_hands(GUESSER), [act("E", "kong", "4s"), act("E", "discard", "F")], flipped="9s", tail="9m")
    scenario.close_window(hand)
    again = load_hand(json.loads(json.dumps(hand.to_json())))
    assert again.legal_actions(1) == hand.legal_actions(1) and again.phase == PROMPT


# -- more of the rules: 杠上开花, 抢杠胡, the table options, a 和局 with points -------------------------------
def test_kong_bloom_doubles_and_the_winners_kong_counts_in_the_base() -> None:
    hands = table({"S": "1p 1p 1p 1p 123m 456m 789m 23s E"}, wall="E", tail="4s")
    out = run(
        hands,
        [act("E", "discard", "F"), act("S", "draw"), act("S", "kong", "1p"), act("S", "win")],
        wall="E",
        tail="4s",
    )
    assert out["status"] == "win" and names(out)[:2] == ["self_draw", "kong_bloom"]
    assert out["deltas"] == {"E": -12, "S": 36, "W": -12, "N": -12}  # (1 + 2 for the 暗杠) × 2 × 2


def test_robbing_an_added_kong() -> None:
    hands = table(
        {
            "E": "7m 2m 8m 2p 5p 8p 3s 6s 9s E S W N C F 1m 4m",
            "S": "123p 456p 789p 111s 6m 8m E E",  # waits on 7m
            "W": "7m 7m 3m 9m 1p 4p 7p 2s 5s 8s S W N C F 9s",
        },
        wall="9m 9m 9m 7m",
    )
    acts = [act("E", "discard", "7m"), act("W", "pung"), act("W", "discard", "F")]
    acts += [act("N", "discard", "9m"), act("E", "discard", "9m"), act("S", "discard", "9m")]
    acts += [act("W", "draw"), act("W", "kong", "7m"), act("S", "win")]
    out = run(hands, acts, wall="9m 9m 9m 7m")
    assert out["status"] == "win" and out["winner"] == "S" and out["from"] == "W"
    assert names(out)[0] == "robbing_kong" and out["deltas"] == {"E": -2, "S": 6, "W": -2, "N": -2}


def test_discarder_alone_option() -> None:
    hands = table({"S": "123m 678m 789p 111s 234s 5m"})
    out = run(hands, [act("E", "discard", "F"), act("S", "win")], options={"discard_payer": "discarder"})
    assert out["deltas"] == {"E": -3, "S": 3, "W": 0, "N": 0}


def test_separate_winner_points_option() -> None:
    # S exposes four flowers at the start (1 point) and self-draws from five melds and a gold
    # (replaced into that shape, no throw: plain 自摸).
    hands = table({"S": "1h 2h 3h 4h 123m 678m 789p 111s"}, tail="2s 3s 4s 5m", wall="9p")
    acts = [act("E", "discard", "F"), act("S", "draw"), act("S", "win")]
    for opt, each in (("in_base", 4), ("separate", 3)):  # (1 + 1) × 2, or 1 × 2 + 1
        out = run(hands, acts, tail="2s 3s 4s 5m", wall="9p", options={"winner_points": opt})
        assert out["winner"] == "S" and out["deltas"] == {"E": -each, "S": 3 * each, "W": -each, "N": -each}


@pytest.mark.parametrize("allowed", [True, False])
def test_wins_on_forced_discards_follow_the_table_option(allowed: bool) -> None:
    v = get_variant(V)
    hand = after(furiten_hands(), [], flipped="P", options={"double_you_discard_win": allowed})
    hand.state.double_you = [1]  # S is 双游: W's forced 3m may (or may not) be won by N
    verdict = v.evaluate_win(hand, hand.claim_win_context(3, "discard", 2, T("3m")))
    assert isinstance(verdict, WinVerdict) == allowed
    assert v.pung_refusal(hand, 3, T("E")) is not None  # and never a chow or pung meanwhile


def test_draw_settles_everyones_points_pairwise() -> None:
    hands = table({"S": "1h 2h 3h 4h 5h 2m 8m 3p 6p 9p 1s 4s 7s E S W"})
    out = run(hands, [], tail="9p 9p 9m 9m 9m", then="autoplay", options={"dead_wall": 79})
    assert out["status"] == "draw"
    assert out["deltas"] == {"E": -2, "S": 6, "W": -2, "N": -2}  # S: five flowers, 2 points, from each
    assert names(out) == ["exhaustive_draw", "flower_kong_points"]


def test_contract_moves_the_winners_fenbing_to_the_discarder() -> None:
    hand = after(golden()["hands"], [])
    hand.state.fenbing = [1, False]
    hand.state.final_round = True
    p = hand.players[2]
    ctx = WinContext(2, T("9m"), "discard", 1, "claim", list(p.counts), [])
    result = zs.settle_win(hand, ctx, WinVerdict(["discard"], {"k": 1, "parts": [["discard", 1]]}))
    fen = next(b for b in result.breakdown if b.name == "fenbing")
    assert fen.payments == {"E": -2, "N": 1, "W": 1}  # S gets 1 from E and pays W's 1 itself
    assert result.deltas == [-2, -3, 4, 1]  # S pays W's three shares and W's 分饼; E still pays S and N


def test_dealer_cannot_kong_while_the_others_decide_on_rob_gold() -> None:
    hands = table({"E": "9m 9m 9m 9m 2m 8m 2p 5p 8p 3s 6s E S W N C F", "S": ROB}, flipped="9s")
    hand = after(hands, [], flipped="9s")
    assert not any(a.kind == "kong" for a in hand.legal_actions(0))
    out = run(hands, [act("E", "kong", "9m")], flipped="9s")  # the runner lets S pass first
    assert out["status"] == "in_progress" and out["error"] is None


def test_views_keep_the_prompt_private() -> None:
    hands = table({"S": ROB}, flipped="9s")
    hand = after(hands, [], flipped="9s")
    assert hand.view(1)["legal_actions"] == [{"seat": "S", "do": "rob_gold"}, {"seat": "S", "do": "pass"}]
    assert hand.view(2)["legal_actions"] == [] and hand.public_view()["legal_actions"] == []
    assert "prompt" not in json.dumps(hand.public_view())
