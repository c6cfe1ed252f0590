"""D0 (财神麻将 前导牌): the worked examples of spec/rules/SPEC.md §D0.4, and the rules around them."""

from __future__ import annotations

import pytest

from games.engine import scenario
from games.engine.hand import ENDED
from games.engine.state import CHOW, KONG_ADDED, MELD_PUNG, PUNG, Result
from games.engine.tiles import parse_tile, parse_tiles, tile_str
from games.engine.variants import get_variant
from games.engine.variants.zhejiang_caishen.rules import XIANGGONG, wild_from_indicator
from games.engine.wall import break_point
from tests.engine.rig import ROB_ACTIONS, ROB_HANDS, act, fill_hands, hand_after, run

V = "zhejiang_caishen"


# -- D0.4 examples 1-2: the indicator -> wild mapping -------------------------------------------
@pytest.mark.parametrize(
    ("indicator", "wild"),
    [
        ("5m", "5p"),
        ("5s", "5m"),
        ("5p", "5s"),
        ("9s", "9m"),
        ("1p", "1s"),
        ("E", "S"),
        ("N", "E"),
        ("C", "F"),
        ("F", "P"),
        ("P", "C"),
        ("S", "W"),
        ("W", "N"),
        ("1m", "1p"),
    ],
)
def test_wild_is_same_rank_of_next_suit(indicator: str, wild: str) -> None:
    assert tile_str(wild_from_indicator(parse_tile(indicator))) == wild


# -- example 3: the deal -------------------------------------------------------------------------
@pytest.mark.parametrize("seed", ["a", "b", "c", "dealer-check"])
def test_deal_gives_14_and_13_and_82_drawable_tiles(seed: str) -> None:
    hand = get_variant(V).new_hand(seed=seed)
    assert [len(p.hand) for p in hand.players] == [14, 13, 13, 13]
    assert hand.wall.remaining() == 82
    assert hand.wall_left() == 82  # the indicator lies face up: not counted
    indicator_pos = next(iter(hand.wall.face_up))
    assert hand.wall.tiles[indicator_pos] == hand.state.indicator
    assert hand.state.wilds == [wild_from_indicator(hand.state.indicator)]
    drawn = 0
    while hand.wall.remaining():
        hand.wall.draw_head()
        drawn += 1
        assert not hand.wall.taken[indicator_pos], "a draw took the indicator"
    assert drawn == 82


# -- example 4: the break ------------------------------------------------------------------------
def test_dice_choose_wall_and_stack() -> None:
    assert break_point((2, 5), 17) == (2, 2)  # A=7: 对家; B=2: stack 3 from the left
    assert break_point((3, 5), 17) == (3, 3)  # A=8: 上家; stack 4


# -- example 5: a lone wild accepts any tile -----------------------------------------------------
@pytest.mark.parametrize("draw", ["N", "5m"])
def test_lone_wild_completes_with_any_tile(draw: str) -> None:
    hands = fill_hands(
        {"E": "1s 2s 3s 5s 7s 8s 9s 5m 6m 7m 8m 9m 2p F", "S": "123m 456s 789p EEE 4p"},
        avoid="F",
        flipped="4m",
        wall=draw,
    )
    out = run(V, hands, [act("E", "discard", "F"), act("S", "draw"), act("S", "win")], flipped="4m", wall=draw)
    assert out["status"] == "win" and out["winner"] == "S" and out["self_drawn"] is True
    names = [b["name"] for b in out["breakdown"]]
    # S's first draw, no claim before it: 地和 (×4), paid by each of the three others.
    assert "earth" in names
    assert out["deltas"] == {"E": -4, "S": 12, "W": -4, "N": -4}


# -- example 6: no wild, no win ------------------------------------------------------------------
def test_no_win_without_shape() -> None:
    hands = fill_hands(
        {"E": "1s 1s 2s 3s 5s 6s 7s 8s 9s 6m 7m 8m 9m F", "S": "123m 456s 789p EEE N"},
        avoid="F",
        flipped="5m",
        wall="2s",
    )
    out = run(V, hands, [act("E", "discard", "F"), act("S", "draw"), act("S", "win")], flipped="5m", wall="2s")
    assert out["status"] == "illegal"
    assert out["error"]["index"] == 2
    assert "not a winning hand" in out["error"]["reason"]


# -- example 7: the wild as itself (财神归位) -----------------------------------------------------
def test_wild_may_stand_for_itself() -> None:
    hands = fill_hands(
        {"E": "1s 2s 3s 5s 6s 1p 2p 3p 7m 8m 9m E E C", "S": "456p 123m 789s WWW C"}, avoid="C", flipped="5m"
    )
    out = run(V, hands, [act("E", "discard", "C"), act("S", "win")], flipped="5m")
    assert (out["status"], out["winner"], out["from"]) == ("win", "S", "E")
    assert out["deltas"] == {"E": -1, "S": 1, "W": 0, "N": 0}


# -- example 8: no chow with the wild ------------------------------------------------------------
def test_wild_in_hand_cannot_chow() -> None:
    hands = fill_hands(
        {"E": "1p 9p 9s E S W N C F P 9m 9m 4s 6s", "S": "2p 3p 5m 6m 7m 1s 2s 3s 4s 5s 6s 7s 8s"},
        avoid="1p",
        flipped="2m",
    )
    hand = hand_after(V, hands, [act("E", "discard", "1p")], flipped="2m")
    assert all(a.kind != CHOW for a in hand.legal_actions(1))
    out = run(V, hands, [act("E", "discard", "1p"), act("S", "chow", tiles="123p")], flipped="2m")
    assert out["status"] == "illegal" and out["error"]["index"] == 1
    assert "财神" in out["error"]["reason"]


# -- example 9: no pung with the wild ------------------------------------------------------------
def test_wild_cannot_complete_a_pung() -> None:
    hands = fill_hands(
        {"E": "3m 9p 9s E S W N C F P 9m 9m 4s 6s", "S": "3m 5p 1s 1s 9s 8s E S S W W N N"}, avoid="3m", flipped="5m"
    )
    hand = hand_after(V, hands, [act("E", "discard", "3m")], flipped="5m")
    assert all(a.kind != PUNG for a in hand.legal_actions(1))
    out = run(V, hands, [act("E", "discard", "3m"), act("S", "pung")], flipped="5m")
    assert out["status"] == "illegal" and "two 3m" in out["error"]["reason"]


# -- example 10: 相公 -----------------------------------------------------------------------------
XIANG_E = "5p 1s 2s 3s 4s 5s 6s 7s 8s 1p 2p 3p 7p S"


def _xianggong_actions(chow: str, claimed: str) -> list[dict[str, object]]:
    return [
        act("E", "discard", claimed),
        act("S", "chow", tiles=chow),
        act("S", "discard", "E"),
        act("W", "discard", "C"),
        act("N", "discard", "C"),
        act("E", "discard", "C"),
        act("S", "draw"),
        act("S", "win"),
    ]


def test_chowing_a_discarded_wild_makes_xianggong() -> None:
    given = {"E": XIANG_E, "S": "4p 6p 123m 456m 7m 8m 1s 1s E"}
    hands = fill_hands(given, avoid="5p E C 9m", flipped="5m", wall="C C C 9m")
    before_win = _xianggong_actions("456p", "5p")[:-1]
    hand = hand_after(V, hands, before_win[:2], flipped="5m", wall="C C C 9m")
    assert hand.players[1].flags.get(XIANGGONG) is True
    out = run(V, hands, _xianggong_actions("456p", "5p"), flipped="5m", wall="C C C 9m")
    assert out["status"] == "illegal" and out["error"]["index"] == 7
    assert "相公" in out["error"]["reason"]
    # 相公 forbids only winning: the player still plays on (draws, discards) and pays.
    hand = hand_after(V, hands, before_win, flipped="5m", wall="C C C 9m")
    assert hand.legal_actions(1) and all(a.kind == "discard" for a in hand.legal_actions(1))


def test_chowing_another_tile_is_not_xianggong() -> None:
    # Same shape but the wild is 5s (I=5p): chowing 5p is an ordinary chow and the win stands.
    given = {"E": XIANG_E, "S": "4p 6p 123m 456m 7m 8m 1s 1s E"}
    hands = fill_hands(given, avoid="5p E C 9m", flipped="5p", wall="C C C 9m")
    out = run(V, hands, _xianggong_actions("456p", "5p"), flipped="5p", wall="C C C 9m")
    assert out["status"] == "win" and out["winner"] == "S" and out["self_drawn"] is True
    assert out["deltas"] == {"E": -1, "S": 3, "W": -1, "N": -1}  # no 地和: a chow came before


# -- example 11: 截和 -----------------------------------------------------------------------------
JIEHU = {
    "E": "1s 2s 6s 7s 3m 4m 5m 6m 7m 8m 1p 2p 3p F",
    "W": "123m 456m 789m 1s 2s P P",
    "N": "123p 456p 789p 4s 5s E E",
}


@pytest.mark.parametrize("order", [("W", "N"), ("N", "W")])
def test_head_bump_nearest_winner_takes_it(order: tuple[str, str]) -> None:
    hands = fill_hands(JIEHU, avoid="F 3s", flipped="9p", wall="3s")
    actions = [act("E", "discard", "F"), act("S", "discard", "3s"), act(order[0], "win"), act(order[1], "win")]
    out = run(V, hands, actions, flipped="9p", wall="3s")
    assert (out["status"], out["winner"], out["from"]) == ("win", "W", "S")
    assert out["deltas"] == {"E": 0, "S": -1, "W": 1, "N": 0}


# -- examples 12-13: 拉杠和 and the concealed kong --------------------------------------------------


def _rob_hands() -> dict[str, str]:
    return fill_hands(ROB_HANDS, avoid="7m P C E", flipped="9p", wall="E E E 7m")


def test_robbing_an_added_kong_pays_twelvefold_by_the_declarer() -> None:
    out = run(V, _rob_hands(), [*ROB_ACTIONS, act("W", "win")], flipped="9p", wall="E E E 7m")
    assert (out["status"], out["winner"], out["from"]) == ("win", "W", "S")
    assert out["deltas"] == {"E": 0, "S": -12, "W": 12, "N": 0}
    assert [b["name"] for b in out["breakdown"]][0] == "robbing_kong"


def test_robbed_kong_is_not_formed_and_gets_no_replacement() -> None:
    hand = hand_after(V, _rob_hands(), [*ROB_ACTIONS, act("W", "win")], flipped="9p", wall="E E E 7m")
    assert hand.phase == ENDED
    assert [m.kind for m in hand.players[1].melds] == [MELD_PUNG]
    assert hand.players[1].draws == 1  # the head draw only


def test_passed_rob_lets_the_kong_stand_with_a_tail_draw() -> None:
    hands = _rob_hands()
    hand = hand_after(V, hands, [*ROB_ACTIONS, act("W", "pass")], flipped="9p", wall="E E E 7m")
    s = hand.players[1]
    assert [m.kind for m in s.melds] == [KONG_ADDED]
    assert s.draws == 2 and hand.turn == 1 and hand.turn_kind == "replacement"
    out = run(V, hands, [*ROB_ACTIONS, act("W", "pass")], flipped="9p", wall="E E E 7m")
    assert out["status"] == "in_progress" and out["wall_left"] == 82 - 4 - 1


def test_concealed_kong_cannot_be_robbed() -> None:
    given = {
        "E": "1s 2s 3s 4s 5s 6s 1m 2m 3m 4m 5m 6m P F",
        "S": "9m 9m 9m 2p 3p 4p 5p 6p 7p 8p 1p C C",
        "W": "123p 456p 789p 7m 8m S S",
    }
    hands = fill_hands(given, avoid="9m F", flipped="9p", wall="9m")
    hand = hand_after(V, hands, [act("E", "discard", "F"), act("S", "draw")], flipped="9p", wall="9m")
    assert any(a.kind == "kong" and a.tile == parse_tile("9m") for a in hand.legal_actions(1))
    out = run(
        V,
        hands,
        [act("E", "discard", "F"), act("S", "draw"), act("S", "kong", "9m"), act("W", "win")],
        flipped="9p",
        wall="9m",
    )
    assert out["status"] == "illegal" and out["error"]["index"] == 3


# -- example 14: 四财神 ----------------------------------------------------------------------------
def test_four_wilds_win_with_any_other_tiles() -> None:
    hands = fill_hands(
        {"E": "1s 2s 3s 5s 6s 1p 2p 3p 7m 8m 4m E E F", "S": "5p 5p 5p 1m 3m 5m 7m 9m 1s 4s 7s E W"},
        avoid="F",
        flipped="5m",
        wall="5p",
    )
    out = run(V, hands, [act("E", "discard", "F"), act("S", "draw"), act("S", "win")], flipped="5m", wall="5p")
    assert out["status"] == "win" and out["self_drawn"] is True
    names = [b["name"] for b in out["breakdown"]]
    assert "four_wilds" in names and "earth" not in names  # no shape: plain 四财神
    assert out["deltas"] == {"E": -2, "S": 6, "W": -2, "N": -2}


def test_four_wilds_on_a_discard_is_no_win() -> None:
    # Three wilds plus a discarded fourth: 四财神 is a self-draw rule, and a discarded wild is not won on.
    hands = fill_hands(
        {"E": "5p 1s 2s 3s 5s 6s 1p 2p 3p 7m 8m 4m E F", "S": "5p 5p 5p 1m 3m 5m 7m 9m 1s 4s 7s E W"},
        avoid="5p",
        flipped="5m",
    )
    out = run(V, hands, [act("E", "discard", "5p"), act("S", "win")], flipped="5m")
    assert out["status"] == "illegal"


# -- example 15: 天和 / 地和 ------------------------------------------------------------------------
def test_heavenly_hand() -> None:
    hands = fill_hands({"E": "123m 456m 789p 234s 55s"}, flipped="1p")
    out = run(V, hands, [act("E", "win")], flipped="1p")
    assert out["status"] == "win" and out["winner"] == "E" and out["self_drawn"]
    assert "heaven" in [b["name"] for b in out["breakdown"]]
    assert out["deltas"] == {"E": 12, "S": -4, "W": -4, "N": -4}


def test_no_earthly_hand_after_a_claim() -> None:
    # E discards, N pungs it, then S's first draw completes S: an ordinary 自摸.
    given = {
        "E": "F 1s 2s 3s 5s 6s 1p 2p 3p 7m 8m 4m S S",
        "S": "123m 456s 789p EEE 4p",
        "N": "F F 1m 2m 3m 5m 6m 7m 8m 9m 9s 9s 9s",
    }
    hands = fill_hands(given, flipped="4m", wall="N 1m")
    actions = [
        act("E", "discard", "F"),
        act("N", "pung"),
        act("N", "discard", "1m"),
        act("E", "discard", "N"),
        act("S", "draw"),
        act("S", "win"),
    ]
    out = run(V, hands, actions, flipped="4m", wall="N 1m")
    assert out["status"] == "win", out
    assert "earth" not in [b["name"] for b in out["breakdown"]]
    assert out["deltas"]["S"] == 3


# -- example 16: dealer rotation -----------------------------------------------------------------
def test_winner_deals_next_and_draw_keeps_dealer() -> None:
    v = get_variant(V)
    assert v.next_dealer_offset(Result("win", winner=1, from_seat=0, deltas=[-1, 1, 0, 0])) == 1
    assert v.next_dealer_offset(Result("win", winner=0, self_drawn=True, deltas=[3, -1, -1, -1])) == 0
    assert v.next_dealer_offset(Result("draw")) == 0


# -- example 17: exhaustion ----------------------------------------------------------------------
def test_exhaustive_draw_after_82_draws() -> None:
    out = run(V, fill_hands({}, flipped="1p"), [], flipped="1p", then="autoplay")
    assert out["status"] == "draw" and out["wall_left"] == 0
    assert out["deltas"] == {"E": 0, "S": 0, "W": 0, "N": 0}


def test_one_kong_leaves_81_normal_draws() -> None:
    hands = fill_hands({"E": "1m 1m 1m 1m 3m 5m 7m 9m 2p 4p 6p 8p E S"}, flipped="P")
    sc = {"variant": V, "hands": hands, "flipped": "P", "actions": [act("E", "kong", "1m")], "then": "autoplay"}
    hand = scenario.build_hand(sc)
    for i, a in enumerate(sc["actions"]):
        scenario.play_one(hand, scenario.parse_action(a, i))
    assert hand.players[0].draws == 1 and hand.turn_kind == "replacement"
    scenario.autoplay(hand)
    assert hand.result is not None and hand.result.status == "draw"
    assert sum(p.draws for p in hand.players) == 82  # 1 replacement + 81 normal draws


# -- other D0 rules ------------------------------------------------------------------------------
def test_discarded_wild_not_won_on_unless_option() -> None:
    given = {"E": "5p 1s 2s 3s 5s 6s 1p 2p 3p 7m 8m 4m E F", "S": "123m 456s 789p EEE N"}
    hands = fill_hands(given, avoid="5p", flipped="5m")
    out = run(V, hands, [act("E", "discard", "5p"), act("S", "win")], flipped="5m")
    assert out["status"] == "illegal" and "discarded 财神" in out["error"]["reason"]
    out = run(
        V, hands, [act("E", "discard", "5p"), act("S", "win")], flipped="5m", options={"ron_on_discarded_wild": True}
    )
    assert out["status"] == "win" and out["deltas"]["E"] == -1


def test_kong_bloom_doubles() -> None:
    given = {"E": "1s 2s 3s 5s 6s 1p 2p 3p 7m 8m 4m E E F", "S": "9m 9m 9m 123m 456s 789p N"}
    hands = fill_hands(given, avoid="F 9m", flipped="C", wall="9m", tail="N")
    out = run(
        V,
        hands,
        [act("E", "discard", "F"), act("S", "draw"), act("S", "kong", "9m"), act("S", "win")],
        flipped="C",
        wall="9m",
        tail="N",
    )
    assert out["status"] == "win"
    names = [b["name"] for b in out["breakdown"]]
    assert "kong_bloom" in names
    assert out["deltas"] == {"E": -2, "S": 6, "W": -2, "N": -2}


def test_house_multipliers_are_options() -> None:
    hands = fill_hands({"E": "123m 456m 789p 234s 55s"}, flipped="1p")
    out = run(V, hands, [act("E", "win")], flipped="1p", options={"multiplier_heaven": 8, "base": 5})
    assert out["deltas"] == {"E": 120, "S": -40, "W": -40, "N": -40}


def test_options_are_validated() -> None:
    v = get_variant(V)
    with pytest.raises(ValueError, match="unknown option 'nope'"):
        v.validate_options({"nope": 1})
    with pytest.raises(ValueError, match="must be an integer"):
        v.validate_options({"multiplier_heaven": "4"})
    with pytest.raises(ValueError, match="true or false"):
        v.validate_options({"ron_on_discarded_wild": 1})
    assert v.validate_options({})["robbing_kong_multiplier"] == 12


def test_tiles_parse_in_hands() -> None:
    assert len(parse_tiles(ROB_HANDS["S"])) == 13
