"""D1 (浙东得麻将 腊子): the worked examples of spec/rules/SPEC.md §D1.4, and the rules around them.

Unless a test says otherwise the 得 is 1p (flipped 1p), E is the dealer, and the filler tiles of
each hand are chosen to score nothing, so every loser total is the one the example names.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from games.engine.bots import RandomBot
from games.engine.hand import CLAIM, ENDED
from games.engine.scenario import close_window
from games.engine.simulate import play_hand
from games.engine.state import CHOW, KONG_ADDED, MELD_CHOW, PUNG, WIN, Action, Result
from games.engine.tiles import WHITE, parse_tile, parse_tiles, tile_str
from games.engine.variants import get_variant
from games.engine.variants.zhedong_de.rules import GUO_PENG, next_kind
from tests.engine.rig import act, fill_hands, hand_after, run

V = "zhedong_de"


def play(hands: dict[str, str], actions: list[dict[str, Any]], flipped: str = "1p", **extra: Any) -> dict[str, Any]:
    return run(V, hands, actions, flipped=flipped, **extra)


def total_of(out: dict[str, Any], seat: str) -> int:
    return int(next(b["value"] for b in out["breakdown"] if b["name"] == f"{seat}:total"))


def line(out: dict[str, Any], name: str) -> dict[str, Any]:
    return next(b for b in out["breakdown"] if b["name"] == name)


# -- the golden scenario's hand: S wins on E's 5s, 嵌档 --------------------------------------------
GOLDEN = {
    "E": "5s 2m 3m 7m 3p 6p 9p 1s 8s 9s E W N F",
    "S": "SSS 999m 234p 4s 6s CC",
    "W": "1m 4m 5m 8m 5p 8p 2s 3s 7s S N P F",
    "N": "6m 7m 4p 7p 2p 3s 7s 8s E W N P C",
}


def test_golden_hand_concealed_wind_triplet() -> None:
    out = play(GOLDEN, [act("E", "discard", "5s"), act("S", "win")])
    assert out["status"] == "win" and out["winner"] == "S" and out["from"] == "E"
    # SSS 暗刻 8 (门风 1番) + 999m 8 + 嵌档 2 + CC 2 = 20 -> (20 + 10) x 2 = 60.
    assert total_of(out, "S") == 60
    assert out["deltas"] == {"E": -60, "S": 120, "W": -30, "N": -30}


# -- examples 2-4: S's exposed SSS, the 嵌档 by discard and by self-draw, the losers' settlement ---
# E leads S; S pungs and throws F; E pungs F (E's loser total: FFF 4 x 2 = 8) and throws 5s or 9p.
EX2 = {
    "E": "S F F 5s 1m 2m 3m 5m 6m 7m 5p 6p 7p 8s",
    "S": "S S F 9m 9m 9m 2p 3p 4p 4s 6s C C",
    "W": "4m 4m 4m 8m 8p 9p 1s 2s 3s 7s W N E",  # 444m 暗刻: 4
    "N": "1m 2m 3m 6p 7p 8p 2s 3s 4s 9s N W P",  # nothing: 0
}
EX2_OPEN = [act("E", "discard", "S"), act("S", "pung"), act("S", "discard", "F"), act("E", "pung")]


def test_example_2_and_4_discard_win_and_loser_settlement() -> None:
    out = play(EX2, [*EX2_OPEN, act("E", "discard", "5s"), act("S", "win")])
    assert out["winner"] == "S" and out["from"] == "E"
    assert total_of(out, "S") == 52  # SSS 4 (1番) + 999m 8 + 嵌档 2 + CC 2 = 16 -> 26 x 2
    assert (total_of(out, "E"), total_of(out, "W"), total_of(out, "N")) == (8, 4, 0)
    assert line(out, "pay_winner")["payments"] == {"E": -52, "S": 104, "W": -26, "N": -26}
    # W pays E 4 (dealer pair: the full difference); N pays E 8; N pays W (4 - 0) / 2 = 2.
    assert line(out, "losers")["payments"] == {"E": 12, "W": -2, "N": -10}
    assert out["deltas"] == {"E": -40, "S": 104, "W": -28, "N": -36}


def test_example_3_closed_wait_self_drawn_is_4() -> None:
    hands = dict(EX2, E="S F F 9p 1m 2m 3m 5m 6m 7m 5p 6p 7p 8s")
    out = play(hands, [*EX2_OPEN, act("E", "discard", "9p"), act("S", "draw"), act("S", "win")], wall="5s")
    assert out["self_drawn"] is True
    assert line(out, "S:wait_closed")["value"] == 4
    assert total_of(out, "S") == 56  # (18 + 10) x 2
    assert line(out, "pay_winner")["payments"] == {"E": -56, "S": 112, "W": -28, "N": -28}
    assert out["deltas"] == {"E": -44, "S": 112, "W": -30, "N": -38}


# -- example 5: the dealer wins ------------------------------------------------------------------
EX5 = {
    "E": "E E 1m 2m 4m 5m 6m 7s 8s 9s 3p 3p 9p N",
    "S": "S S S E 3m 7m 8m 9m 5p 6p 7p 2s 3s",  # SSS 暗刻 8, 门风 1番: 16
    "W": "4s 4s 4s 2m 6m 8m 2p 4p 6p 8p W C F",  # 444s: 4
    "N": "1m 9m 1s 5s 6s 8s 2p 4p 6p 8p 9p N P",  # 0
}


def test_example_5_dealer_wins_on_edge_wait() -> None:
    actions = [
        act("E", "discard", "9p"),
        act("S", "discard", "E"),
        act("E", "pung"),
        act("E", "discard", "N"),
        act("S", "discard", "3m"),
        act("E", "win"),
    ]
    out = play(EX5, actions)
    assert out["winner"] == "E" and out["from"] == "S"
    assert total_of(out, "E") == 28  # EEE 4 (1番) + 靠柄 0 -> (4 + 10) x 2
    assert "E:wait_edge" not in {b["name"] for b in out["breakdown"]}  # 靠柄 by discard: 0
    assert (total_of(out, "S"), total_of(out, "W"), total_of(out, "N")) == (16, 4, 0)
    assert line(out, "pay_winner")["payments"] == {"E": 84, "S": -28, "W": -28, "N": -28}
    # Between non-dealers, half the difference: W pays S 6, N pays S 8, N pays W 2.
    assert line(out, "losers")["payments"] == {"S": 14, "W": -4, "N": -10}
    assert out["deltas"] == {"E": 84, "S": -14, "W": -32, "N": -38}


def test_edge_wait_self_drawn_is_2() -> None:
    hands = dict(EX5, S="S S S E 5m 7m 8m 9m 5p 6p 7p 2s 3s")
    actions = [
        act("E", "discard", "9p"),
        act("S", "discard", "E"),
        act("E", "pung"),
        act("E", "discard", "N"),
        act("S", "discard", "5m"),
        act("W", "discard", "W"),
        act("N", "discard", "N"),
        act("E", "draw"),
        act("E", "win"),
    ]
    out = play(hands, actions, wall="1s 1s 1s 2s 3m")
    assert out["winner"] == "E" and out["self_drawn"] is True, out["error"]
    assert line(out, "E:wait_edge")["value"] == 2
    assert total_of(out, "E") == 32  # (4 + 2 + 10) x 2


# -- example 6: 腊子 -------------------------------------------------------------------------------
def test_example_6_laizi_every_loser_pays_100() -> None:
    hands = {
        "E": "5m 1m 2m 3m 6m 7m 3p 4p 6p 7p 8p 9s W N",
        "S": "S S S C C C F F F 2m 3m 4m 5m",  # SSS CCC FFF 暗刻: 24, 3番 -> 34 x 8 = 272
        "W": "1m 4m 8m 2p 5p 8p 1s 4s 7s E W N P",
        "N": "6m 9m 3p 9p 2s 3s 5s 6s 8s E W N P",
    }
    out = play(hands, [act("E", "discard", "5m"), act("S", "win")])
    assert total_of(out, "S") == 100
    assert "腊子" in line(out, "S:total")["label"]
    assert out["deltas"] == {"E": -100, "S": 300, "W": -100, "N": -100}


# -- examples 7-8: non-winners score without wilds; undeclared fours are 暗刻 ----------------------
def test_examples_7_and_8_loser_de_at_face_value_and_undeclared_fours() -> None:
    hands = dict(
        GOLDEN,
        W="1s 1s 1s 9m 9m 9m 9m 5m 5m 5m 5m E N",  # 得 = 1s: a 1s 暗刻 8; four 9m 8; four 5m 4
    )
    hands["E"] = "5s 2m 3m 7m 3p 6p 9p 2s 8s 9s E W N F"
    hands["S"] = "SSS 888m 234p 4s 6s CC"
    out = play(hands, [act("E", "discard", "5s"), act("S", "win")], flipped="1s")
    assert total_of(out, "W") == 20


# -- example 9: 黄牌 at 14 + 2k tiles left --------------------------------------------------------
@pytest.mark.parametrize(("kongs", "left"), [(0, 14), (1, 16), (3, 20)])
def test_example_9_exhaustive_draw(kongs: int, left: int) -> None:
    dealer = ["7m 7m 7m 7m", "8m 8m 8m 8m", "9m 9m 9m 9m"][:kongs]
    rest = "1s 2s 3s 4s 5s 6s 7s 8s 9s 1m 2m 3m 4m 5m"
    e = " ".join(dealer) + " " + " ".join(rest.split()[: 14 - 4 * kongs])
    hands = {
        "E": e,
        "S": "1m 2m 3m 4m 5m 6m 2p 3p 4p 5p 6p 7p E",
        "W": "1s 2s 3s 4s 5s 6s 7s 8s 9s 2p 3p 4p S",
        "N": "1s 2s 3s 4s 5s 6s 7s 8s 9s 5p 6p 7p W",
    }
    actions = [act("E", "kong", t) for t in ("7m", "8m", "9m")[:kongs]]
    out = play(hands, actions, then="autoplay")
    assert out["status"] == "draw"
    assert out["wall_left"] == left
    assert out["deltas"] == {"E": 0, "S": 0, "W": 0, "N": 0}
    assert get_variant(V).next_dealer_offset(Result(status="draw")) == 1  # the deal passes to 南


def test_dealer_keeps_the_deal_only_by_winning() -> None:
    v = get_variant(V)
    assert v.next_dealer_offset(Result(status="win", winner=0, deltas=[3, -1, -1, -1])) == 0
    assert v.next_dealer_offset(Result(status="win", winner=2, deltas=[-1, -1, 3, -1])) == 1


# -- examples 10-11: one winner, 下家 then 对家 then 上家; 和 > 碰 > 吃 -------------------------------
def wait_6m(extra: str) -> str:
    return "1m 2m 3m 4m 5m 2p 3p 4p 7s 8s 9s " + extra  # waits on 3m/6m


def test_example_10_head_bump_order() -> None:
    hands = {
        "E": "1s 2s 4s 5s 7s 8s 9p 9p E W N C F P",
        "S": wait_6m("S S"),
        "W": "6m 7p 8p 9p 3s 6s 9s 5p 6p E N C F",
        "N": wait_6m("N N"),
    }
    # S draws 2s and throws it (still waiting on 3m/6m); W draws 3s and throws 6m.
    actions = [act("E", "discard", "E"), act("S", "discard", "2s"), act("W", "discard", "6m")]
    out = play(hands, [*actions, act("S", "win"), act("N", "win")], wall="2s 3s")
    assert out["winner"] == "N"  # W's 下家 before W's 上家
    # Only E and S: E (对家) before S (上家).
    hands2 = {
        "E": wait_6m("E E 1s"),
        "S": wait_6m("S S"),
        "W": "6m 7p 8p 5p 3s 6s 9s 6p 1m 7m N F P",
        "N": "6p 7p 8p 2s 3s 4s W W 5s 6s 7s C C",
    }
    actions2 = [act("E", "discard", "1s"), act("S", "discard", "2s"), act("W", "discard", "6m")]
    out2 = play(hands2, [*actions2, act("S", "win"), act("E", "win")], wall="2s 3s")
    assert out2["winner"] == "E"


def test_example_11_priority_win_over_pung_over_chow() -> None:
    hands = {
        "E": "1s 2s 4s 5s 7s 8s 9p 9p E W N C F P",
        "S": "5m 5m 1p 2p 3p 7s 8s 9s E 4p 7p S S",
        "W": "5m 2m 8p 3s 6s 9s 5p 6p 9m E N C W",
        "N": "3m 4m 6m 8m 9m 2p 3s 6s 9s W N F P",
    }
    actions = [act("E", "discard", "E"), act("S", "discard", "S"), act("W", "discard", "5m")]
    hand = hand_after(V, hands, [*actions, act("N", "chow", tiles="345m"), act("S", "pung")], flipped="1p")
    assert hand.players[1].melds[-1].kind == "pung" and not hand.players[3].melds
    # E can win on it too: E takes it.
    hands_e = dict(hands, E="1s 2s 3s 4s 5s 6s 7s 8s 9s 2p 3p 4p 5m E")
    hands_e["W"] = "5m 2m 8p 1m 6s 9s 5p 6p 9m S N C W"
    claims = [act("N", "chow", tiles="345m"), act("S", "pung"), act("E", "win")]
    out = play(hands_e, [act("E", "discard", "E"), act("S", "discard", "S"), act("W", "discard", "5m"), *claims])
    assert out["winner"] == "E" and out["from"] == "W"


# -- example 12: 过碰 until the player's next draw --------------------------------------------------
def test_example_12_passed_pung_blocks_the_same_kind_until_a_draw() -> None:
    hands = {
        "E": "5m 1s 2s 4s 7s 8s 9p 9p E W N C F P",
        "S": "5m 2m 8p 3s 6s 9s 5p 6p 9m E N C W",
        "W": "3m 4m 6m 8m 9m 2p 3s 6s 9s W N F P",
        "N": "5m 5m 1m 2p 3p 7s 8s 9s E 4p 7p S S",
    }
    hand = hand_after(V, hands, [act("E", "discard", "5m"), act("S", "discard", "5m")], flipped="1p")
    assert hand.phase == CLAIM and hand.window is not None
    assert Action(3, PUNG) not in hand.legal_actions(3)
    reason = hand.refusal(Action(3, PUNG))
    assert reason is not None and "过碰" in reason
    assert GUO_PENG not in hand.view(0)["players"][3]["flags"]  # the others never see it
    # After N's own draw the flag is gone.
    hand = hand_after(
        V,
        hands,
        [act("E", "discard", "5m"), act("S", "discard", "5m"), act("W", "discard", "W"), act("N", "discard", "E")],
        flipped="1p",
    )
    assert GUO_PENG not in hand.players[3].flags


def test_pung_passed_then_other_kind_still_allowed() -> None:
    hands = {
        "E": "5m 1s 2s 4s 7s 8s 9p 9p E W N C F P",
        "S": "S 2m 8p 3s 6s 9s 5p 6p 9m E N C W",
        "W": "3m 4m 6m 8m 9m 2p 3s 6s 9s W N F P",
        "N": "5m 5m 1m 2p 3p 7s 8s 9s E 4p 7p S S",
    }
    out = play(hands, [act("E", "discard", "5m"), act("S", "discard", "S"), act("N", "pung")])
    assert out["status"] == "in_progress"


# -- example 13: a discarded 得 is dead --------------------------------------------------------------
@pytest.mark.parametrize(
    ("claim", "why"),
    [
        (act("S", "chow", tiles="123p"), "得"),
        (act("W", "pung"), "得"),
        (act("N", "win"), "得"),
    ],
)
def test_example_13_discarded_de_cannot_be_claimed(claim: dict[str, Any], why: str) -> None:
    hands = {
        "E": "1p 1s 2s 4s 7s 8s 9p 9p E W N C F P",
        "S": "2p 3p 2m 8p 3s 6s 9s 5p 6p E N C W",
        "W": "1p 1p 6m 8m 9m 2p 3s 6s 9s W N F P",
        "N": "1m 2m 3m 4m 5m 6m 7m 8m 9m 2s 3s 4s 5s",
    }
    out = play(hands, [act("E", "discard", "1p"), claim], flipped="1p")
    assert out["status"] == "illegal" and why in out["error"]["reason"]


def test_de_in_hand_takes_no_part_in_claims() -> None:
    hands = {
        "E": "2p 1s 2s 4s 7s 8s 9p 9p E W N C F P",
        "S": "1p 3p 2m 8p 3s 6s 9s 5p 6p E N C W",
        "W": "1p 2p 6m 8m 9m 7p 3s 6s 9s W N F P",
        "N": "1m 2m 3m 4m 5m 6m 7m 8m 9m 2s 3s 4s 5s",
    }
    out = play(hands, [act("E", "discard", "2p"), act("S", "chow", tiles="123p")])
    assert out["status"] == "illegal" and "得" in out["error"]["reason"]
    out = play(hands, [act("E", "discard", "2p"), act("W", "pung")])
    assert out["status"] == "illegal"  # one natural 2p and a 得: no pung


# -- example 14: 白板 plays the 得's face -------------------------------------------------------------
def test_example_14_white_completes_a_run_in_a_win() -> None:
    # 得 = 1s.  S: P 2s 3s (P as 1s) + 456m 789m 555p + 9s, wins on 9s 单吊.
    hands = {
        "E": "9s 1m 2m 3m 6p 7p 8p 2p 3p E W N C F",
        "S": "P 2s 3s 4m 5m 6m 7m 8m 9m 5p 5p 5p 9s",
        "W": "1m 4m 8m 1p 4p 7p 4s 7s E S W N C",
        "N": "2m 6m 3p 6p 9p 5s 6s 8s E S W N F",
    }
    out = play(hands, [act("E", "discard", "9s"), act("S", "win")], flipped="1s")
    assert out["winner"] == "S"
    assert total_of(out, "S") == 14  # 555p 暗刻 4 + 10


def test_white_pair_scores_as_a_dragon_pair_when_that_is_better() -> None:
    # 得 = 1s.  S: PP + 234m 567m 234p 678p, wins on 8p (two-sided): PP as 白 pair = 2.
    hands = {
        "E": "8p 1m 9m 1p 9p 1s 9s E W N C F C F",
        "S": "P P 2m 3m 4m 5m 6m 7m 2p 3p 4p 6p 7p",
        "W": "1m 4m 8m 5p 4s 7s E S W N C F 8m",
        "N": "2m 6m 3p 9p 5s 6s 8s E S W N 3s 2s",
    }
    out = play(hands, [act("E", "discard", "8p"), act("S", "win")], flipped="1s")
    assert total_of(out, "S") == 12  # pair 2 + 10
    assert line(out, "S:pair")["label"].endswith("PP")


def test_chow_with_white_standing_for_the_de() -> None:
    hands = {
        "E": "2s 1m 2m 3m 6p 7p 8p 2p 3p E W N C F",
        "S": "P 3s 4m 5m 6m 7m 8m 9m 5p 5p 5p 9s E",
        "W": "1m 4m 8m 1p 4p 7p 4s 7s E S W N C",
        "N": "2m 6m 3p 6p 9p 5s 6s 8s E S W N F",
    }
    hand = hand_after(V, hands, [act("E", "discard", "2s")], flipped="1s")
    assert Action(1, CHOW, tiles=tuple(sorted(parse_tiles("P 2s 3s")))) in hand.legal_actions(1)
    hand = hand_after(V, hands, [act("E", "discard", "2s"), act("S", "chow", tiles="P23s")], flipped="1s")
    meld = hand.players[1].melds[0]
    assert meld.kind == MELD_CHOW and WHITE in meld.tiles and hand.players[1].counts[WHITE] == 0
    # A discarded 白板 may be chowed as the 得's face.
    hands2 = dict(hands, E="P 1m 2m 3m 6p 7p 8p 2p 3p E W N C F", S="2s 3s 4m 5m 6m 7m 8m 9m 5p 5p 5p 9s E")
    hand = hand_after(V, hands2, [act("E", "discard", "P")], flipped="1s")
    assert Action(1, CHOW, tiles=tuple(sorted(parse_tiles("P 2s 3s")))) in hand.legal_actions(1)


def test_no_stand_in_when_the_de_is_white() -> None:
    hands = {
        "E": "P 1m 2m 3m 6p 7p 8p 2p 3p E W N C F",
        "S": "2s 3s 4m 5m 6m 7m 8m 9m 5p 5p 5p 9s E",
        "W": "1m 4m 8m 1p 4p 7p 4s 7s E S W N C",
        "N": "2m 6m 3p 6p 9p 5s 6s 8s E S W N F",
    }
    hand = hand_after(V, hands, [act("E", "discard", "P")], flipped="P")
    assert hand.variant.chow_stand_ins(hand) == {}
    assert not [a for a in hand.legal_actions(1) if a.kind == CHOW]


# -- example 15: 抢杠 of an added kong --------------------------------------------------------------
def test_example_15_robbing_an_added_kong() -> None:
    hands = {
        "E": "7p 1s 2s 4s 5s 7s 8s 9m 9m E W N C F",
        "S": "7p 7p 1m 2m 3m 4m 5m 6m 2s 3s 4s W N",
        "W": "5p 6p 1m 2m 3m 4m 5m 6m 7m 8m 9m S S",
        "N": "1s 3s 6s 9s 2p 3p 4p 8p 9p E S C P",
    }
    actions = [
        act("E", "discard", "7p"),
        act("S", "pung"),
        act("S", "discard", "W"),
        act("W", "discard", "N"),
        act("N", "discard", "E"),
        act("E", "discard", "W"),
        act("S", "draw"),
        act("S", "kong", "7p"),
        act("W", "win"),
    ]
    out = play(hands, actions, wall="N E W 7p")
    assert out["status"] == "win" and out["winner"] == "W" and out["from"] == "S"
    assert total_of(out, "S") == 2  # the robbed set: 明刻 7p, 2
    assert not [b for b in out["breakdown"] if "rob" in b["name"]]  # 抢杠和没有加分


# -- example 16: 清一色 包 ---------------------------------------------------------------------------
PURE = {
    "E": "2m 8m 1s 2s 4s 7s 8s 9p 2p E W N C F",
    "S": "1m 3m 5m 5m 7m 9m 1m 1m 1m 4m E W N",
    "W": "5m 4m 2p 5p 8p 3s 6s 9s S W N C F",
    "N": "6m 3p 6p 7p 5s 6s 9s E S W N C P",
}
PURE_PLAY = [
    act("E", "discard", "2m"),
    act("S", "chow", tiles="123m"),
    act("S", "discard", "E"),
    act("W", "discard", "5m"),
    act("S", "pung"),
    act("S", "discard", "W"),
    act("W", "discard", "S"),
    act("N", "discard", "E"),
    act("E", "discard", "8m"),
    act("S", "chow", tiles="789m"),
    act("S", "discard", "N"),
]


def test_example_16_pure_suit_liability() -> None:
    out = play(PURE, [*PURE_PLAY, act("W", "discard", "4m"), act("S", "win")], wall="1s 9p 2p")
    assert out["winner"] == "S" and out["from"] == "W"
    assert total_of(out, "S") == 20  # 555m 明刻 2 + 111m 暗刻 8 + 10
    assert "S:pure_one_suit" in {b["name"] for b in out["breakdown"]}
    bao = line(out, "baopai")
    assert bao["payments"] == {"S": 40, "W": -40}
    assert out["deltas"] == {"E": 0, "S": 40, "W": -40, "N": 0}


def test_pure_suit_liability_needs_three_exposed_sets() -> None:
    # Only two exposed sets (no 789m chow): W's 4m is paid normally.
    play_two = [*PURE_PLAY[:8], act("E", "discard", "8m"), act("S", "discard", "3s")]
    hands = dict(PURE, S="1m 3m 5m 5m 7m 8m 9m 1m 1m 1m 4m E W")
    out = play(hands, [*play_two, act("W", "discard", "4m"), act("S", "win")], wall="1s 9p 2p 3s 3s 6s")
    assert out["winner"] == "S"
    assert "baopai" not in {b["name"] for b in out["breakdown"]}


# -- example 17: 大三元 包 ---------------------------------------------------------------------------
DRAGONS3 = {
    "E": "C 8m 1s 2s 4s 7s 8s 9p 2p E W N 3p 5s",
    "S": "C C F F P P 2m 3m 4m 5p 5p E W",
    "W": "F P 2p 5p 8p 3s 6s 9s S W N 1m 7m",
    "N": "6m 3p 6p 7p 5s 6s 9s E S W N 4m 9m",
}


def test_example_17_big_dragons_liability() -> None:
    actions = [
        act("E", "discard", "C"),
        act("S", "pung"),
        act("S", "discard", "E"),
        act("W", "discard", "F"),
        act("S", "pung"),
        act("S", "discard", "W"),
        act("W", "discard", "P"),
        act("S", "win"),
    ]
    out = play(DRAGONS3, actions, wall="1s 9p")
    assert out["winner"] == "S" and total_of(out, "S") == 100
    assert "S:big_dragons" in {b["name"] for b in out["breakdown"]}
    assert line(out, "baopai")["payments"] == {"S": 300, "W": -300}


def test_big_dragons_on_a_seen_dragon_is_not_liable() -> None:
    hands = dict(DRAGONS3, E="P 8m 1s 2s 4s 7s 8s 9p 2p E W N 3p 5s", W="C F P 2p 5p 8p 3s 6s 9s S W N 1m")
    actions = [
        act("E", "discard", "P"),  # 白 is now 熟 (S passes the pung)
        act("S", "discard", "7m"),
        act("W", "discard", "C"),
        act("S", "pung"),
        act("S", "discard", "E"),
        act("W", "discard", "F"),
        act("S", "pung"),
        act("S", "discard", "W"),
        act("W", "discard", "P"),
        act("S", "win"),
    ]
    out = play(hands, actions, wall="7m 1s 9p 8p")
    assert out["winner"] == "S" and total_of(out, "S") == 100
    assert "baopai" not in {b["name"] for b in out["breakdown"]}
    assert line(out, "pay_winner")["payments"] == {"E": -100, "S": 300, "W": -100, "N": -100}


def test_self_inflicted_dragon_liability() -> None:
    # W discards a 生 中 far from ready (shanten >= 2) and N wins on it: W pays for all.
    hands = {
        "E": "1s 2s 4s 5s 7s 8s 9p 9p E W N F P 3m",
        "S": "2m 8p 3s 6s 9s 5p 6p 9m E N F W S",
        "W": "C 1m 4m 7m 2p 5p 8p 3s 6s 9s E S N",
        "N": "C 1m 2m 3m 4m 5m 6m 7m 8m 9m 2s 3s 4s",
    }
    out = play(hands, [act("E", "discard", "3m"), act("S", "discard", "S"), act("W", "discard", "C"), act("N", "win")])
    assert out["winner"] == "N" and out["from"] == "W"
    bao = line(out, "baopai")
    assert set(bao["payments"]) == {"N", "W"}
    # A ready discarder pays only their share.
    hands["W"] = "C 1m 2m 3m 4m 5m 6m 2p 3p 4p 7s 8s 9s"
    hands["N"] = "C 7m 8m 9m 4p 5p 6p 1s 2s 3s 2s 3s 4s"
    out = play(hands, [act("E", "discard", "3m"), act("S", "discard", "S"), act("W", "discard", "C"), act("N", "win")])
    assert "baopai" not in {b["name"] for b in out["breakdown"]}


# -- example 18: 小三元 ------------------------------------------------------------------------------
SMALL = {
    "E": "C 8m 1s 2s 4s 7s 8s 9p 2p E W N 3p 5s",
    "S": "C C F F P P 2m 3m 4m 5p 6p E W",
    "W": "F 7p 2p 5p 8p 3s 6s 9s S W N 1m 7m",
    "N": "6m 3p 6p 9p 5s 6s 9s E S W N 4m 9m",
}
SMALL_PLAY = [
    act("E", "discard", "C"),
    act("S", "pung"),
    act("S", "discard", "E"),
    act("W", "discard", "F"),
    act("S", "pung"),
    act("S", "discard", "W"),
    act("W", "discard", "7p"),
    act("S", "win"),
]


@pytest.mark.parametrize(("extra", "total"), [(0, 80), (2, 100)])
def test_example_18_small_dragons(extra: int, total: int) -> None:
    out = play(SMALL, SMALL_PLAY, wall="1s", options={"fan_small_dragons_extra": extra})
    assert out["winner"] == "S"
    assert total_of(out, "S") == total  # (4 + 4 + 2 + 10) x 2^2 = 80; additive: x 2^4 = 320 -> 100
    assert "S:small_dragons" in {b["name"] for b in out["breakdown"]}
    assert "baopai" not in {b["name"] for b in out["breakdown"]}


# -- the deal and the 得 ----------------------------------------------------------------------------
@pytest.mark.parametrize("seed", ["a", "b", "c"])
def test_deal_flips_the_de_out_of_play(seed: str) -> None:
    hand = get_variant(V).new_hand(seed=seed)
    assert [len(p.hand) for p in hand.players] == [14, 13, 13, 13]
    assert hand.wall.remaining() == 82
    pos = next(iter(hand.wall.face_up))
    assert hand.wall.tiles[pos] == hand.state.flipped == hand.state.wilds[0]
    assert hand.public_view()["table"]["de"]


def test_de_next_mode() -> None:
    assert [next_kind(parse_tile(t)) for t in ("9m", "5p", "N", "P", "E")] == parse_tiles("1m 6p E C S")
    hand = get_variant(V).new_hand({"de_from": "next"}, seed="n")
    assert hand.state.wilds == [next_kind(hand.state.flipped)]


def test_win_needs_a_shape_and_self_draw_of_a_de_wins() -> None:
    # S holds 13 tiles waiting on anything for the 单吊 + a 得; drawing a 得 completes (as any tile).
    hands = dict(GOLDEN, S="SSS 999m 234p 456s 1p")
    out = play(hands, [act("E", "discard", "5s"), act("S", "draw"), act("S", "win")], wall="1p")
    assert out["winner"] == "S" and out["self_drawn"] is True
    # Two 得 as a 中 pair (单吊 on a dragon, self-drawn 4): 8 + 8 + 2 + 4 = 22; 1番 -> 64.
    assert total_of(out, "S") == 64
    out = play(GOLDEN, [act("E", "discard", "5s"), act("W", "win")])
    assert out["status"] == "illegal" and out["error"]["reason"] == "not a winning hand"


def test_claim_options_agree_with_reasons() -> None:
    import random

    from games.engine.hand import Hand

    def check(hand: Hand) -> None:
        w = hand.window
        assert w is not None
        for seat in range(4):
            if seat == w.seat:
                continue
            t = w.tile
            cands = [Action(seat, WIN), Action(seat, PUNG)]
            runs = [(lo, lo + 1, lo + 2) for lo in range(27) if lo % 9 <= 6]
            for run_ in runs:
                for i in range(4):
                    tiles = list(run_)
                    if i < 3:
                        tiles[i] = WHITE
                    if t in tiles:
                        cands.append(Action(seat, CHOW, tiles=tuple(sorted(tiles))))
            offered = w.options.get(seat, [])
            for a in cands:
                assert (hand._claim_reason(a) is None) == (a in offered), (a, hand._claim_reason(a), offered)

    for seed in range(25):
        rng = random.Random(seed)
        hand = get_variant(V).new_hand(seed=f"agree-{seed}")
        while hand.phase != ENDED:
            if hand.phase == CLAIM:
                check(hand)
            seat = rng.choice([s for s in range(4) if hand.legal_actions(s)])
            acts = hand.legal_actions(seat)
            special = [a for a in acts if a.kind in (WIN, PUNG, CHOW, "kong")]
            hand.apply(rng.choice(special) if special and rng.random() < 0.6 else rng.choice(acts))


def test_added_kong_meld_kind() -> None:
    # The added kong completes when nobody robs it.
    hands = dict(
        {
            "E": "7p 1s 2s 4s 5s 7s 8s 9m 9m E W N C F",
            "S": "7p 7p 1m 2m 3m 4m 5m 6m 2s 3s 4s W N",
            "W": "5p 8p 1m 2m 3m 4m 5m 6m 7m 8m 9m S S",
            "N": "1s 3s 6s 9s 2p 3p 4p 8p 9p E S C P",
        }
    )
    actions = [
        act("E", "discard", "7p"),
        act("S", "pung"),
        act("S", "discard", "W"),
        act("W", "discard", "N"),
        act("N", "discard", "E"),
        act("E", "discard", "W"),
        act("S", "draw"),
        act("S", "kong", "7p"),
    ]
    hand = hand_after(V, hands, actions, flipped="1p", wall="N E W 7p", tail="9s")
    close_window(hand)  # nobody robs it
    assert hand.players[1].melds[0].kind == KONG_ADDED
    assert hand.kongs_made == 1


# -- D1.3 item 15: no kong into the reserve -----------------------------------------------------
KONGER_FILL = "2s 3s 4s 5s 6s 8s 9s N W S C F E P"
LEFT_AFTER_17TH_DRAW = {"S": 17, "W": 16, "N": 15, "E": 14}


def late_fourth(holder: str, drawer: str) -> tuple[dict[str, Any], int]:
    """A rigged hand: ``holder`` holds three 7m and ``drawer`` draws the fourth on its 17th draw.

    Every seat discards the tile it drew (the dealer first throws a filler), so the tiles left
    after that draw depend only on the drawer's place in the turn order.  The actions end with
    the drawer's draw; returns the scenario and the tiles left then.
    """
    size = 14 if holder == "E" else 13
    hands = fill_hands({holder: "7m 7m 7m " + " ".join(KONGER_FILL.split()[: size - 3])}, avoid="7m")
    pool = Counter(get_variant(V).tile_set({}))
    for h in hands.values():
        pool.subtract(parse_tiles(h))
    pool[parse_tile("1p")] -= 1  # the flipped 得: out of play
    drawable = sum(pool.values())
    pool[parse_tile("7m")] -= 1  # the fourth, placed below
    draws_before = 4 * 16 + "SWNE".index(drawer)
    wall = [tile_str(t) for t in sorted(pool.elements())[:draws_before]] + ["7m"]
    first = next(tile_str(t) for t in parse_tiles(hands["E"]) if tile_str(t) != "7m")
    actions: list[dict[str, Any]] = [act("E", "discard", first)]
    actions += [act("SWNE"[i % 4], "discard", tile) for i, tile in enumerate(wall[:-1])]
    actions.append(act(drawer, "draw"))
    sc = {"hands": hands, "wall": " ".join(wall), "flipped": "1p", "actions": actions, "then": "autoplay"}
    return sc, drawable - draws_before - 1


@pytest.mark.parametrize("konger", ["S", "W", "N", "E"])
def test_no_concealed_kong_into_the_reserve(konger: str) -> None:
    sc, left = late_fourth(konger, konger)
    assert left == LEFT_AFTER_17TH_DRAW[konger]
    sc["actions"].append(act(konger, "kong", "7m"))
    out = run(V, **sc)
    if left - 1 >= 14 + 2:  # after the replacement draw the raised line is still covered
        assert out["status"] == "draw", out["error"]
        assert out["wall_left"] == 14 + 2  # 黄牌 exactly at 14 + 2k
    else:
        assert out["status"] == "illegal"
        assert out["error"]["reason"] == (
            f"no kong into the reserve: after its replacement draw {left - 1} tiles would be left, "
            "fewer than the 16 that must stay with 1 kong(s) (杠一过二)"
        )


@pytest.mark.parametrize(("holder", "drawer", "offered"), [("W", "S", True), ("N", "W", False), ("E", "N", False)])
def test_no_exposed_kong_into_the_reserve(holder: str, drawer: str, offered: bool) -> None:
    sc, _ = late_fourth(holder, drawer)
    sc["actions"].append(act(drawer, "discard", "7m"))
    hand = hand_after(V, sc["hands"], sc["actions"], wall=sc["wall"], flipped="1p")
    seat = "ESWN".index(holder)
    kongs = [a for a in hand.legal_actions(seat) if a.kind == "kong"]
    assert bool(kongs) is offered
    assert any(a.kind == PUNG for a in hand.legal_actions(seat))  # the pung stays on offer


def test_every_exhaustive_draw_ends_at_the_raised_line() -> None:
    # Random bots kong whenever they may and rarely win, so their hands reach 黄牌 with late
    # kongs: before the rule, 5 of these 300 ended at 13-16 tiles with one or two kongs.
    variant, wrong = get_variant(V), []
    for i in range(300):
        played = play_hand(variant, f"reserve-{i}", [RandomBot() for _ in range(4)], keep_events=False)
        left, kongs = played.hand.wall.remaining(), played.hand.kongs_made
        if played.result.status == "draw" and left != 14 + 2 * kongs:
            wrong.append((i, left, kongs))
    assert wrong == []
