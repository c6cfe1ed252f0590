"""The bots: legal choices only, GreedyBot's win/claim/discard policy, determinism."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from games.engine import shapes
from games.engine.bots import BOTS, Bot, GreedyBot, RandomBot, connectivity, isolated, make_bot, split_counts
from games.engine.driver import decide, turn
from games.engine.hand import CLAIM, PLAY, Hand
from games.engine.simulate import bot_rng
from games.engine.state import CHOW, DISCARD, KONG, PASS, PUNG, WIN, Action
from games.engine.strong_bot import StrongBot
from games.engine.tiles import parse_tile, parse_tiles, to_counts
from games.engine.variants import all_variants, get_variant
from tests.engine.rig import act, fill_hands, hand_after

V = "zhejiang_caishen"
VARIANTS = [v.key for v in all_variants()]
MIXES = [["greedy"] * 4, ["random"] * 4, ["greedy", "random", "greedy", "random"], ["random", "greedy"] * 2]


def decisions(variant: str, seed: str, names: list[str]) -> Iterator[tuple[Hand, int, list[Action], Action]]:
    """Play a hand; before each action is applied, yield (hand, seat, its legal actions, the bot's choice)."""
    hand = get_variant(variant).new_hand(seed=seed)
    bots = [make_bot(n) for n in names]
    rng = bot_rng(seed)
    while not hand.ended:
        turns = list(turn(hand).legal.items())
        chosen = [bots[s].choose(hand, s, rng, legal) for s, legal in turns]
        for (seat, legal), action in zip(turns, chosen, strict=True):
            yield hand, seat, legal, action
        for action in chosen:
            hand.apply(action)


def shanten_of(tiles: list[int], hand: Hand) -> int:
    counts, wilds = split_counts(tiles, hand.wilds())
    return shapes.shanten(counts, wilds)


def without(tiles: list[int], *remove: int) -> list[int]:
    rest = list(tiles)
    for t in remove:
        rest.remove(t)
    return rest


# --------------------------------------------------------------------------------- legality
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("names", MIXES, ids=["-".join(m) for m in MIXES])
@pytest.mark.parametrize("seed", ["a", "b", "c", "d"])
def test_bots_choose_only_legal_actions(variant: str, names: list[str], seed: str) -> None:
    for _hand, seat, legal, action in decisions(variant, seed, names):
        assert action in legal
        assert action.seat == seat


@pytest.mark.parametrize("name", sorted(BOTS))
def test_bot_without_the_legal_list_asks_the_hand(name: str) -> None:
    hand = get_variant(V).new_hand(seed="asks")
    bot = make_bot(name)
    with_list = bot.choose(hand, 0, random.Random(5), hand.legal_actions(0))
    alone = make_bot(name).choose(hand, 0, random.Random(5))
    assert with_list == alone and with_list in hand.legal_actions(0)


@pytest.mark.parametrize("bot", [RandomBot(), GreedyBot(), StrongBot()])
def test_bots_refuse_an_empty_choice(bot: Bot) -> None:
    hand = get_variant(V).new_hand(seed="empty")
    with pytest.raises(ValueError):
        bot.choose(hand, 1, random.Random(0), [])


def test_registry_and_unknown_bot() -> None:
    assert set(BOTS) == {"random", "greedy", "strong"}
    assert isinstance(make_bot("random"), RandomBot) and isinstance(make_bot("greedy"), GreedyBot)
    assert isinstance(make_bot("strong"), StrongBot)
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("clever")


# ------------------------------------------------------------------------------- RandomBot
def test_random_bot_is_uniform_and_may_pass() -> None:
    acts = [Action(1, PUNG), Action(1, CHOW, tiles=(3, 4, 5)), Action(1, PASS)]
    hand = get_variant(V).new_hand(seed="uniform")
    rng = random.Random(0)
    seen = Counter(RandomBot().choose(hand, 1, rng, acts) for _ in range(3000))
    assert set(seen) == set(acts)
    assert all(900 < n < 1100 for n in seen.values())


# ------------------------------------------------------------------------------- GreedyBot
@pytest.mark.parametrize("seed", [f"w{i}" for i in range(12)])
def test_greedy_wins_whenever_offered(seed: str) -> None:
    for _hand, seat, legal, action in decisions(V, seed, ["greedy", "random", "greedy", "random"]):
        if seat in (0, 2) and any(a.kind == WIN for a in legal):
            assert action.kind == WIN


def test_greedy_seats_do_get_offered_wins() -> None:
    # Otherwise the test above would prove nothing.
    offered = sum(
        1
        for seed in (f"w{i}" for i in range(12))
        for _h, seat, legal, _a in decisions(V, seed, ["greedy"] * 4)
        if any(a.kind == WIN for a in legal)
    )
    assert offered >= 10


HEAVEN = {"E": "123m 456m 789p 234s 55s"}


def test_greedy_takes_a_dealt_win() -> None:
    hand = hand_after(V, fill_hands(HEAVEN, flipped="C"), [], flipped="C")
    assert hand.phase == PLAY and Action(0, WIN) in hand.legal_actions(0)
    assert GreedyBot().choose(hand, 0, random.Random(0)) == Action(0, WIN)


RON = {
    "E": "9p 1s 2s 3s 4s 6s 7s 8s 9s E E W W N",
    "S": "123m 456m 789m 123p 9p",
}


def test_greedy_wins_on_a_discard() -> None:
    hand = hand_after(V, fill_hands(RON, avoid="9p", flipped="C"), [act("E", "discard", "9p")], flipped="C")
    assert hand.phase == CLAIM and Action(1, WIN) in hand.legal_actions(1)
    assert GreedyBot().choose(hand, 1, random.Random(0)) == Action(1, WIN)


WILD_CHOW = {
    "E": "5p 1m 2m 3m 7m 8m 9m 1p 2p 3p 7s 8s 9s W",
    "S": "4p 6p 1s 1s 1s 9s 9s 9s E E E S S",
}


def test_greedy_never_chows_a_discarded_wild() -> None:
    # Wild 5p (indicator 5m): chowing the discarded 5p is legal but makes S 相公.
    hands = fill_hands(WILD_CHOW, avoid="5p", flipped="5m")
    hand = hand_after(V, hands, [act("E", "discard", "5p")], flipped="5m")
    legal = hand.legal_actions(1)
    assert Action(1, CHOW, tiles=tuple(parse_tiles("456p"))) in legal
    assert GreedyBot().choose(hand, 1, random.Random(0), legal) == Action(1, PASS)


PUNG_HELPS = {
    "E": "7p 1m 2m 3m 7m 8m 9m 1p 2p 3p 7s 8s 9s W",
    "S": "7p 7p 1s 2s 3s 4s 5s 6s E S W N C",
}


def test_greedy_pungs_when_it_lowers_shanten_and_not_otherwise() -> None:
    hands = fill_hands(PUNG_HELPS, avoid="7p", flipped="F")
    hand = hand_after(V, hands, [act("E", "discard", "7p")], flipped="F")
    legal = hand.legal_actions(1)
    assert Action(1, PUNG) in legal
    s = hand.players[1].hand
    p7 = parse_tile("7p")
    assert shanten_of(without(s, p7, p7), hand) < shanten_of(s, hand)
    assert GreedyBot().choose(hand, 1, random.Random(0), legal) == Action(1, PUNG)


def test_greedy_claims_only_to_lower_shanten_and_discards_to_the_minimum() -> None:
    claims = discards = 0
    for seed in (f"g{i}" for i in range(15)):
        for hand, seat, legal, action in decisions(V, seed, ["greedy", "random", "greedy", "random"]):
            if seat not in (0, 2):
                continue
            tiles = hand.players[seat].hand
            wilds = hand.wilds()
            if action.kind in (CHOW, PUNG):
                claims += 1
                assert hand.window is not None
                t = hand.window.tile
                assert t not in wilds
                used = without(list(action.tiles or ()), t) if action.kind == CHOW else [t, t]
                assert shanten_of(without(tiles, *used), hand) < shanten_of(tiles, hand)
            elif action.kind == DISCARD and any(a.kind == DISCARD for a in legal):
                discards += 1
                assert action.tile is not None
                after = {
                    a.tile: shanten_of(without(tiles, a.tile), hand)
                    for a in legal
                    if a.kind == DISCARD and a.tile is not None
                }
                best = min(after.values())
                assert after[action.tile] == best, f"{seed}: discarded {action.tile} for {after}"
                if action.tile in wilds:
                    assert all(t in wilds for t, s in after.items() if s == best), "threw a wild it could keep"
            elif action.kind == PASS and hand.window is not None and hand.window.tile not in wilds:
                t = hand.window.tile
                for a in legal:
                    if a.kind in (CHOW, PUNG):
                        used = without(list(a.tiles or ()), t) if a.kind == CHOW else [t, t]
                        assert shanten_of(without(tiles, *used), hand) >= shanten_of(tiles, hand)
    assert claims > 0 and discards > 100


def test_greedy_kongs_only_when_it_costs_no_shanten() -> None:
    kongs = 0
    for seed in (f"k{i}" for i in range(30)):
        for hand, seat, legal, action in decisions(V, seed, ["greedy"] * 4):
            if action.kind != KONG or hand.phase != PLAY:
                continue
            kongs += 1
            tiles = hand.players[seat].hand
            assert action.tile is not None
            rest = [t for t in tiles if t != action.tile]
            best_discard = min(
                shanten_of(without(tiles, a.tile), hand) for a in legal if a.tile is not None and a.kind == DISCARD
            )
            assert shanten_of(rest, hand) <= best_discard
    assert kongs > 0


def test_greedy_is_deterministic_given_rng() -> None:
    def run(seed: str) -> list[Action]:
        return [a for _h, _s, _l, a in decisions(V, seed, ["greedy"] * 4)]

    assert run("det") == run("det")


def test_greedy_prefers_isolated_honours_and_keeps_wilds() -> None:
    # Wild 5s (indicator 5p).  Loose: N (honour) and 9s (terminal); two wilds.
    hands = fill_hands({"E": "123m 456m 78p 24s 9s 5s 5s N"}, flipped="5p")
    hand = hand_after(V, hands, [], flipped="5p")
    choice = GreedyBot().choose(hand, 0, random.Random(0))
    assert choice == Action(0, DISCARD, tile=parse_tile("N"))


def test_isolation_and_connectivity_helpers() -> None:
    counts = to_counts(parse_tiles("1m 4m 9p 7p E E S"))
    assert isolated(counts, parse_tile("1m")) and isolated(counts, parse_tile("S"))
    assert not isolated(counts, parse_tile("E"))  # a pair
    assert not isolated(counts, parse_tile("9p"))  # 7p is two ranks away
    assert connectivity(counts, parse_tile("E")) > connectivity(counts, parse_tile("S"))
    assert connectivity(counts, parse_tile("9p")) > connectivity(counts, parse_tile("1m"))
    c, w = split_counts(parse_tiles("5p 5p 1m 1h"), frozenset({parse_tile("5p")}))
    assert w == 2 and sum(c) == 1 and c[parse_tile("1m")] == 1


@pytest.mark.parametrize("seed", ["m1", "m2"])
def test_decide_asks_every_seat_with_a_choice(seed: str) -> None:
    hand = get_variant(V).new_hand(seed=seed)
    bots: list[Any] = [make_bot("random") for _ in range(4)]
    rng = random.Random(0)
    while not hand.ended:
        waiting = {s for s in range(4) if hand.legal_actions(s)}
        chosen = decide(hand, bots, rng)
        assert {a.seat for a in chosen} == waiting
        for a in chosen:
            hand.apply(a)
