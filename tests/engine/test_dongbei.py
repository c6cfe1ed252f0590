"""D4 (东北麻将): the worked examples of spec/rules/SPEC.md §D4.4, and the rules and refusals around them."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from games.engine import scenario
from games.engine.hand import CLAIM, PLAY, Hand
from games.engine.options import OptionsError
from games.engine.state import (
    CHOW,
    DISCARD,
    KONG,
    KONG_CONCEALED,
    KONG_EXPOSED,
    MELD_CHOW,
    MELD_PUNG,
    PUNG,
    WIN,
    Action,
    IllegalAction,
    Meld,
    Result,
)
from games.engine.tiles import NUM_KINDS, format_tiles, parse_tile, parse_tiles, standard_set
from games.engine.variants import get_variant
from games.engine.variants.dongbei.hands import four_alike_fans, is_one_left, sequence_fans, waiting_tiles
from games.engine.variants.dongbei.rules import (
    DEAD_WALL,
    READY_WAITS,
    Dongbei,
    deal_positions,
    first_dealer,
    opening_wall,
    roll_die,
)
from games.engine.variants.dongbei.scoring import kong_items
from games.engine.wall import shuffled_tiles
from tests.engine.rig import ROB_ACTIONS, ROB_HANDS, act, fill_hands, hand_after, run

V = "dongbei"
T = parse_tile


def names(out: dict[str, Any]) -> list[str]:
    return [b["name"] for b in out["breakdown"]]


def item(out: dict[str, Any], name: str) -> dict[str, Any]:
    return next(b for b in out["breakdown"] if b["name"] == name)


def spare(hands: dict[str, str], n: int, avoid: str = "", extra: str = "") -> str:
    """``n`` tiles for head draws, none of the ``avoid`` kinds, within the four-copy limit."""
    used = Counter(t for h in hands.values() for t in parse_tiles(h))
    used.update(parse_tiles(extra))
    banned = set(parse_tiles(avoid))
    out: list[int] = []
    kind = 0
    while len(out) < n:
        if kind not in banned and used[kind] < 4:
            out.append(kind)
            used[kind] += 1
        kind = (kind + 1) % NUM_KINDS
    return format_tiles(out)


def step(hand: Hand) -> None:
    """One timeout step: everyone passes an open window, or the seat to play takes its default."""
    if hand.phase == CLAIM:
        scenario.close_window(hand)
        return
    a = hand.timeout_action(hand.turn)
    assert a is not None
    hand.apply(a)


def build(hands: dict[str, str], **extra: Any) -> Hand:
    hand = scenario.build_hand({"variant": V, "hands": hands, **extra}, open_empty_windows=True)
    return hand


# -- D4.4 example 1: the deal ---------------------------------------------------------------------
@pytest.mark.parametrize("seed", ["a", "b", "c", "dealer-14"])
def test_deal_gives_14_and_13_and_leaves_83(seed: str) -> None:
    v = get_variant(V)
    assert isinstance(v, Dongbei)
    hand = v.new_hand(seed=seed)
    assert [len(p.hand) for p in hand.players] == [14, 13, 13, 13]
    assert hand.wall.remaining() == 83 and hand.wall_left() == 83
    assert v.drawable(hand) == 69  # no kong: the last 14 stay undrawn
    # The dealer's 14th tile is the one shown apart (and the one a timeout discards).
    assert hand.players[0].drawn == hand.players[0].hand[-1]
    assert hand.timeout_action(0) == Action(0, DISCARD, tile=hand.players[0].hand[-1])


def test_wall_opens_where_the_dealers_die_says_and_the_jump_deal() -> None:
    v = get_variant(V)
    hand = v.new_hand(seed="layout")
    ring, dice = shuffled_tiles(standard_set(), "layout")
    die = dice[0]
    assert hand.state.die == die
    seat, stack = opening_wall(die)
    assert hand.state.opening == [seat, stack]
    start = 2 * (seat * 17 + stack)
    head = ring[start:] + ring[:start]
    assert hand.wall.tiles == head
    # 3 rounds of 4 (2 stacks a grab), then 跳牌: dealer tops of stacks 1 and 3, the others one each.
    for s in range(4):
        want = [head[16 * r + 4 * s + k] for r in range(3) for k in range(4)]
        want += {0: [head[48], head[52]], 1: [head[49]], 2: [head[50]], 3: [head[51]]}[s]
        assert hand.players[s].hand == want
    assert [p for s, p in deal_positions() if s == 0][-2:] == [48, 52]
    # The first draw is the bottom of the 3rd stack; replacements come from the far end.
    assert hand.wall.peek_head() == head[53]
    assert hand.wall.tail_position(0) == 134


# -- example 2: the first dealer ------------------------------------------------------------------
@pytest.mark.parametrize(("die", "seat"), [(1, 0), (2, 3), (3, 2), (4, 1), (5, 0), (6, 3)])
def test_first_dealer_by_one_die_counted_clockwise_from_east(die: int, seat: int) -> None:
    assert first_dealer(die) == seat


def test_first_dealer_turn_order_option_and_bad_die() -> None:
    assert [first_dealer(d, "turn_order") for d in range(1, 7)] == [0, 1, 2, 3, 0, 1]
    with pytest.raises(ValueError):
        first_dealer(7)
    assert all(1 <= roll_die(f"s{i}") <= 6 for i in range(30))
    assert roll_die("same") == roll_die("same")
    assert len({roll_die(f"s{i}") for i in range(60)}) == 6


# -- example 3: the opened wall -------------------------------------------------------------------
def test_opening_wall_counts_clockwise_from_the_dealer() -> None:
    assert opening_wall(2) == (3, 2)  # dealer(1), 上家(2): 上家's wall, skip 2 stacks, start at the 3rd
    assert opening_wall(1) == (0, 1)
    assert opening_wall(4) == (1, 4)  # 下家
    assert opening_wall(2, "turn_order") == (1, 2)


def test_turn_order_option_changes_the_opening() -> None:
    a = get_variant(V).new_hand(seed="dir")
    b = get_variant(V).new_hand({"count_direction": "turn_order"}, seed="dir")
    assert a.state.die == b.state.die
    if a.state.die % 2 == 0:  # 2/4/6 point at different walls in the two directions
        assert a.wall.tiles != b.wall.tiles


# -- examples 4-6: 报听 ----------------------------------------------------------------------------
READY_E = "123444789m 123s 5s N"


def test_ready_allowed_on_a_single_wait() -> None:
    hands = fill_hands({"E": READY_E}, avoid="5s 4m N")
    hand = hand_after(V, hands, [])
    assert Action(0, "ready", tile=T("N")) in hand.legal_actions(0)
    out = run(V, hands, [act("E", "ready", "N")])
    assert out["status"] == "in_progress" and out["error"] is None
    hand = hand_after(V, hands, [act("E", "ready", "N")])
    e = hand.players[0]
    assert e.flags["ready"] is True and e.flags[READY_WAITS] == [T("5s")]
    assert e.discards == [T("N")]
    # The 听 mark is public, the winning tile is not.
    for reader in (None, 1, 0):
        shown = hand.view(reader)["players"][0]["flags"]
        assert shown == {"ready": True}


def test_ready_refused_on_two_waits_unless_the_option_allows() -> None:
    hands = fill_hands({"E": "123m 456m 789p 11s 23s N"}, avoid="1s 4s N")
    out = run(V, hands, [act("E", "ready", "N")])
    assert out["status"] == "illegal" and out["error"]["index"] == 0
    assert "single winning tile" in out["error"]["reason"] and "1s, 4s" in out["error"]["reason"]
    assert Action(0, "ready", tile=T("N")) not in hand_after(V, hands, []).legal_actions(0)
    out = run(V, hands, [act("E", "ready", "N")], options={"ready_single_wait": False})
    assert out["status"] == "in_progress" and out["error"] is None


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ({"seat": "E", "do": "ready"}, "name the tile"),
        (act("E", "ready", "9p"), "not in your hand"),
        (act("E", "ready", "1m"), "waits on nothing"),
        (act("S", "ready", "N"), "turn"),
    ],
)
def test_ready_refusals(action: dict[str, Any], reason: str) -> None:
    hands = fill_hands({"E": READY_E}, avoid="5s 4m N 9p")
    out = run(V, hands, [action])
    assert out["status"] == "illegal" and reason in out["error"]["reason"], out["error"]


def test_ready_only_once_and_hand_frozen_afterwards() -> None:
    e_hand = READY_E
    given = {"E": e_hand, "S": "4m 3p 3p 2p 4p 1p 9p 7s 8s 9s C F P"}
    wall = "W W W 9p"
    hands = fill_hands(given, avoid="5s 4m N W 9p 3p", wall=wall)
    acts = [act("E", "ready", "N"), act("S", "discard", "W"), act("W", "discard", "W"), act("N", "discard", "W")]
    hand = hand_after(V, hands, [*acts, act("E", "draw")], wall=wall)
    assert hand.turn == 0 and hand.players[0].drawn == T("9p")
    # Example 6: the drawn tile is not a win: the system discards it.
    assert hand.variant.forced_action(hand, 0) == Action(0, DISCARD, tile=T("9p"))
    assert [a for a in hand.legal_actions(0)] == [Action(0, DISCARD, tile=T("9p"))]
    reason = hand.refusal(Action(0, DISCARD, tile=T("1m")))
    assert reason is not None and "报听后不能换牌" in reason
    # The own view says why every other held tile is dimmed: 报听's lock.
    held = hand.view(0)["held_back"]
    assert "9p" not in held and len(held) == len(set(hand.players[0].hand)) - 1
    assert {why["code"] for why in held.values()} == {"dongbei_ready_discard_drawn"}
    assert held["1m"]["params"] == {"tile": "9p"}
    assert "already declared" in (hand.refusal(Action(0, "ready", tile=T("9p"))) or "")
    # ... no pung and no chow either
    hand.apply(Action(0, DISCARD, tile=T("9p")))
    out = run(V, hands, [*acts, act("E", "discard", "9p"), act("S", "discard", "4m"), act("E", "pung")], wall=wall)
    assert out["status"] == "illegal" and "报听后不能吃碰" in out["error"]["reason"]


def test_ready_player_may_kong_a_discard_that_keeps_the_wait() -> None:
    given = {"E": READY_E, "S": "4m 1p 2p 3p 1s 9s 7p 8p 9p C F P E"}
    hands = fill_hands(given, avoid="5s 4m N", tail="C")
    acts = [act("E", "ready", "N"), act("S", "discard", "4m")]
    hand = hand_after(V, hands, acts, tail="C")
    assert hand.phase == CLAIM and Action(0, KONG, tile=T("4m")) in hand.legal_actions(0)
    assert Action(0, PUNG) not in hand.legal_actions(0)
    hand = hand_after(V, hands, [*acts, act("E", "kong", "4m")], tail="C")
    e = hand.players[0]
    assert [m.kind for m in e.melds] == [KONG_EXPOSED] and e.drawn == T("C")
    rest = list(e.counts[:NUM_KINDS])
    rest[T("C")] -= 1
    assert waiting_tiles(rest, 1) == [T("5s")] == e.flags[READY_WAITS]
    assert hand.variant.forced_action(hand, 0) == Action(0, DISCARD, tile=T("C"))


def test_ready_player_may_not_kong_when_it_changes_the_wait() -> None:
    # 11123m 456p 789p 99s waits 1m, 4m (111 + 23) and 9s (11 + 123 + 99); konging 1m leaves 23m: 1m/4m only.
    hands = fill_hands({"E": "11123m 456p 789p 99s N", "S": "1m 1s 3s 5s 7s E S W C F P 2p 8p"}, avoid="1m 4m 9s N")
    opts = {"ready_single_wait": False}
    acts = [act("E", "ready", "N"), act("S", "discard", "1m")]
    hand = hand_after(V, hands, acts, options=opts)
    assert hand.players[0].flags[READY_WAITS] == [T("1m"), T("4m"), T("9s")]
    assert Action(0, KONG, tile=T("1m")) not in hand.legal_actions(0)
    reason = hand._claim_reason(Action(0, KONG, tile=T("1m")))
    assert reason is not None and "winning tiles" in reason
    out = run(V, hands, [*acts, act("E", "kong", "1m")], options=opts)
    assert out["status"] == "illegal" and "winning tiles" in out["error"]["reason"]
    out = run(V, hands, [*acts, act("E", "kong", "1m")], options={**opts, "ready_kong_keeps_wait": False})
    assert out["error"] is None


def test_ready_winner_scores_ting_and_ready_loser_pays_it() -> None:
    given = {"E": READY_E, "S": "5s 1p 2p 3p 1s 9s 7p 8p 9p C F P E"}
    hands = fill_hands(given, avoid="5s 4m N")
    out = run(V, hands, [act("E", "ready", "N"), act("S", "discard", "5s"), act("E", "win")])
    assert (out["status"], out["winner"], out["from"]) == ("win", "E", "S")
    assert "ready" in names(out)
    # E: 听 1 + 立门 1 = 2; S pays 2 + 立门 1 + 点炮 1 + 庄 1 = 5 -> 32; W, N 2 + 立门 + 庄 = 4 -> 16.
    assert out["deltas"] == {"E": 64, "S": -32, "W": -16, "N": -16}


def test_ready_loser_pays_one_more() -> None:
    # S declares 听 on 5s; N wins on W's 7m: S pays its 听 番 on top of 立门.
    given = {"S": "123444789m 123s N", "N": "123p 456p 789p 8m 9m C C"}
    hands = fill_hands(given, avoid="5s 7m N", wall="5s 7m")
    e_first = format_tiles(parse_tiles(hands["E"])[-1:])
    actions = [act("E", "discard", e_first), act("S", "ready", "N"), act("W", "discard", "7m"), act("N", "win")]
    out = run(V, hands, actions, wall="5s 7m")
    assert (out["status"], out["winner"], out["from"]) == ("win", "N", "W"), out
    # N 立门 1: E 立门 + 庄 -> 8; S 立门 + 听 -> 8; W 立门 + 点炮 -> 8.
    assert out["deltas"] == {"E": -8, "S": -8, "W": -8, "N": 24}
    s_pays = next(b for b in out["breakdown"] if b["name"] == "payment" and "S pays" in b["detail"])
    assert "听牌1" in s_pays["detail"]


# -- examples 7-12: winning hands and their 番 -------------------------------------------------------
def dealt_win(e_hand: str, **extra: Any) -> dict[str, Any]:
    hands = fill_hands({"E": e_hand})
    return run(V, hands, [act("E", "win")], **extra)


def test_concealed_kong_keeps_li_men_and_kong_bloom() -> None:
    # Example 7: only a 暗杠 -> 立门; the replacement completes the hand: 杠上开花 (no 自摸 on top).
    hands = fill_hands({"E": "1111m 234p 567p 789s 5s"}, avoid="5s", tail="5s")
    out = run(V, hands, [act("E", "kong", "1m"), act("E", "win")], tail="5s")
    assert out["status"] == "win" and out["self_drawn"] is True
    assert "closed" in names(out) and "kong_bloom" in names(out) and "self_draw" not in names(out)
    # F_w = 立门 1 + 杠上开花 2 = 3; each pays 3 + 立门 1 + 庄 1 = 5 -> 32; 暗杠 杠分 2 from each.
    assert out["deltas"] == {"E": 96 + 6, "S": -34, "W": -34, "N": -34}


def test_a_pung_opens_the_hand() -> None:
    given = {"E": "9p 1s 3s 5s 7s 2m 4m 6m 8m E S W N C", "S": "9p 9p 123m 456m 78s E E C"}
    hands = fill_hands(given, avoid="9p 6s C", wall="6s")
    out = run(
        V,
        hands,
        [
            act("E", "discard", "9p"),
            act("S", "pung"),
            act("S", "discard", "C"),
            act("W", "discard", "6s"),
            act("S", "win"),
        ],
        wall="6s",
    )
    assert (out["status"], out["winner"], out["from"]) == ("win", "S", "W"), out
    assert "closed" not in names(out)
    # S: 0 番; E pays 立门 + 庄 = 2 -> 4; W 立门 + 点炮 = 2 -> 4; N 立门 -> 2.
    assert out["deltas"] == {"E": -4, "S": 10, "W": -4, "N": -2}


def test_shou_ba_yi_four_exposed_melds_and_one_tile() -> None:
    # Example 8: S pungs four times and wins on its lone tile.
    given = {
        "E": "1m 1s 3s 5s 7s 2p 6p 8p E S W C F P",
        "S": "1m 1m 2m 2m 3p 3p 4p 4p 9s 7s 5s C P",
        "W": "2m 3p 4p 9s 1p 5p 7p 9p 6m 8m 4s 6s 8s",
    }
    hands = fill_hands(given, avoid="N", wall="N N N N")
    actions = [
        act("E", "discard", "1m"),
        act("S", "pung"),
        act("S", "discard", "C"),
        act("W", "discard", "2m"),
        act("S", "pung"),
        act("S", "discard", "P"),
        act("W", "discard", "3p"),
        act("S", "pung"),
        act("S", "discard", "7s"),
        act("W", "discard", "4p"),
        act("S", "pung"),
        act("S", "discard", "5s"),
        act("W", "discard", "9s"),
        act("S", "win"),
    ]
    out = run(V, hands, actions, wall="N N N N")
    assert (out["status"], out["winner"], out["from"]) == ("win", "S", "W"), out
    assert "one_left" in names(out) and "closed" not in names(out)
    # S 手把一 1; E 立门 + 庄 -> 2^3 = 8; W 立门 + 点炮 -> 8; N 立门 -> 4.
    assert out["deltas"] == {"E": -8, "S": 20, "W": -8, "N": -4}


def test_shou_ba_yi_not_with_a_concealed_kong() -> None:
    melds = [Meld(MELD_PUNG, (1, 1, 1)), Meld(MELD_CHOW, (3, 4, 5)), Meld(MELD_PUNG, (9, 9, 9))]
    assert is_one_left(1, [*melds, Meld(KONG_EXPOSED, (20,) * 4)], winning=False)
    assert not is_one_left(1, [*melds, Meld(KONG_CONCEALED, (20,) * 4)], winning=False)
    assert is_one_left(2, [*melds, Meld(MELD_PUNG, (20,) * 3)], winning=True)
    assert not is_one_left(5, melds, winning=True)


def test_yi_ban_gao_hidden_for_the_winner_exposed_for_a_loser() -> None:
    # Example 9: W wins with 234p 234p in hand (+1, 暗); S chowed 234p twice and pays +1 (明).
    given = {
        "E": "2p 2p 1s 5s 9s 3m 6m 9m E S N C F 7s",
        "S": "3p 4p 3p 4p 1s 5s 9s 1m 5m S W N P",
        "W": "223344p 567s 789m E",
    }
    wall = "C F P C E"
    hands = fill_hands(given, wall=wall)
    actions = [
        act("E", "discard", "2p"),
        act("S", "chow", tiles="234p"),
        act("S", "discard", "1s"),
        act("W", "discard", "C"),
        act("N", "discard", "F"),
        act("E", "discard", "2p"),
        act("S", "chow", tiles="234p"),
        act("S", "discard", "9s"),
        act("W", "discard", "C"),
        act("N", "discard", "E"),
        act("W", "win"),
    ]
    out = run(V, hands, actions, wall=wall)
    assert (out["status"], out["winner"], out["from"]) == ("win", "W", "N"), out
    yb = item(out, "double_sequence")
    assert yb["value"] == 1 and "暗" in yb["detail"]
    # W: 立门 1 + 一般高 1 = 2.  E 立门 + 庄 -> 16; S 明一般高 1 -> 8; N 立门 + 点炮 -> 16.
    assert out["deltas"] == {"E": -16, "S": -8, "W": 40, "N": -16}
    s_pays = next(b for b in out["breakdown"] if b["name"] == "payment" and "S pays" in b["detail"])
    assert "一般高1(234p 明)" in s_pays["detail"]


def test_liang_ban_gao_three_identical_sequences() -> None:
    # Example 10: 567s ×3 -> 两般高 2番, and not 一般高 as well.
    out = dealt_win("567s 567s 567s 11m 999p")
    assert "triple_sequence" in names(out) and "double_sequence" not in names(out)
    # 立门 1 + 自摸 1 + 两般高 2 = 4; each pays 4 + 立门 + 庄 = 6 -> 64.
    assert out["deltas"] == {"E": 192, "S": -64, "W": -64, "N": -64}


def test_exposed_sequences_for_losers() -> None:
    s = T("5s")
    assert [(f.name, f.value) for f in sequence_fans([s, s, s], (), exposed_only=True)] == [("triple_sequence", 2)]
    assert [(f.name, f.value) for f in sequence_fans([s, s], (), exposed_only=True)] == [("double_sequence", 1)]
    assert sequence_fans([s], [s, s], exposed_only=True) == []
    fans = sequence_fans([s, s], [s], exposed_only=False)
    assert [(f.name, f.value, f.detail) for f in fans] == [("triple_sequence", 2, "567s 暗")]


def test_si_gui_yi_four_suited_tiles_not_a_kong() -> None:
    # Example 11: four 6m in 666m 678m -> +1; honours do not count.
    out = dealt_win("666m 678m 123p 456p 99s")
    assert item(out, "four_alike")["value"] == 1
    # 立门 1 + 自摸 1 + 四归一 1 = 3; each pays 3 + 2 = 5 -> 32.
    assert out["deltas"]["E"] == 96
    out = dealt_win("E E E E 1m 1m 2p 2p 3p 3p 5s 5s 6s 6s")
    assert "four_alike" not in names(out) and "seven_pairs" in names(out)


def test_si_gui_yi_exposed_counts_for_a_loser_only_when_all_four_show() -> None:
    six = T("6m")
    shown = [Meld(MELD_PUNG, (six,) * 3), Meld(MELD_CHOW, (six, six + 1, six + 2))]
    hidden = [0] * NUM_KINDS
    assert [(f.name, f.detail) for f in four_alike_fans(hidden, shown, exposed_only=True)] == [("four_alike", "6m 明")]
    hidden[six] = 1  # three shown, the fourth in hand: 暗, the winner's only
    assert four_alike_fans(hidden, shown[:1], exposed_only=True) == []
    assert [f.detail for f in four_alike_fans(hidden, shown[:1], exposed_only=False)] == ["6m 暗"]
    # A kong is never 四归一.
    assert four_alike_fans([0] * NUM_KINDS, [Meld(KONG_EXPOSED, (six,) * 4)], exposed_only=False) == []


def test_seven_pairs() -> None:
    # Example 12: valid with 1m and E; 3番 and no 立门.
    out = dealt_win("1m1m 2p2p 3p3p 5s5s 6s6s 8m8m EE")
    assert out["status"] == "win"
    assert "seven_pairs" in names(out) and "closed" not in names(out)
    # 七小对 3 + 自摸 1 = 4; each pays 4 + 立门 + 庄 = 6 -> 64.
    assert out["deltas"]["E"] == 192
    # ... and four alike counted as two pairs also scores 四归一.
    out = dealt_win("1m1m1m1m 2p2p 3p3p 5s5s 6s6s 8m8m")
    assert {"seven_pairs", "four_alike"} <= set(names(out))
    assert out["deltas"]["E"] == 3 * 2 ** (3 + 1 + 1 + 2)


def test_seven_pairs_needs_a_terminal_or_honour() -> None:
    out = dealt_win("2m2m 3m3m 4p4p 5p5p 6s6s 7s7s 8s8s")
    assert out["status"] == "illegal" and "幺九" in out["error"]["reason"]


def test_thirteen_orphans_pays_double_the_cap() -> None:
    out = dealt_win("19m19p19s ESWNCFP 1m")
    assert out["status"] == "win" and "thirteen_orphans" in names(out)
    assert out["deltas"] == {"E": 3 * 512, "S": -512, "W": -512, "N": -512}
    out = dealt_win("19m19p19s ESWNCFP 1m", options={"cap": 4})
    assert out["deltas"]["S"] == -32


def test_flushes_are_house_values() -> None:
    out = dealt_win("123m 456m 789m 11m EEE")
    assert "half_flush" in names(out)
    out = dealt_win("123m 456m 789m 11m 234m")
    assert "full_flush" in names(out) and item(out, "full_flush")["value"] == 2
    out = dealt_win("123m 456m 789m 11m 234m", options={"fan_full_flush": 0})
    assert "full_flush" not in names(out)


def test_cap_limits_each_payment() -> None:
    out = dealt_win("567s 567s 567s 11m 999p", options={"cap": 3})
    assert out["deltas"] == {"E": 24, "S": -8, "W": -8, "N": -8}


# -- kongs ---------------------------------------------------------------------------------------------
def test_chained_kongs_with_replacements_from_the_end() -> None:
    given = {"E": "555m 777m 1p 3p 9p 1s E S W N", "S": "5m 2p 4p 6p 8p 2s 4s 6s 8s C F P 9s"}
    hands = fill_hands(given, avoid="5m 7m", tail="7m C")
    actions = [
        act("E", "discard", "N"),
        act("S", "discard", "5m"),
        act("E", "kong", "5m"),
        act("E", "draw"),  # closes the window on S's 5m: the next kong is E's own
        act("E", "kong", "7m"),
    ]
    hand = hand_after(V, hands, actions, tail="7m C")
    e = hand.players[0]
    assert [m.kind for m in e.melds] == [KONG_EXPOSED, KONG_CONCEALED]
    # Example 18 (逃跑): the 杠分 so far, which a leaver settles first.
    assert [i.payments for i in kong_items(hand)] == [
        {"E": 3, "S": -1, "W": -1, "N": -1},
        {"E": 6, "S": -2, "W": -2, "N": -2},
    ]
    assert e.drawn == T("C") and hand.turn_kind == "replacement"
    out = run(V, hands, actions, tail="7m C", then="autoplay")
    # After a kong every tile is drawn; 杠分 明杠 1 + 暗杠 2 from each of the others, also on a 流局.
    assert out["status"] == "draw" and out["wall_left"] == 0
    assert out["deltas"] == {"E": 9, "S": -3, "W": -3, "N": -3}
    assert names(out).count("kong_points") == 2


def test_win_on_the_discard_beats_the_exposed_kong() -> None:
    given = {"E": "7m 1s 3s 5s 9s 2p 4p 6p 8p E S W N C", "S": "7m 7m 7m 1p 2p 3p 5s 6s F F P P 9p"}
    given["W"] = "123s 456s 789s 8m 9m S S"
    hands = fill_hands(given, avoid="7m")
    hand = hand_after(V, hands, [act("E", "discard", "7m")])
    assert Action(1, KONG, tile=T("7m")) in hand.legal_actions(1) and Action(2, WIN) in hand.legal_actions(2)
    out = run(V, hands, [act("E", "discard", "7m"), act("S", "kong", "7m"), act("W", "win")])
    assert (out["status"], out["winner"], out["from"]) == ("win", "W", "E")
    assert "kong_points" not in names(out)


def test_an_added_kong_may_be_robbed() -> None:
    hands = fill_hands(ROB_HANDS, avoid="7m P C E", wall="E E E 7m")
    out = run(V, hands, [*ROB_ACTIONS, act("W", "win")], wall="E E E 7m")
    assert (out["status"], out["winner"], out["from"]) == ("win", "W", "S")
    # W 立门 1; S (opened) 点炮 1 -> 4; E 立门 + 庄 -> 8; N 立门 -> 4.  No 杠分: the kong never stood.
    assert out["deltas"] == {"E": -8, "S": -4, "W": 16, "N": -4}
    assert "kong_points" not in names(out) and "nianzhuang" not in names(out)


def test_passed_rob_lets_the_added_kong_stand_and_score() -> None:
    hands = fill_hands(ROB_HANDS, avoid="7m P C E", wall="E E E 7m")
    out = run(V, hands, [*ROB_ACTIONS, act("W", "pass")], wall="E E E 7m", then="autoplay")
    assert out["status"] == "draw" and out["wall_left"] == 0
    assert out["deltas"] == {"E": -1, "S": 3, "W": -1, "N": -1}


def test_kong_deal_in_pays_two_instead_of_one() -> None:
    given = {"E": "5m 1s 3s 9s 2p 4p 6p 8p E S W N F P", "S": "5m 5m 5m 1p 2p 3p 4s 6s 7s 9m 9m 9m C"}
    given["W"] = "123s 456s 789s 1m 1m C C"
    hands = fill_hands(given, avoid="5m C", tail="C")
    out = run(
        V,
        hands,
        [act("E", "discard", "5m"), act("S", "kong", "5m"), act("S", "discard", "C"), act("W", "win")],
        tail="C",
    )
    assert (out["status"], out["winner"], out["from"]) == ("win", "W", "S"), out
    s_pays = next(b for b in out["breakdown"] if b["name"] == "payment" and "S pays" in b["detail"])
    assert "杠后炮2" in s_pays["detail"] and "点炮" not in s_pays["detail"]
    # W 立门 1; E 立门 + 庄 -> 8; S 杠后炮 2 -> 8; N 立门 -> 4; 杠分 S +1 from each.
    assert out["deltas"] == {"E": -9, "S": -5, "W": 19, "N": -5}


# -- claims --------------------------------------------------------------------------------------------
CLAIM_E = "3p 1s 5s 9s 2m 6m 9m E S W N C F P"


def test_chow_only_from_the_left_and_only_suited() -> None:
    hands = fill_hands(
        {"E": CLAIM_E, "S": "1p 2p 4p 5p 1m 3m 5m 7m 2s 4s 6s 8s E", "W": "2p 4p 7p 8p 2m 4m 7m 8m 1s 3s 7s 9s S"}
    )
    out = run(V, hands, [act("E", "discard", "3p"), act("W", "chow", tiles="234p")])
    assert out["status"] == "illegal" and "下家" in out["error"]["reason"]
    out = run(V, hands, [act("E", "discard", "3p"), act("S", "chow", tiles="123p")])
    assert out["status"] == "in_progress" and out["error"] is None
    # Honours never chow (只有万筒条能吃).
    hand = hand_after(V, hands, [act("E", "discard", "E")])
    assert not any(a.kind == CHOW for a in hand.legal_actions(1))


def test_pung_beats_chow() -> None:
    hands = fill_hands(
        {"E": CLAIM_E, "S": "1p 2p 4p 5p 1m 3m 5m 7m 2s 4s 6s 8s E", "W": "3p 3p 7p 8p 2m 4m 7m 8m 1s 3s 7s 9s S"}
    )
    for order in (("S", "W"), ("W", "S")):
        claims = {"S": act("S", "chow", tiles="234p"), "W": act("W", "pung")}
        hand = hand_after(V, hands, [act("E", "discard", "3p"), claims[order[0]], claims[order[1]]])
        assert hand.turn == 2 and hand.players[2].melds[0].kind == MELD_PUNG and not hand.players[1].melds


def test_one_winner_per_discard_nearest_the_discarder() -> None:
    # Example 16: W discards; N (its 下家) and S can both win -> N.
    given = {"S": "123p 456p 789p 8m 9m W W", "N": "123s 456s 789s 8m 9m C C"}
    hands = fill_hands(given, avoid="7m P", wall="P 7m")
    for order in (("S", "N"), ("N", "S")):
        e_first = format_tiles(parse_tiles(hands["E"])[-1:])
        actions = [
            act("E", "discard", e_first),
            act("S", "discard", "P"),
            act("W", "discard", "7m"),
            act(order[0], "win"),
            act(order[1], "win"),
        ]
        out = run(V, hands, actions, wall="P 7m")
        assert (out["status"], out["winner"], out["from"]) == ("win", "N", "W"), out
        # N 立门 1: E 立门 + 庄 -> 8; S 立门 -> 4; W 立门 + 点炮 -> 8.
        assert out["deltas"] == {"E": -8, "S": -4, "W": -8, "N": 20}


# -- example 13: 撵庄 -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("tile", "each"), [("5p", 2), ("1s", 4), ("1p", 4), ("1m", 4)])
def test_nianzhuang(tile: str, each: int) -> None:
    e = f"{tile} 2m 4m 6m 8m 3p 7p 9p 3s 7s E S W N" if tile != "1m" else "1m 2p 4p 6p 8p 3s 5s 7s 9s E S W N C"
    hands = fill_hands({"E": e}, avoid=tile, wall=f"{tile} {tile} {tile}")
    actions = [act(s, "discard", tile) for s in "ESWN"]
    out = run(V, hands, actions, wall=f"{tile} {tile} {tile}")
    assert out["status"] == "in_progress"  # settled with the hand ...
    out = run(V, hands, actions, wall=f"{tile} {tile} {tile}", then="autoplay")
    assert out["status"] == "draw"
    assert item(out, "nianzhuang")["value"] == each
    assert out["deltas"] == {"E": -3 * each, "S": each, "W": each, "N": each}


def test_no_nianzhuang_when_someone_discards_differently_or_claims() -> None:
    tile = "5p"
    hands = fill_hands(
        {"E": "5p 2m 4m 6m 8m 3p 7p 9p 3s 7s E S W N", "W": "5p 5p 1m 3m 9m 1s 9s C F P 2s 4s 6s"},
        avoid=tile,
        wall="5p C C C",
    )
    out = run(
        V,
        hands,
        [act("E", "discard", "5p"), act("S", "discard", "5p"), act("W", "discard", "C")],
        wall="5p C C C",
        then="autoplay",
    )
    assert "nianzhuang" not in names(out) and out["deltas"] == {"E": 0, "S": 0, "W": 0, "N": 0}
    out = run(
        V,
        hands,
        [act("E", "discard", "5p"), act("W", "pung"), act("W", "discard", "C")],
        wall="5p C C C",
        then="autoplay",
    )
    assert "nianzhuang" not in names(out)


# -- example 14: 飘 ------------------------------------------------------------------------------------
WIN_E = "123m 456m 789p 234s 55s"


def test_piao_winner_collects_from_everyone() -> None:
    hands = fill_hands({"E": WIN_E})
    out = run(V, hands, [act("E", "win")], context={"piao": {"E": 10}})
    # hand: 立门 + 自摸 = 2, each pays 2 + 立门 + 庄 = 4 -> 16; plus 飘 10 from each.
    assert out["deltas"] == {"E": 78, "S": -26, "W": -26, "N": -26}
    assert item(out, "piao")["payments"] == {"E": 30, "S": -10, "W": -10, "N": -10}


PIAO_W = {"W": "123p 456p 789p 8m 9m S S"}


def _w_wins_on_n(options: dict[str, Any], piao: dict[str, int]) -> dict[str, Any]:
    hands = fill_hands(PIAO_W, avoid="7m P C", wall="P C 7m")
    e_first = format_tiles(parse_tiles(hands["E"])[-1:])
    actions = [
        act("E", "discard", e_first),
        act("S", "discard", "P"),
        act("W", "discard", "C"),
        act("N", "discard", "7m"),
        act("W", "win"),
    ]
    return run(V, hands, actions, wall="P C 7m", options=options, context={"piao": piao})


def test_piao_loser_pays_the_winner() -> None:
    out = _w_wins_on_n({}, {"E": 10})
    assert (out["winner"], out["from"]) == ("W", "N")
    # hand: W 立门 1; E 立门 + 庄 -> 8; S 立门 -> 4; N 立门 + 点炮 -> 8; E's 飘 10 to W.
    assert out["deltas"] == {"E": -18, "S": -4, "W": 30, "N": -8}


def test_anti_collusion_only_the_discarder_pays_and_bystanders_keep_their_piao() -> None:
    out = _w_wins_on_n({"anti_collusion": True}, {"E": 10, "N": 3})
    # Only N pays: 立门 1 + 立门 1 + 点炮 1 = 3 -> 8, and its own 飘 3; E's 飘 is not paid.
    assert out["deltas"] == {"E": 0, "S": 0, "W": 11, "N": -11}


def test_anti_collusion_self_draw_all_pay() -> None:
    hands = fill_hands({"E": WIN_E})
    out = run(V, hands, [act("E", "win")], options={"anti_collusion": True}, context={"piao": {"S": 5}})
    assert out["deltas"] == {"E": 53, "S": -21, "W": -16, "N": -16}


@pytest.mark.parametrize("piao", [{"X": 1}, {"E": -1}, {"E": True}, {"E": 1.5}, [1, 2]])
def test_bad_piao_context_is_refused(piao: Any) -> None:
    with pytest.raises(OptionsError):
        get_variant(V).validate_context({"piao": piao})
    with pytest.raises(OptionsError):
        get_variant(V).validate_context({"dealer_streak": 2})


# -- example 15: the end of the wall ------------------------------------------------------------------
def test_no_kong_leaves_14_undrawn() -> None:
    hand = build(fill_hands({}))
    while not hand.ended:
        step(hand)
    assert hand.result is not None and hand.result.status == "draw"
    assert hand.wall_left() == DEAD_WALL and sum(p.draws for p in hand.players) == 69


def test_final_four_one_each_self_draw_only_no_kong() -> None:
    hands = fill_hands({"W": "123m 456m 789m 123p 5s", "N": "123s 789s 456p 789p 5s"}, avoid="5s")
    wall = spare(hands, 65, avoid="5s") + " 5s 5s"
    hand = build(hands, wall=wall)
    while not hand.state.final_round:
        step(hand)
    # Draw 66 of 69 is W's: the first of the last four.
    assert hand.turn == 2 and hand.players[2].drawn == T("5s") and hand.wall.remaining() == DEAD_WALL + 3
    reason = hand.refusal(Action(2, DISCARD, tile=T("1m")))
    assert reason is not None and "不用打" in reason
    assert Action(2, WIN) in hand.legal_actions(2)
    assert hand.variant.forced_action(hand, 2) is None  # a win to decide on: the player chooses
    # W lays the tile aside: N may not win on it, nobody may claim it.
    hand.apply(Action(2, DISCARD, tile=T("5s")))
    reason = hand.refusal(Action(3, WIN))
    assert reason is not None and "only self-draw" in reason
    scenario.close_window(hand)
    # N draws the other 5s and wins by self-draw.
    assert hand.turn == 3 and hand.players[3].drawn == T("5s")
    hand.apply(Action(3, WIN))
    assert hand.result is not None and hand.result.winner == 3 and hand.result.self_drawn


def test_last_four_go_one_to_each_player_after_a_kong() -> None:
    hands = fill_hands({"E": "1111m 3m 5m 7m 9m 2p 4p 6p E S W", "W": "2222m 1p 3p 5p 7p 9p 1s 3s 5s C"}, avoid="1m 2m")
    hand = build(hands)
    hand.apply(Action(0, KONG, tile=T("1m")))
    drawers: list[int] = []
    refused_at_four = False
    while not hand.ended:
        if (
            hand.phase == PLAY
            and hand.players[hand.turn].drawn is not None
            and hand.turn == 2
            and not hand.state.final_round
        ):
            legal = Action(2, KONG, tile=T("2m")) in hand.legal_actions(2)
            assert legal == (hand.wall.remaining() > 4)
            if hand.wall.remaining() == 4:
                reason = hand.refusal(Action(2, KONG, tile=T("2m")))
                assert reason is not None and "last four" in reason
                refused_at_four = True
        if hand.phase == PLAY and hand.state.final_round and hand.players[hand.turn].drawn is not None:
            if not drawers or drawers[-1] != hand.turn:
                drawers.append(hand.turn)
            assert Action(hand.turn, KONG, tile=T("2m")) not in hand.legal_actions(hand.turn)
        step(hand)
    assert hand.result is not None and hand.result.status == "draw" and hand.wall_left() == 0
    assert len(drawers) == 4 and len(set(drawers)) == 4
    assert refused_at_four  # W drew the tile that left four: its kong was refused, not the final round yet
    assert hand.result.deltas == [6, -2, -2, -2]


# -- example 17: dealer rotation ----------------------------------------------------------------------
def test_dealer_rotation() -> None:
    v = get_variant(V)
    assert v.next_dealer_offset(Result("win", winner=1, from_seat=0, deltas=[-1, 1, 0, 0])) == 1
    assert v.next_dealer_offset(Result("win", winner=2, from_seat=0, deltas=[-1, 0, 1, 0])) == 1
    assert v.next_dealer_offset(Result("win", winner=0, self_drawn=True, deltas=[3, -1, -1, -1])) == 0
    assert v.next_dealer_offset(Result("draw")) == 0
    assert v.next_context(Result("draw"), {"piao": {"E": 1}}) == {}


# -- the rest of the machine -------------------------------------------------------------------------
def test_describe_and_house_options() -> None:
    d = get_variant(V).describe()
    assert (d["display_name"], d["source"], d["spec_section"]) == ("东北麻将", "004_f868d7dffdb39075.zh.txt", "D4")
    opts = {o["key"]: o for o in d["options"]}
    assert opts["cap"]["default"] == 8 and opts["cap"]["house"] is True
    assert opts["anti_collusion"]["default"] is False and opts["ready_single_wait"]["default"] is True
    for key in ("fan_self_draw", "fan_half_flush", "fan_full_flush", "fan_deal_in", "dealer_bonus"):
        assert opts[key]["house"] is True


def test_illegal_actions_change_nothing() -> None:
    hand = get_variant(V).new_hand(seed="refuse")
    before = hand.to_json()
    missing = next(t for t in range(NUM_KINDS) if not hand.players[0].counts[t])
    held = hand.players[0].hand[0]
    bad = [
        Action(0, "ready"),
        Action(1, "ready", tile=hand.players[1].hand[0]),
        Action(0, "flower"),
        Action(0, "ready", tile=held, tiles=(0, 1, 2)),
        Action(0, "ready", tile=missing),
    ]
    for a in bad:
        with pytest.raises(IllegalAction):
            hand.apply(a)
    assert hand.to_json() == before


# -- random play: the fast claim path agrees with the reasons; the wall ends as the text says -----------
def _options_match_reasons(hand: Hand) -> None:
    w = hand.window
    assert w is not None
    for seat in range(4):
        if seat == w.seat:
            continue
        t = w.tile
        candidates = [Action(seat, WIN), Action(seat, PUNG), Action(seat, KONG, tile=t)]
        candidates += [Action(seat, CHOW, tiles=(lo, lo + 1, lo + 2)) for lo in range(max(0, t - 2), t + 1)]
        offered = w.options.get(seat, [])
        for a in candidates:
            assert (hand._claim_reason(a) is None) == (a in offered), (a, hand._claim_reason(a), offered)


@pytest.mark.parametrize("seed", range(30))
def test_random_play_keeps_the_rules(seed: int) -> None:
    rng = random.Random(seed)
    opts = {"ready_single_wait": seed % 3 != 0, "anti_collusion": seed % 2 == 1}
    protection = rng.random() < 0.5
    hand = get_variant(V).new_hand(
        opts, {"piao": {"S": seed % 4}}, seed=f"dongbei-{seed}", open_empty_windows=protection
    )
    final_draws: list[int] = []
    while not hand.ended:
        if hand.phase == CLAIM:
            _options_match_reasons(hand)
        seats = [s for s in range(4) if hand.legal_actions(s)]
        seat = rng.choice(seats)
        acts = hand.legal_actions(seat)
        forced = hand.variant.forced_action(hand, seat)
        if forced is not None:
            assert forced in acts and not any(a.kind in (WIN, KONG) for a in acts)
        p = hand.players[seat]
        if hand.phase == PLAY and (p.flags.get("ready") or hand.state.final_round):
            assert all(a.tile == p.drawn for a in acts if a.kind == DISCARD)
            assert not any(a.kind == "ready" for a in acts)
        if hand.phase == PLAY and hand.state.final_round and p.drawn is not None:
            if not final_draws or final_draws[-1] != seat:
                final_draws.append(seat)
            assert not any(a.kind == KONG for a in acts)
        special = [a for a in acts if a.kind in (WIN, PUNG, KONG, CHOW, "ready")]
        hand.apply(rng.choice(special) if special and rng.random() < 0.6 else rng.choice(acts))
    r = hand.result
    assert r is not None and sum(r.deltas) == 0
    if r.status == "draw":
        assert hand.wall_left() == (0 if hand.kongs_made else DEAD_WALL)
        assert len(final_draws) == 4 and len(set(final_draws)) == 4
