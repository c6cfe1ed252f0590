"""D3 (漳州麻将) played by bots: invariants at every step, the 游金 restriction, flowers, zero sum."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import load_hand, scenario
from games.engine.hand import CLAIM, PLAY, Hand
from games.engine.simulate import simulate
from games.engine.state import DISCARD, PASS, WIN, Action
from games.engine.tiles import is_flower, parse_tile
from games.engine.variants import get_variant
from games.engine.variants.zhangzhou.rules import PROMPT, RANK, ROB_GOLD, ROB_KONG, YOU
from tests.engine.rig import SCENARIOS
from tests.engine.test_properties import (
    check_counts_in_step,
    check_events_private,
    check_hand_sizes,
    check_public_view,
    check_seat_view,
    steps,
    tile_census,
)
from tests.engine.test_zhangzhou import ROB, ROB_ALL, ROB_DEALER_GOLDS, table

V = "zhangzhou"
GOLDEN = SCENARIOS / "zhangzhou_double_you.json"
MIXES = [["greedy"] * 4, ["random"] * 4, ["random", "greedy", "greedy", "random"], ["greedy", "random"] * 2]


def restricted(hand: Hand, seat: int) -> bool:
    return any(s != seat for s in hand.state.double_you)


@pytest.mark.parametrize("seed", range(24))
def test_bot_hands_keep_every_rule(seed: int) -> None:
    v = get_variant(V)
    hand = v.new_hand(seed=f"zz-{seed}")
    full = Counter(v.tile_set(hand.options))
    seen: Counter[str] = Counter()
    rng = random.Random(seed)
    gen = steps(hand, MIXES[seed % len(MIXES)], rng)
    while not hand.ended:
        before_restricted = {s: restricted(hand, s) for s in range(4)}
        drawn = [p.drawn for p in hand.players]
        prompt = v.prompt(hand)
        action, events = next(gen)
        seen[action.kind] += 1
        if prompt is not None and action.seat in prompt:
            assert action.kind in (PASS, ROB_GOLD, ROB_KONG, "win")
        if action.kind == DISCARD and before_restricted[action.seat]:
            # 双游: the others may only throw the tile they just received.
            assert action.tile == drawn[action.seat]
        assert tile_census(hand) == full
        assert not any(is_flower(t) for p in hand.players for t in p.hand), "a flower stayed in a hand"
        assert sum(len(p.flowers) for p in hand.players) <= 8
        check_counts_in_step(hand)
        check_hand_sizes(hand)
        check_public_view(hand)
        check_events_private(hand, events)
        for s in range(4):
            check_seat_view(hand, s)
            legal = hand.legal_actions(s)
            timeout = hand.timeout_action(s)
            if timeout is not None:
                assert timeout in legal
            elif not hand.ended:
                assert hand.phase in (CLAIM, PROMPT) or s != hand.turn
        for s, p in enumerate(hand.players):
            assert p.flags.get(YOU, 0) in (0, 1, 2)
            if hand.phase == PLAY and s == hand.turn and restricted(hand, s) and p.drawn is not None:
                discards = [a.tile for a in hand.legal_actions(s) if a.kind == DISCARD]
                assert discards == [p.drawn]
    assert hand.result is not None and sum(hand.result.deltas) == 0
    assert all(isinstance(d, int) for d in hand.result.deltas)
    assert seen[DISCARD] > 0


def test_prompt_defaults_pass_and_the_draw_follows() -> None:
    # A seat asked before its draw (抢暗杠) has pass as its timeout; passing draws the tile.
    for i in range(200):
        hand = get_variant(V).new_hand(seed=f"prompt-{i}")
        rng = random.Random(i)
        for _action, _events in steps(hand, ["greedy"] * 4, rng):
            if hand.phase == PROMPT and hand.state.prompt["kind"] == ROB_KONG:
                seat = hand.turn
                assert hand.timeout_action(seat) == Action(seat, PASS)
                size = len(hand.players[seat].hand)
                hand.apply(Action(seat, PASS))
                assert hand.ended or len(hand.players[seat].hand) in (size, size + 1)
                return
    pytest.skip("no bot hand made a concealed kong")


def test_simulator_plays_zhangzhou_zero_sum() -> None:
    stats = simulate(V, 40, "zz-test")
    assert stats.hands == 40
    assert sum(stats.outcomes.values()) == 40
    assert stats.patterns["hand"] == stats.wins


@pytest.mark.parametrize("rng_seed", range(12))
def test_bots_respect_double_you(rng_seed: int) -> None:
    """From the golden 双游 (S threw a gold), bots play on: until S draws, the others may only
    self-draw or throw the tile they received, and nobody chows, pungs or kongs."""
    sc = json.loads(GOLDEN.read_text(encoding="utf-8"))
    hand = scenario.build_hand(sc)
    for i, raw in enumerate(sc["actions"][:2]):
        scenario.play_one(hand, scenario.parse_action(raw, i))
    assert hand.state.double_you == [1]
    mix = ["random", "greedy"] * 2 if rng_seed % 2 else ["random"] * 4
    gen = steps(hand, mix, random.Random(rng_seed))
    while hand.state.double_you and not hand.ended:
        drawn = [p.drawn for p in hand.players]
        action, _events = next(gen)
        assert action.kind in (DISCARD, PASS, WIN), action
        if action.kind == DISCARD and action.seat != 1:
            assert action.tile == drawn[action.seat]
    assert hand.ended or hand.turn == 1


def test_a_draw_waits_for_the_rob_gold_answers_like_a_claim_window() -> None:
    sc = {"variant": V, "hands": table({"S": ROB}, flipped="9s"), "flipped": "9s"}
    hand = scenario.build_hand(sc)  # live-table mode: no window opens on a discard nobody can claim
    assert get_variant(V).prompt(hand) == {1: [Action(1, ROB_GOLD)]}
    hand.apply(Action(0, DISCARD, tile=parse_tile("F")))
    assert hand.phase == CLAIM and hand.window is None and hand.turn == 1 and len(hand.players[1].hand) == 16
    for s in range(4):
        legal = hand.legal_actions(s)
        assert (legal == [Action(1, ROB_GOLD), Action(1, PASS)]) if s == 1 else (legal == [])
        assert hand.timeout_action(s) == (Action(1, PASS) if s == 1 else None)
    check_hand_sizes(hand)
    assert hand.public_view()["window"] is None and hand.public_view()["turn"] == "S"
    hand.apply(Action(1, PASS))
    assert hand.phase == PLAY and hand.turn == 1 and len(hand.players[1].hand) == 17


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), names=st.lists(st.sampled_from(["random", "greedy"]), min_size=4, max_size=4))
def test_random_hands_snapshot_and_replay(seed: int, names: list[str]) -> None:
    """A snapshot taken anywhere continues exactly as the original (prompts, 游金, flowers)."""
    v = get_variant(V)
    hand = v.new_hand(seed=f"snap-{seed}")
    played = [a for a, _ in steps(hand, names, random.Random(seed))]
    cut = seed % (len(played) + 1)
    again = v.new_hand(seed=f"snap-{seed}")
    for a in played[:cut]:
        again.apply(a)
    copy = load_hand(json.loads(json.dumps(again.to_json())))
    assert copy.to_json() == again.to_json()
    for a in played[cut:]:
        assert copy.apply(a) == again.apply(a)
    assert copy.result is not None and copy.result.to_json() == hand.result.to_json()  # type: ignore[union-attr]


def _rob_gold_outcome(hands: dict[str, str], answers: dict[int, Action], order: list[int]) -> Hand:
    hand = scenario.build_hand({"variant": V, "hands": hands, "flipped": "9s"})
    for seat in order:
        prompt = get_variant(V).prompt(hand)
        if prompt is None or seat not in prompt:
            break  # resolved already: nobody left could outbid the best answer
        hand.apply(answers[seat])
    return hand


@pytest.mark.parametrize("hands", [ROB_ALL, ROB_DEALER_GOLDS], ids=["others_golds", "dealer_golds"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_rob_gold_and_three_golds_do_not_depend_on_the_order_of_the_answers(
    hands: dict[str, str], data: st.DataObject
) -> None:
    """三金倒 before every 抢金, then the dealer, 下家, 对家, 上家: whatever answers come first."""
    asked = get_variant(V).prompt(scenario.build_hand({"variant": V, "hands": hands, "flipped": "9s"}))
    assert asked is not None and sorted(asked) == ([0, 1, 2, 3] if hands is ROB_ALL else [0, 1, 3])
    answers = {seat: data.draw(st.sampled_from([*acts, Action(seat, PASS)])) for seat, acts in asked.items()}
    order = data.draw(st.permutations(sorted(asked)))
    hand = _rob_gold_outcome(hands, answers, list(order))
    in_seat_order = _rob_gold_outcome(hands, answers, sorted(asked))
    plyless = [{k: v for k, v in h.to_json().items() if k != "ply"} for h in (hand, in_seat_order)]
    assert plyless[0] == plyless[1]  # the same hand, however many answers it needed
    said = [a for a in answers.values() if a.kind != PASS]
    if not said:
        assert not hand.ended and get_variant(V).prompt(hand) is None and hand.result is None
        return
    best = max(said, key=lambda a: (RANK[a.kind], -a.seat))  # seat = distance from the dealer (E)
    assert hand.result is not None and hand.result.winner == best.seat
    assert hand.result.win_kind == ("three_golds" if best.kind == WIN else "rob_gold")
