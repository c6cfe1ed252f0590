"""D2 (温州麻将): the worked examples of spec/rules/SPEC.md §D2.4, and the rules around them."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from games.engine import scenario
from games.engine.hand import ENDED, Hand
from games.engine.options import OptionsError
from games.engine.state import CHOW, DISCARD, PUNG, WIN, Action, BreakdownItem, Result
from games.engine.tiles import format_tiles, parse_tile, parse_tiles
from games.engine.variants import get_variant
from games.engine.variants.wenzhou.rules import Wenzhou
from tests.engine.rig import SCENARIOS, act, hand_after, run

V = "wenzhou"
GOLDEN = SCENARIOS


def deal(given: dict[str, str], flipped: str, avoid: str = "", wall: str = "", tail: str = "") -> dict[str, str]:
    """``given`` hands (whole or a few tiles) topped up to 17/16 with harmless tiles: kinds the
    hand lacks, one each (no pair to pung), avoiding ``avoid``, the 财神 and their suit neighbours."""
    used = Counter(t for h in given.values() for t in parse_tiles(h))
    used.update(parse_tiles(f"{wall} {tail} {flipped}"))
    banned: set[int] = set()
    for t in parse_tiles(f"{avoid} {flipped}"):
        banned.add(t)
        if t < 27:
            banned.update(x for x in (t - 2, t - 1, t + 1, t + 2) if 0 <= x < 27 and x // 9 == t // 9)
    out = {}
    for seat in "ESWN":
        hand = parse_tiles(given.get(seat, ""))
        size = 17 if seat == "E" else 16
        # Looser passes only when the kinds run out: neighbours allowed, then a second copy.
        direct = set(parse_tiles(f"{avoid} {flipped}"))
        for copies, ban in ((1, banned), (1, direct), (2, direct)):
            for kind in range(27):  # suited only: a filler must never owe an honour discard
                if len(hand) >= size:
                    break
                if kind not in ban and hand.count(kind) < copies and used[kind] < 4:
                    hand.append(kind)
                    used[kind] += 1
        assert len(hand) == size, f"cannot fill {seat}"
        out[seat] = format_tiles(hand)
    return out


def with_first_discard(given: dict[str, str], actions: list[dict[str, Any]]) -> dict[str, str]:
    """A filled-in dealer must hold the tile the scenario has him discard first."""
    if "E" in given or not actions or actions[0]["seat"] != "E" or actions[0]["do"] != "discard":
        return given
    return {**given, "E": actions[0]["tile"]}


def play(
    given: dict[str, str],
    actions: list[dict[str, Any]],
    flipped: str,
    avoid: str = "",
    wall: str = "",
    tail: str = "",
    **extra: Any,
) -> dict[str, Any]:
    hands = deal(with_first_discard(given, actions), flipped, avoid, wall, tail)
    return run(V, hands, actions, flipped=flipped, wall=wall, tail=tail, **extra)


def after(
    given: dict[str, str],
    actions: list[dict[str, Any]],
    flipped: str,
    avoid: str = "",
    wall: str = "",
    tail: str = "",
    **extra: Any,
) -> Hand:
    hands = deal(with_first_discard(given, actions), flipped, avoid, wall, tail)
    return hand_after(V, hands, actions, flipped=flipped, wall=wall, tail=tail, **extra)


def names(out: dict[str, Any]) -> list[str]:
    return [b["name"] for b in out["breakdown"]]


def item(out: dict[str, Any], name: str) -> dict[str, Any]:
    return next(b for b in out["breakdown"] if b["name"] == name)


def tiles(text: str) -> list[int]:
    return parse_tiles(text)


# -- the deal and the wall ----------------------------------------------------------------------
@pytest.mark.parametrize("seed", ["a", "b", "deal"])
def test_deal_is_17_16_16_16_and_the_17th_tile_from_the_tail_is_the_caishen(seed: str) -> None:
    v = get_variant(V)
    hand = v.new_hand(seed=seed)
    assert [len(p.hand) for p in hand.players] == [17, 16, 16, 16]
    assert hand.wall_left() == 70  # 136 - 65 dealt - the face-up 财神
    (pos,) = hand.wall.face_up
    assert pos == hand.wall.tail_position(16)
    assert hand.state.wilds == [hand.wall.tiles[pos]]
    assert Wenzhou.live_left(hand) == 54
    normal = 0
    while Wenzhou.live_left(hand):
        hand.wall.draw_head()
        normal += 1
    assert normal == 54
    reserve = set(hand.state.reserve)
    assert len(reserve) == 16 and not any(hand.wall.taken[p] for p in reserve)  # kong replacements only
    assert [hand.wall.tail_position(k) for k in range(16)] == hand.state.reserve


def test_no_red_green_plays_128_tiles_with_46_normal_draws() -> None:
    v = get_variant(V)
    hand = v.new_hand({"no_red_green": True}, seed="nrg")
    assert len(v.tile_set(hand.options)) == 128
    everything = hand.wall.tiles  # the whole set: dealt tiles are its first 65, marked taken
    assert not {parse_tile("C"), parse_tile("F")} & set(everything)
    assert everything.count(parse_tile("P")) == 4  # 白板 stays: it is the 财神's stand-in
    assert Wenzhou.live_left(hand) == 46


def test_rigged_flip_and_wall_left() -> None:
    hands = deal({}, flipped="9s")
    out = run(V, hands, [], flipped="9s")
    assert out["status"] == "in_progress" and out["wall_left"] == 70
    hand = hand_after(V, hands, [], flipped="9s")
    assert hand.variant.public_info(hand)["wilds"] == "9s"
    assert hand.variant.public_info(hand)["stand_in"] == "P=9s"
    assert hand.variant.public_info(hand)["live_left"] == 54


def test_missing_flip_and_bad_context_are_malformed() -> None:
    hands = deal({}, flipped="9s")
    with pytest.raises(scenario.MalformedScenario, match="flipped"):
        scenario.build_hand({"variant": V, "hands": hands})
    for bad in ({"dealer_streak": 0}, {"buy_base": "yes"}, {"counter_base": ["E"]}, {"counter_base": "S"}, {"x": 1}):
        with pytest.raises(scenario.MalformedScenario):
            scenario.build_hand({"variant": V, "hands": hands, "flipped": "9s", "context": bad})
    with pytest.raises(OptionsError):
        get_variant(V).new_hand({"base_tiers": "1234"}, seed="x")


# -- D2.4 example 1: 硬八对, 双翻 ×4 -----------------------------------------------------------------
def test_hard_eight_pairs_is_double() -> None:
    w = {"W": "1m1m 3m3m 5p5p 7p7p 2s2s 4s4s EE C 9m"}
    out = play(w, [act("E", "discard", "9p"), act("S", "discard", "C"), act("W", "win")], "9s", "C 9p", wall="C")
    assert (out["status"], out["winner"], out["from"]) == ("win", "W", "S")
    assert item(out, "hard_eight_pairs")["value"] == 4
    assert item(out, "hand_score")["value"] == 4
    assert out["deltas"] == {"E": -4, "S": -4, "W": 12, "N": -4}


# -- example 2: 软八对, hard class ×2 ---------------------------------------------------------------
def test_soft_eight_pairs_is_hard_class() -> None:
    w = {"W": "1m 3m3m 5p5p 7p7p 2s2s 4s4s EE C 5m 9m"}
    out = play(w, [act("E", "discard", "9p"), act("S", "discard", "1m"), act("W", "win")], "5m", "9p 1m", wall="1m")
    assert (out["status"], out["winner"]) == ("win", "W")
    assert item(out, "soft_eight_pairs")["value"] == 2 and item(out, "hand_score")["value"] == 2
    # hand 2 from each; 财神分: W holds one 财神, nobody else any: 1 from each
    assert out["deltas"] == {"E": -3, "S": -3, "W": 9, "N": -3}


# -- example 3: 平胡 on a discard, ×2 ---------------------------------------------------------------
def test_plain_hard_on_a_discard() -> None:
    w = {"W": "123m 456m 789m 234p 567s 9s"}
    out = play(w, [act("E", "discard", "1p"), act("S", "discard", "9s"), act("W", "win")], "N", "1p 9s", wall="9s")
    assert names(out)[:2] == ["plain", "hand_score"] and item(out, "hand_score")["value"] == 2
    assert out["deltas"] == {"E": -2, "S": -2, "W": 6, "N": -2}


# -- example 4: soft on a discard ×1, the same hand self-drawn ×2 -----------------------------------
SOFT = {"W": "123m 456m 789m 234p 56s 5p 9s"}


def test_soft_on_a_discard_is_one() -> None:
    out = play(SOFT, [act("E", "discard", "1p"), act("S", "discard", "9s"), act("W", "win")], "5p", "1p 9s", wall="9s")
    assert out["winner"] == "W" and names(out)[0] == "soft"
    assert item(out, "hand_score")["value"] == 1
    assert item(out, "hand_score")["payments"] == {"E": -1, "S": -1, "N": -1, "W": 3}


def test_soft_hand_self_drawn_is_hard() -> None:
    actions = [act("E", "discard", "1p"), act("S", "discard", "2m"), act("W", "draw"), act("W", "win")]
    out = play(SOFT, actions, "5p", "1p 9s 2m", wall="2m 9s")
    assert out["winner"] == "W" and out["self_drawn"] is True
    assert names(out)[0] == "self_draw" and item(out, "hand_score")["value"] == 2


# -- example 5: no win ----------------------------------------------------------------------------
def test_not_a_win() -> None:
    w = {"W": "123m 456m 789m 234p 567s 9s"}
    out = play(w, [act("E", "discard", "1p"), act("S", "discard", "2m"), act("W", "win")], "5p", "1p 2m", wall="2m")
    assert out["status"] == "illegal" and out["error"]["index"] == 2
    assert "not a winning hand" in out["error"]["reason"]


# -- example 6: 碰碰胡 self-drawn by a non-dealer: ×4 ×2 = ×8 ---------------------------------------
def test_all_pungs_self_drawn_is_eight() -> None:
    s = {"S": "111m 444p 777s EEE CCC 9s"}
    out = play(s, [act("E", "discard", "9p"), act("S", "draw"), act("S", "win")], "W", "9p 9s", wall="9s")
    assert out["winner"] == "S" and out["self_drawn"]
    assert "all_pungs" in names(out) and "self_draw_double" in names(out)
    assert item(out, "hand_score")["value"] == 8
    assert out["deltas"] == {"E": -8, "S": 24, "W": -8, "N": -8}


# -- examples 7-9: settlement with 买底 / 顶底 --------------------------------------------------------
CTX = {"dealer_streak": 2, "buy_base": True, "counter_base": ["S"]}


def test_settlement_a_is_the_golden_file() -> None:
    sc = json.loads((GOLDEN / "wenzhou_settlement.json").read_text(encoding="utf-8"))
    assert sc["context"] == CTX
    sc.pop("expect")
    out = scenario.run(sc)
    assert out["deltas"] == {"E": -12, "S": 16, "W": -2, "N": -2}
    assert item(out, "hand_score")["payments"] == out["deltas"]  # no 财神, no kong: the hand is all


def test_settlement_b_dealer_all_pungs_self_drawn() -> None:
    e = {"E": "111m 444p 777s EEE CCC 9s 1p"}
    actions = [act("E", "discard", "1p"), act("S", "discard", "2p"), act("W", "discard", "3p")]
    actions += [act("N", "discard", "4s"), act("E", "draw"), act("E", "win")]
    out = play(e, actions, "W", "1p 2p 3p 4s", wall="2p 3p 4s 9s", context=CTX)
    assert out["winner"] == "E" and item(out, "hand_score")["value"] == 8
    assert out["deltas"] == {"E": 112, "S": -48, "W": -32, "N": -32}


SOFT_W = {"W": "123m 456m 789m 234p 56s 7p 9s"}  # 财神 = 7p; wins soft on 9s
SOFT_W_ACTIONS = [act("E", "discard", "1p"), act("S", "discard", "9s"), act("W", "win")]


def test_settlement_c_symmetric_base_bets() -> None:
    out = play(SOFT_W, SOFT_W_ACTIONS, "7p", "1p 9s", wall="9s", context=CTX)
    assert item(out, "hand_score")["payments"] == {"E": -4, "S": -1, "N": -1, "W": 6}


def test_settlement_c_one_sided_base_bets() -> None:
    out = play(SOFT_W, SOFT_W_ACTIONS, "7p", "1p 9s", wall="9s", context=CTX, options={"base_bets": "one_sided"})
    assert item(out, "hand_score")["payments"] == {"E": -2, "S": -1, "N": -1, "W": 4}


@pytest.mark.parametrize(
    ("tiers", "pair_base", "want"),
    [
        ("1246", "one", {"E": -4, "S": -1, "N": -1, "W": 6}),
        ("2468", "first_tier", {"E": -8, "S": -2, "N": -2, "W": 12}),
    ],
)
def test_tiers_and_the_non_dealer_pair_base(tiers: str, pair_base: str, want: dict[str, int]) -> None:
    out = play(
        SOFT_W,
        SOFT_W_ACTIONS,
        "7p",
        "1p 9s",
        wall="9s",
        context=CTX,
        options={"base_tiers": tiers, "pair_base": pair_base},
    )
    assert item(out, "hand_score")["payments"] == want


def test_base_option_scales_everything() -> None:
    out = play(SOFT_W, SOFT_W_ACTIONS, "7p", "1p 9s", wall="9s", context=CTX, options={"base": 10})
    assert out["deltas"] == {"E": -50, "S": -20, "W": 90, "N": -20}  # W also holds a 财神: 财神分 ×10


# -- example 10: 跟风 -------------------------------------------------------------------------------
FOLLOW = {
    "E": "E N C 123m 456m 789m 123p 45p",
    "S": "E N C 123m 456m 789m 123p 4p",
    "W": "E N C 123m 456m 789m 123s 4s",
    "N": "E N C 123m 456m 789m 123s 4s",
}
FOLLOW_WALL = "6p 6p 6p 7p 7p 7p 8p 8p 8p 6s 6s"


def follow_actions() -> list[dict[str, Any]]:
    out = []
    for honour in "ENC":
        out += [act(s, "discard", honour) for s in "ESWN"]
    return out


def test_follow_wind_three_in_a_row_costs_21() -> None:
    hand = hand_after(V, FOLLOW, follow_actions(), flipped="9s", wall=FOLLOW_WALL, options={"follow_wind": True})
    assert hand.state.follow_paid == [[0, 1], [0, 2], [0, 4]]
    result = hand.variant.settle_draw(hand)
    follow = next(b for b in result.breakdown if b.name == "follow_wind")
    assert follow.payments == {"E": -21, "S": 7, "W": 7, "N": 7}


def test_follow_wind_is_off_by_default() -> None:
    hand = hand_after(V, FOLLOW, follow_actions(), flipped="9s", wall=FOLLOW_WALL)
    assert hand.state.follow_paid == [] and hand.state.follow_run is None
    assert all(b.name != "follow_wind" for b in hand.variant.settle_draw(hand).breakdown)


def test_follow_wind_streak_resets_when_not_followed() -> None:
    v = get_variant(V)
    hand = hand_after(V, FOLLOW, [], flipped="9s", wall=FOLLOW_WALL, options={"follow_wind": True})
    e, n, c = parse_tile("E"), parse_tile("N"), parse_tile("C")
    seq = [(0, e), (1, e), (2, e), (3, e)]  # followed: A pays 1 each
    seq += [(0, parse_tile("1m")), (1, n), (2, n), (3, n)]  # A's next discard is not followed: reset
    seq += [(0, c), (1, c), (2, c), (3, c)]  # followed again: 1 each, not 2
    for seat, t in seq:
        v.after_discard(hand, seat, t, [])
    assert hand.state.follow_paid == [[0, 1], [0, 1]]
    follow = next(b for b in v.settle_draw(hand).breakdown if b.name == "follow_wind")
    assert follow.payments["E"] == -6


# -- example 11: 杠分 -------------------------------------------------------------------------------
def test_kong_scores() -> None:
    from games.engine.state import KONG_ADDED, KONG_CONCEALED, KONG_EXPOSED, Meld
    from games.engine.variants.wenzhou.scoring import kong_score

    melds = [
        [Meld(KONG_ADDED, (5,) * 4, claimed=5, from_seat=2)],
        [Meld(KONG_CONCEALED, (9,) * 4)],
        [Meld(KONG_EXPOSED, (20,) * 4, claimed=20, from_seat=3)],
        [],
    ]
    got = kong_score(melds, 1)
    assert got is not None
    assert got.payments == {"E": 3 - 2, "S": -1 + 6, "N": -1 - 2 - 3}  # W: -1 - 2 + 3 = 0


def test_concealed_kong_pays_two_each_even_on_a_draw() -> None:
    e = {"E": "1111m 234p 567p 789s 2s3s 5m 6m"}
    out = play(e, [act("E", "kong", "1m")], "9p", "1m", then="autoplay")
    assert out["status"] == "draw"
    assert item(out, "kong_score")["payments"] == {"E": 6, "S": -2, "W": -2, "N": -2}
    assert item(out, "dealer")["value"] == 1  # a 流局 with a kong: the deal passes


# -- example 12: 财神分 -----------------------------------------------------------------------------
def test_caishen_scores_per_pair() -> None:
    from games.engine.variants.wenzhou.scoring import caishen_score

    a = caishen_score([0, 0, 3, 0], 2, True, False, 1)
    assert a is not None and a.payments == {"E": -6, "S": -6, "W": 18, "N": -6}
    b = caishen_score([0, 1, 2, 0], 2, False, False, 1)
    assert b is not None and b.payments == {"E": -3, "S": 1, "W": 5, "N": -3}
    only = caishen_score([0, 1, 2, 0], 2, False, True, 1)
    assert only is not None and only.payments == {"E": -2, "S": -1, "W": 5, "N": -2}
    assert caishen_score([1, 1, 1, 0], None, False, True, 1) is None  # winner pairs only: nothing on a draw


def test_three_caishen_hard_self_drawn_counts_caishen_double() -> None:
    w = {"W": "123m 456m 789m 234p 5s 9s9s9s"}
    actions = [act("E", "discard", "1p"), act("S", "discard", "2m"), act("W", "draw"), act("W", "win")]
    out = play(w, actions, "9s", "1p 2m 5s", wall="2m 5s")
    assert out["winner"] == "W" and "three_caishen_hard" in names(out)
    assert item(out, "hand_score")["value"] == 4
    assert item(out, "caishen_score")["payments"] == {"E": -6, "S": -6, "W": 18, "N": -6}
    assert out["deltas"] == {"E": -10, "S": -10, "W": 30, "N": -10}


# -- example 13: 三财神软胡 ----------------------------------------------------------------------------
THREE = {"W": "1m 4m 7m 1p 4p 7p 1s 4s 7s 2m 8p 3s 6s 9s9s9s"}


def test_three_caishen_soft_wins_by_self_draw_only() -> None:
    actions = [act("E", "discard", "9p"), act("S", "discard", "2s"), act("W", "draw"), act("W", "win")]
    out = play(THREE, actions, "9s", "9p 2s 5m", wall="2s 5m")
    assert out["winner"] == "W" and names(out)[:2] == ["self_draw", "three_caishen_soft"]
    assert item(out, "hand_score")["value"] == 2
    assert item(out, "caishen_score")["payments"]["W"] == 9
    assert out["deltas"]["W"] == 6 + 9
    refused = play(
        THREE, [act("E", "discard", "9p"), act("S", "discard", "2s"), act("W", "win")], "9s", "9p 2s", wall="2s"
    )
    assert refused["status"] == "illegal"


# -- example 14: 白板 plays the 财神's face ------------------------------------------------------------
STAND_IN = {"E": "P 1m 2m 3m 1p 2p 3p 4p 5p 6p 7p 8p 9p 1s 2s 3s 7s", "S": "4m 6m 1s 9s 123p 789p 456s E"}


@pytest.mark.parametrize("written", ["46m P", "456m"])
def test_a_discarded_white_may_be_chowed_as_the_caishen_face(written: str) -> None:
    hand = after(STAND_IN, [act("E", "discard", "P")], "5m")
    chows = [a for a in hand.legal_actions(1) if a.kind == CHOW]
    assert chows == [Action(1, CHOW, tiles=tuple(sorted(tiles("4m 6m P"))))]
    hand = after(STAND_IN, [act("E", "discard", "P"), act("S", "chow", tiles=written)], "5m")
    meld = hand.players[1].melds[0]
    assert sorted(meld.tiles) == sorted(tiles("4m 6m P")) and meld.claimed == parse_tile("P")


def test_white_in_hand_chows_as_the_caishen_face() -> None:
    s = {"S": "P 6m 1s 9s 123p 789p 456s E 1m", "E": "4m 1m 2m 3m 1p 2p 3p 4p 5p 6p 7p 8p 9p 1s 2s 3s 7s"}
    hand = after(s, [act("E", "discard", "4m")], "5m")
    assert Action(1, CHOW, tiles=tuple(sorted(tiles("4m 6m P")))) in hand.legal_actions(1)


def test_white_as_the_caishen_face_is_natural_not_soft() -> None:
    w = {"W": "123m 4m 6m P 234p 567s 99s 78p"}  # P is a natural 5m: 456m
    actions = [act("E", "discard", "1s"), act("S", "discard", "9p"), act("W", "win")]
    out = play(w, actions, "5m", "1s 9p", wall="9p")
    assert out["winner"] == "W" and names(out)[0] == "plain"


def test_a_caishen_can_never_be_discarded() -> None:
    out = play({"E": "5m 1m 2m 3m 1p 2p 3p 4p 6p 7p 8p 9p 1s 2s 3s 4s 9s"}, [act("E", "discard", "5m")], "5m")
    assert out["status"] == "illegal" and "财神" in out["error"]["reason"]


# -- example 15: 财神 = 白板 ---------------------------------------------------------------------------
def test_caishen_white_has_no_stand_in() -> None:
    hand = after({"E": "P P 1m 2m 3m 1p 2p 3p 4p 6p 7p 8p 9p 1s 2s 3s 4s"}, [], "P")
    v = hand.variant
    assert v.chow_stand_ins(hand) == {} and hand.wilds() == frozenset({parse_tile("P")})
    assert v.discard_refusal(hand, 0, parse_tile("P")) is not None
    assert v.public_info(hand)["stand_in"] == ""


# -- example 16: the discard obligation ------------------------------------------------------------
def obligations(hand: Hand, seat: int) -> set[str]:
    from games.engine.tiles import tile_str

    return {tile_str(a.tile) for a in hand.legal_actions(seat) if a.kind == DISCARD and a.tile is not None}


def test_follow_the_previous_single_honour() -> None:
    # S holds single N and C and a pair of E; E's discard was C -> S must follow with C.
    s = {"S": "N C E E 123m 456m 789m 12p 4p", "E": "C 1m 2m 3m 4m 5m 6m 7m 8m 9m 1s 2s 3s 4s 5s 6s 7s"}
    hand = after(s, [act("E", "discard", "C")], "9s", wall="9p")
    scenario.close_window(hand)
    assert obligations(hand, 1) == {"C"}
    refused = run(
        V, deal(s, "9s", wall="9p"), [act("E", "discard", "C"), act("S", "discard", "N")], flipped="9s", wall="9p"
    )
    assert refused["status"] == "illegal" and "跟" in refused["error"]["reason"]


def test_single_honours_go_first() -> None:
    s = {"S": "N C E E 123m 456m 789m 12p 4p", "E": "7p 1m 2m 3m 4m 5m 6m 7m 8m 9m 1s 2s 3s 4s 5s 6s 7s"}
    hand = after(s, [act("E", "discard", "7p")], "9s", wall="9p")
    scenario.close_window(hand)
    assert obligations(hand, 1) == {"N", "C"}
    refused = run(
        V, deal(s, "9s", wall="9p"), [act("E", "discard", "7p"), act("S", "discard", "9p")], flipped="9s", wall="9p"
    )
    assert refused["status"] == "illegal" and "先打单张风字牌" in refused["error"]["reason"]


def test_the_own_view_says_why_each_held_tile_may_not_go() -> None:
    """The tiles the single-honour rule holds back come with the refusal, for the table to
    say why they are dimmed; only the seat on its turn sees it."""
    s = {"S": "N C E E 123m 456m 789m 12p 4p", "E": "7p 1m 2m 3m 4m 5m 6m 7m 8m 9m 1s 2s 3s 4s 5s 6s 7s"}
    hand = after(s, [act("E", "discard", "7p")], "9s", wall="9p")
    scenario.close_window(hand)
    held = hand.view(1)["held_back"]
    allowed = obligations(hand, 1)
    own = set(tiles_str("N C E 1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 4p 9p"))
    assert set(held) == own - allowed and allowed == {"N", "C"}
    assert {why["code"] for why in held.values()} == {"wenzhou_single_honours_first"}
    assert all(why["reason"] and isinstance(why["params"], dict) for why in held.values())
    assert all(hand.view(seat)["held_back"] == {} for seat in (0, 2, 3)) and hand.view(None)["held_back"] == {}


def test_honour_pairs_may_be_kept() -> None:
    s = {"S": "E E 123m 456m 789m 12p 4p 5s 6s", "E": "7p 1m 2m 3m 4m 5m 6m 7m 8m 9m 1s 2s 3s 4s 5s 6s 7s"}
    hand = after(s, [act("E", "discard", "7p")], "9s", wall="9p")
    scenario.close_window(hand)
    assert obligations(hand, 1) == set(tiles_str("E 1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 4p 5s 6s 9p"))


def tiles_str(text: str) -> list[str]:
    from games.engine.tiles import tile_str

    return [tile_str(t) for t in parse_tiles(text)]


def test_the_dealers_first_discard_obeys_the_single_honour_tier() -> None:
    e = {"E": "S F 1m 2m 3m 4m 5m 6m 7m 8m 9m 1s 2s 3s 4s 5s 6s"}
    hand = after(e, [], "9s")
    assert obligations(hand, 0) == {"S", "F"}


@pytest.mark.parametrize(("flipped", "forced"), [("S", True), ("5m", False)])
def test_a_single_white_is_an_honour_only_when_it_plays_one(flipped: str, forced: bool) -> None:
    e = {"E": "P 1m 2m 3m 4m 6m 7m 8m 9m 1p 2p 3p 4p 1s 2s 3s 4s"}
    hand = after(e, [], flipped)
    assert (obligations(hand, 0) == {"P"}) is forced


@pytest.mark.parametrize(("scope", "allowed"), [("previous", {"N", "C"}), ("visible", {"N"})])
def test_visible_scope_extends_the_follow_tier(scope: str, allowed: set[str]) -> None:
    # E threw N earlier; S's suited discard comes between.  W holds single N and C.
    w = {"W": "N C 123m 456m 789m 12p 4p 5s 6s", "E": "N"}
    actions = [act("E", "discard", "N"), act("S", "discard", "9p")]
    hand = after(w, actions, "9s", "9p", wall="9p 7p", options={"follow_scope": scope})
    scenario.close_window(hand)
    assert obligations(hand, 2) == allowed


# -- example 17: several winners on one discard ----------------------------------------------------
def test_the_bigger_hand_class_wins_the_discard() -> None:
    given = {"E": "123m 456m 789m 234p 12s 9p 5p F", "W": "111m 444p 777s EEE 33s 99s"}
    actions = [act("E", "discard", "F"), act("S", "discard", "2p"), act("W", "discard", "6m")]
    actions += [act("N", "discard", "3s"), act("E", "win"), act("W", "win")]
    out = play(given, actions, "5p", "F 2p 6m 3s", wall="2p 6m 3s")
    assert out["winner"] == "W" and "all_pungs" in names(out)


def test_equal_classes_go_to_the_first_seat_counter_clockwise() -> None:
    given = {"E": "123m 456m 789m 234p 12s 99p F", "W": "123m 456p 789p 234s 12s 99m"}
    actions = [act("E", "discard", "F"), act("S", "discard", "2p"), act("W", "discard", "6m")]
    actions += [act("N", "discard", "3s"), act("W", "win"), act("E", "win")]
    out = play(given, actions, "5p", "F 2p 6m 3s", wall="2p 6m 3s")
    assert out["winner"] == "E" and names(out)[0] == "plain"


# -- example 18: 跑马 -------------------------------------------------------------------------------
def test_caishen_pair_wins_only_by_self_draw() -> None:
    w = {"W": "123m 456m 789m 234p 567s 9s"}  # 财神 = 9s: all melds made, a lone 财神 (财神牛)
    refused = play(w, [act("E", "discard", "1p"), act("S", "discard", "2m"), act("W", "win")], "9s", "1p 2m", wall="2m")
    assert refused["status"] == "illegal" and "财神牛" in refused["error"]["reason"]
    actions = [act("E", "discard", "1p"), act("S", "discard", "2m"), act("W", "draw"), act("W", "win")]
    out = play(w, actions, "9s", "1p 2m E", wall="2m E")
    assert out["winner"] == "W" and "caishen_pair" in names(out) and item(out, "hand_score")["value"] == 2


SINGLE = {"S": "1m1m 2p2p 3s3s 4m4m 5p5p 9s 1s 7p 7m 8p 2s", "E": "1m 9m 8m 6m 1p 3p 6p 9p 4s 5s 6s 7s 8s"}
SINGLE_ACTIONS = [act("E", "discard", "1m"), act("S", "pung"), act("S", "discard", "1s")]
for _t, _out in (("2p", "7p"), ("3s", "7m"), ("4m", "8p"), ("5p", "2s")):
    SINGLE_ACTIONS += [act("W", "discard", _t), act("S", "pung"), act("S", "discard", _out)]


def test_caishen_single_wait_is_self_draw_only_and_doubles() -> None:
    wall = "2p 3s 4m 5p 9m 1p 2p 3p"
    hand = after(SINGLE, SINGLE_ACTIONS, "9s", wall=wall)
    assert len(hand.players[1].melds) == 5 and hand.players[1].hand == [parse_tile("9s")]
    refused = play(SINGLE, [*SINGLE_ACTIONS, act("W", "discard", "9m"), act("S", "win")], "9s", wall=wall)
    assert refused["status"] == "illegal" and "财神单吊" in refused["error"]["reason"]
    actions = [*SINGLE_ACTIONS, act("W", "discard", "9m"), act("N", "discard", "1p"), act("E", "discard", "2p")]
    out = play(SINGLE, [*actions, act("S", "draw"), act("S", "win")], "9s", wall=wall)
    assert out["winner"] == "S" and "single_wait" in names(out) and item(out, "hand_score")["value"] == 8


def test_eight_pairs_ready_wins_only_by_self_draw() -> None:
    w = {"W": "1m1m 3m3m 5p5p 7p7p 2s2s 4s4s EE 9m9m"}
    refused = play(w, [act("E", "discard", "1p"), act("S", "discard", "2m"), act("W", "win")], "N", "1p 2m", wall="2m")
    assert refused["status"] == "illegal" and "已经有八对" in refused["error"]["reason"]


# -- example 19: 过碰 -------------------------------------------------------------------------------
PASS_PUNG = {"E": "3s", "N": "3s 3s 123m 456m 789m 9p 2p 5p 7p 8p"}
PASSED = [act("E", "discard", "3s"), act("N", "pass")]


def test_passed_pung_is_closed_until_the_next_draw() -> None:
    hand = after(PASS_PUNG, PASSED, "9s", "2s 1s", wall="3s")
    assert hand.players[3].flags.get("pass_pung") == [parse_tile("3s")]
    assert "pass_pung" not in hand.public_view()["players"][3]["flags"]  # private
    actions = [*PASSED, act("S", "discard", "3s")]
    hand = after(PASS_PUNG, actions, "9s", "2s 1s", wall="3s")
    assert hand.window is None or Action(3, PUNG) not in hand.window.options.get(3, [])
    out = play(PASS_PUNG, [*actions, act("N", "pung")], "9s", "2s 1s", wall="3s")
    assert out["status"] == "illegal" and "过碰" in out["error"]["reason"]


def test_passed_pung_opens_again_after_the_next_draw() -> None:
    wall = "1s 2s 4s 3s"
    actions = [*PASSED, act("S", "discard", "1s"), act("W", "discard", "2s"), act("N", "discard", "4s")]
    actions += [act("E", "discard", "3s"), act("N", "pung")]
    hand = after(PASS_PUNG, actions, "9s", "1s 2s 4s", wall=wall)
    assert hand.players[3].melds and hand.players[3].melds[0].tiles == (parse_tile("3s"),) * 3


WAITS_9S = {"W": "123m 456m 789m 234p 567s 9s", "E": "9s"}


def test_passed_win_is_recorded_privately() -> None:
    hands = deal(WAITS_9S, "N", "9s", wall="9s")
    hand = scenario.build_hand({"variant": V, "hands": hands, "flipped": "N", "wall": "9s"})
    hand.apply(Action(0, DISCARD, tile=parse_tile("9s")))
    assert Action(2, WIN) in hand.legal_actions(2)
    hand.apply(Action(2, "pass"))
    assert hand.players[2].flags.get("pass_win") == [parse_tile("9s")]
    assert "pass_win" not in hand.view(1)["players"][2]["flags"]


def test_passed_win_blocks_the_same_tile_until_the_next_draw() -> None:
    actions = [act("E", "discard", "9s"), act("W", "pass"), act("S", "discard", "9s"), act("W", "win")]
    out = play(WAITS_9S, actions, "N", "9s", wall="9s")
    assert out["status"] == "illegal" and out["error"]["index"] == 3 and "过胡" in out["error"]["reason"]
    # Once W has drawn, the next 9s may be won on.
    actions = [act("E", "discard", "9s"), act("W", "pass"), act("S", "discard", "1s"), act("W", "discard", "2s")]
    actions += [act("N", "discard", "9s"), act("W", "win")]
    out = play(WAITS_9S, actions, "N", "9s 1s 2s", wall="1s 2s 9s")
    assert out["winner"] == "W" and out["from"] == "N"


# -- example 20: 流局 and the dealer ----------------------------------------------------------------
def test_exhaustive_draw_after_54_normal_draws_keeps_the_dealer() -> None:
    hand = after({}, [], "9s")
    scenario.autoplay(hand)
    assert hand.result is not None and hand.result.status == "draw"
    assert sum(p.draws for p in hand.players) == 54 and hand.wall_left() == 16
    v = hand.variant
    assert v.next_dealer_offset(hand.result) == 0
    assert v.next_context(hand.result, {}) == {"dealer_streak": 2, "buy_base": False, "counter_base": []}


def test_dealer_rotation() -> None:
    v = get_variant(V)

    def result(winner: int | None, offset: int) -> Result:
        return Result("win" if winner is not None else "draw", winner=winner, breakdown=[dealer(offset)])

    def dealer(offset: int) -> BreakdownItem:
        return BreakdownItem("dealer", "", offset)

    ctx = {"dealer_streak": 2, "buy_base": True, "counter_base": ["W"]}
    assert v.next_context(result(0, 0), ctx) == {"dealer_streak": 3, "buy_base": True, "counter_base": ["W"]}
    assert v.next_context(result(1, 1), ctx) == {"dealer_streak": 1, "buy_base": False, "counter_base": []}


@pytest.mark.parametrize(("streak", "maximum", "offset"), [(3, 4, 0), (4, 4, 1), (4, 5, 0), (5, 5, 1)])
def test_the_dealer_deals_at_most_four_hands(streak: int, maximum: int, offset: int) -> None:
    e = {"E": "111m 444p 777s EEE CCC 9s 1p"}
    actions = [act("E", "discard", "1p"), act("S", "discard", "2p"), act("W", "discard", "3p")]
    actions += [act("N", "discard", "4s"), act("E", "draw"), act("E", "win")]
    out = play(
        e,
        actions,
        "W",
        "1p 2p 3p 4s",
        wall="2p 3p 4s 9s",
        context={"dealer_streak": streak},
        options={"dealer_hands_max": maximum},
    )
    assert item(out, "dealer")["value"] == offset
    tier = (1, 2, 4, 6)[min(streak, 4) - 1]
    assert item(out, "hand_score")["payments"]["S"] == -tier * 8


def test_a_no_kong_draw_on_the_fourth_hand_passes_the_deal() -> None:
    hand = after({}, [], "9s", context={"dealer_streak": 4})
    scenario.autoplay(hand)
    assert hand.result is not None and hand.variant.next_dealer_offset(hand.result) == 1


# -- claims and kongs ------------------------------------------------------------------------------
def test_golden_no_chow_with_caishen() -> None:
    hands = {
        "E": "5m 1m 2m 3m 4p 5p 6p 4s 5s 6s 1s 2s 3s 9m 9m 8m 8m",
        "S": "4m 6m 1p 2p 3p 7p 8p 9p 1s 2s 3s 7s 8s 9s 5p 5p",
        "W": "1m 2m 6p 4s 3p C S 1m 1s E 1p 9m N 1s 9p 3s",
        "N": "C 4p 5s 9s 8s 6m 7p 4s 4p N 2s 2p 7m 2m 3p 7s",
    }
    out = run(V, hands, [act("E", "discard", "5m"), act("S", "chow", tiles="456m")], flipped="4m")
    assert out["status"] == "illegal" and out["error"]["index"] == 1 and "财神" in out["error"]["reason"]


def test_chow_only_from_the_player_before() -> None:
    w = {"W": "4m 6m 1s 9s 123p 789p 456s E"}
    out = play(w, [act("E", "discard", "5m"), act("W", "chow", tiles="456m")], "9s")
    assert out["status"] == "illegal" and "下家" in out["error"]["reason"]


def test_pung_beats_chow() -> None:
    given = {"S": "4m 6m 1s 9s 123p 789p 456s E", "W": "5m 5m 1s 9s 123p 789p 456s E", "E": "5m"}
    hands = deal(given, "9s")
    hand = hand_after(V, hands, [act("E", "discard", "5m")], flipped="9s")
    assert Action(1, CHOW, tiles=tuple(tiles("456m"))) in hand.legal_actions(1)
    out = run(V, hands, [act("E", "discard", "5m"), act("S", "chow", tiles="456m"), act("W", "pung")], flipped="9s")
    assert out["status"] == "in_progress"
    hand = hand_after(
        V, hands, [act("E", "discard", "5m"), act("S", "chow", tiles="456m"), act("W", "pung")], flipped="9s"
    )
    assert hand.players[2].melds and hand.turn == 2


def test_no_concealed_kong_straight_after_a_pung() -> None:
    s = {"S": "2222p 5m 5m 1s 9s 123s 789s 6p"}
    hand = after(s, [act("E", "discard", "5m"), act("S", "pung")], "9p", "5m")
    assert hand.turn == 1 and hand.players[1].melds
    assert all(a.kind != "kong" for a in hand.legal_actions(1))
    reason = hand.refusal(Action(1, "kong", tile=parse_tile("2p")))
    assert reason is not None and "after a chow or pung" in reason


def test_a_caishen_cannot_be_konged() -> None:
    out = play({"E": "9s9s9s 1m 2m 3m 1p 2p 3p 4p 6p 7p 8p 9p 1s 2s 3s"}, [], "9s")
    assert out["status"] == "in_progress"
    hand = after({"E": "9s9s9s 1m 2m 3m 1p 2p 3p 4p 6p 7p 8p 9p 1s 2s 3s"}, [], "9s")
    assert all(a.kind != "kong" for a in hand.legal_actions(0))


def test_kong_replacement_comes_from_the_reserve_and_blooms() -> None:
    e = {"E": "1111m 123p 456p 789p 99s 4s 5s"}
    out = play(e, [act("E", "kong", "1m"), act("E", "win")], "N", "1m", tail="6s")
    assert out["winner"] == "E" and "kong_bloom" in names(out)
    assert item(out, "hand_score")["value"] == 4  # not 天胡 (a replacement draw): 自摸 ×2, 杠后开花 ×2
    assert out["wall_left"] == 69


def test_robbing_an_added_kong_is_hard() -> None:
    given = {
        "E": "7m 3m",
        "S": "7m 7m 1s 2s 3s 1p 2p 3p 4p 5p 6p 8p 9p C C C",
        "W": "123p 456p 789s 234s 56m 99p",  # waits on 4m / 7m
    }
    wall = "1m 2m 3m 7m"
    actions = [act("E", "discard", "7m"), act("S", "pung"), act("S", "discard", "C")]
    actions += [act("W", "discard", "1m"), act("N", "discard", "2m"), act("E", "discard", "3m"), act("S", "draw")]
    actions += [act("S", "kong", "7m"), act("W", "win")]
    out = play(given, actions, "N", "7m C 1m 2m 3m 4m", wall=wall)
    assert out["status"] == "win" and out["winner"] == "W" and out["from"] == "S"
    assert names(out)[:2] == ["robbing_kong", "plain"] and item(out, "hand_score")["value"] == 2
    assert "kong_score" not in names(out)  # a robbed kong never stood


def test_a_claim_leaving_only_caishen_is_refused() -> None:
    v = get_variant(V)
    hand = after({"S": "5m 5m 9s 9s 1s 2s 3s 4s 5s 6s 7s 8s 1p 2p 3p 4p"}, [], "9s")
    p = hand.players[1]
    for t in tiles("1s 2s 3s 4s 5s 6s 7s 8s 1p 2p 3p 4p"):
        p.remove(t)
    hand.players[1].melds.extend([])  # S now holds 5m 5m 9s 9s
    assert v.pung_refusal(hand, 1, parse_tile("5m")) is not None
    assert v.chow_refusal(hand, 1, parse_tile("4m"), tiles("5m 6m")) is not None


# -- special wins ----------------------------------------------------------------------------------
def test_heaven_the_dealers_dealt_hand() -> None:
    out = play({"E": "123m 456m 789m 234p 567s 11s"}, [act("E", "win")], "N")
    assert out["winner"] == "E" and "heaven" in names(out) and item(out, "hand_score")["value"] == 4


def test_heaven_includes_three_caishen_soft() -> None:
    out = play({"E": "1m 4m 7m 1p 4p 7p 1s 4s 7s 2m 8p 3s 6s 2p NNN"}, [act("E", "win")], "N")
    assert out["winner"] == "E" and "heaven" in names(out)


def test_earth_a_win_on_the_dealers_first_discard() -> None:
    s = {"S": "123m 456m 789m 234p 567s 9p"}
    out = play(s, [act("E", "discard", "9p"), act("S", "win")], "N", "9p")
    assert out["winner"] == "S" and "earth" in names(out) and item(out, "hand_score")["value"] == 4


def test_a_non_dealer_first_self_draw_is_not_earth() -> None:
    s = {"S": "123m 456m 789m 234p 567s 9p"}
    out = play(s, [act("E", "discard", "1p"), act("S", "draw"), act("S", "win")], "N", "1p 9p", wall="9p")
    assert "earth" not in names(out) and item(out, "hand_score")["value"] == 2
    wide = play(
        s,
        [act("E", "discard", "1p"), act("S", "draw"), act("S", "win")],
        "N",
        "1p 9p",
        wall="9p",
        options={"earth_window": "before_second"},
    )
    assert "earth" in names(wide)


def test_soft_flush_is_still_double() -> None:
    w = {"W": "111m 123m 456m 789m 23m 9m 5p"}  # 财神 5p plays 9m
    out = play(w, [act("E", "discard", "1p"), act("S", "discard", "4m"), act("W", "win")], "5p", "1p 4m", wall="4m")
    assert out["winner"] == "W" and "flush" in names(out) and item(out, "hand_score")["value"] == 4


def test_hand_ends_and_deltas_sum_to_zero() -> None:
    out = play({}, [], "9s", then="autoplay")
    assert out["status"] == "draw" and sum(out["deltas"].values()) == 0
    hand = after({}, [], "9s")
    scenario.autoplay(hand)
    assert hand.phase == ENDED


def test_timeout_wins_when_only_caishen_are_left() -> None:
    v = get_variant(V)
    hand = after({}, [], "9s")
    p = hand.players[0]
    for t in list(p.hand):
        p.remove(t)
    p.add(parse_tile("9s"))
    p.add(parse_tile("9s"))
    from games.engine.state import MELD_PUNG, Meld

    p.melds = [Meld(MELD_PUNG, (k,) * 3) for k in tiles("1m 2m 3m 4m 5m")]
    assert v.forced_action(hand, 0) == Action(0, WIN)
    assert hand.timeout_action(0) == Action(0, WIN)
