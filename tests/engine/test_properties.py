"""Property tests of the hand state machine, driven by bots over random seeds.

Each example deals a real seeded hand and lets a random mix of ``RandomBot``
(which claims and discards anything, reaching odd corners) and ``GreedyBot``
(which finishes hands with wins) play it, checking invariants at every step.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.bots import make_bot
from games.engine.driver import decide
from games.engine.hand import CLAIM, ENDED, PLAY, Hand
from games.engine.state import (
    CHOW,
    DISCARD,
    KONG,
    KONG_CONCEALED,
    PASS,
    PUNG,
    WIN,
    Action,
    Event,
    IllegalAction,
    seat_name,
)
from games.engine.tiles import NUM_KINDS, format_tiles, parse_tile, tile_str, to_counts
from games.engine.variants import all_variants, get_variant, load_hand
from games.engine.wall import seed_commitment
from tests.engine.rig import ROB_ACTIONS, ROB_HANDS, act, fill_hands, hand_after

VARIANTS = [v.key for v in all_variants()]
# At most 83 tiles are drawn (head and tail) and at most 16 chows/pungs give a
# turn without a draw; each such turn is one own action (discard, kong, win)
# plus at most three answers to it.  Bot hands take about 120 at the most.
ACTION_BOUND = (83 + 16 + 1) * 4

PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# The prefix makes a seed recognisable anywhere in a view (a bare "0" would be in every one).
seeds = st.text(alphabet="0123456789abcdef", min_size=1, max_size=12).map(lambda s: f"seed:{s}")
bot_mixes = st.lists(st.sampled_from(["random", "greedy"]), min_size=4, max_size=4)
rng_seeds = st.integers(min_value=0, max_value=2**32 - 1)
variant_keys = st.sampled_from(VARIANTS)


def steps(hand: Hand, bot_names: list[str], rng: random.Random) -> Iterator[tuple[Action, list[Event]]]:
    """Play ``hand`` to the end with the named bots, yielding every applied action and its events."""
    bots = [make_bot(n) for n in bot_names]
    count = 0
    while not hand.ended:
        for action in decide(hand, bots, rng):
            assert action in hand.legal_actions(action.seat), f"bot chose illegal {action}"
            events = hand.apply(action)
            count += 1
            assert count <= ACTION_BOUND, "hand did not end within the bound"
            yield action, events


# ---------------------------------------------------------------------------------- invariants
def tile_census(hand: Hand) -> Counter[int]:
    """Every tile the state accounts for: concealed, melded, unclaimed discards, flowers, wall."""
    c: Counter[int] = Counter()
    for p in hand.players:
        c.update(p.hand)
        c.update(p.flowers)
        for m in p.melds:
            c.update(m.tiles)
        claimed = set(p.claimed_discards)
        # A claimed discard lies in the claimer's meld; count it there only.
        c.update(t for i, t in enumerate(p.discards) if i not in claimed)
    w = hand.wall
    c.update(w.tiles[i] for i in range(len(w.tiles)) if not w.taken[i])  # face-up indicator included
    if hand.window is not None and hand.window.kind == "added_kong":
        c[hand.window.tile] += 1  # the 4th tile is in flight until nobody robs it
    return c


def check_public_view(hand: Hand) -> None:
    v = hand.public_view()
    dump = json.dumps(v, ensure_ascii=False)
    assert v["seat"] is None and v["legal_actions"] == []
    assert "wall" not in v and "tiles" not in v
    for pv, p in zip(v["players"], hand.players, strict=True):
        assert pv["hand"] is None and pv["drawn"] is None
        assert pv["hand_count"] == len(p.hand)
        for mv in pv["melds"]:
            if mv["kind"] == KONG_CONCEALED:
                assert mv["tiles"] is None
    if v["window"] is not None:
        assert set(v["window"]) == {"on", "seat", "tile"}  # nobody's options or answers
    if hand.ended:
        assert v["seed"] == hand.seed
    else:
        assert v.get("seed") is None and "revealed" not in v
        assert hand.seed is not None and hand.seed not in dump


def check_seat_view(hand: Hand, seat: int) -> None:
    v = hand.view(seat)
    assert v["seat"] == seat_name(seat)
    for i, (pv, p) in enumerate(zip(v["players"], hand.players, strict=True)):
        if i == seat:
            assert pv["hand"] == format_tiles(p.hand)
            assert pv["drawn"] == (tile_str(p.drawn) if p.drawn is not None else None)
            continue
        assert pv["hand"] is None and pv["drawn"] is None
        for mv in pv["melds"]:
            if mv["kind"] == KONG_CONCEALED:
                assert mv["tiles"] is None
    assert all(a["seat"] == seat_name(seat) for a in v["legal_actions"])
    if not hand.ended:
        assert v.get("seed") is None and "revealed" not in v
        assert hand.seed is not None and hand.seed not in json.dumps(v, ensure_ascii=False)


def check_events_private(hand: Hand, events: list[Event]) -> None:
    for e in events:
        others: list[int | None] = [None, *(s for s in range(4) if s != e.seat)]
        if e.kind == "draw":
            for reader in others:
                assert "tile" not in e.for_seat(reader), f"draw tile shown to {reader}"
            assert e.seat is not None and "tile" in e.for_seat(e.seat)
        meld = e.data.get("meld")
        if isinstance(meld, dict) and meld.get("kind") == KONG_CONCEALED:
            for reader in others:
                assert e.for_seat(reader)["meld"]["tiles"] is None
        if e.kind == "hand_end":
            assert e.data["seed"] == hand.seed
        else:
            assert hand.seed is not None and hand.seed not in json.dumps(e.to_json(), ensure_ascii=False)


def check_counts_in_step(hand: Hand) -> None:
    """Where a player keeps a count vector beside the hand list (a speed-up), the two agree."""
    for p in hand.players:
        counts = getattr(p, "counts", None)
        if counts is not None:
            assert list(counts) == to_counts(p.hand, len(counts))


def check_hand_sizes(hand: Hand) -> None:
    """Counting a kong as three, everyone holds ``hand_size`` tiles, and the player to act one more."""
    if hand.ended:
        return
    sizes = [len(p.hand) + 3 * len(p.melds) for p in hand.players]
    expected = [hand.variant.hand_size] * 4
    if hand.phase == PLAY:
        expected[hand.turn] += 1
    assert sizes == expected, f"hand sizes {sizes}, expected {expected} ({hand.phase})"


@PROPS
@given(variant=variant_keys, seed=seeds, bot_names=bot_mixes, rng_seed=rng_seeds)
def test_invariants_at_every_step(variant: str, seed: str, bot_names: list[str], rng_seed: int) -> None:
    v = get_variant(variant)
    hand = v.new_hand(seed=seed)
    full = Counter(v.tile_set(hand.options))
    assert hand.seed_hash == seed_commitment(seed)
    assert tile_census(hand) == full
    check_hand_sizes(hand)
    for _, events in steps(hand, bot_names, random.Random(rng_seed)):
        assert tile_census(hand) == full
        check_counts_in_step(hand)
        check_hand_sizes(hand)
        check_public_view(hand)
        for seat in range(4):
            check_seat_view(hand, seat)
            legal = hand.legal_actions(seat)
            timeout = hand.timeout_action(seat)
            if timeout is not None:
                assert timeout in legal, f"timeout {timeout} not legal"
            elif not hand.ended:
                assert hand.phase == CLAIM or seat != hand.turn, "the seat to play has no timeout default"
        check_events_private(hand, events)
        if hand.ended:
            kinds = [e.kind for e in events]
            assert kinds[-1] == "hand_end" and kinds.count("hand_end") == 1
    assert hand.phase == ENDED and hand.result is not None
    assert sum(hand.result.deltas) == 0
    assert all(isinstance(d, int) for d in hand.result.deltas)
    assert hand.legal_actions(0) == [] and all(hand.timeout_action(s) is None for s in range(4))


# ----------------------------------------------------------------------------------- snapshots
@PROPS
@given(
    variant=variant_keys,
    seed=seeds,
    bot_names=bot_mixes,
    rng_seed=rng_seeds,
    cut=st.floats(min_value=0.0, max_value=1.0),
)
def test_snapshot_round_trip_continues_identically(
    variant: str, seed: str, bot_names: list[str], rng_seed: int, cut: float
) -> None:
    hand = get_variant(variant).new_hand(seed=seed)
    # A first play-through fixes the choices and the length; the snapshot is taken a fraction into it.
    probe = get_variant(variant).new_hand(seed=seed)
    length = sum(1 for _ in steps(probe, bot_names, random.Random(rng_seed)))
    at = int(cut * length)
    rest: list[Action] = []
    rest_events: list[dict[str, Any]] = []
    snap: dict[str, Any] | None = None
    gen = steps(hand, bot_names, random.Random(rng_seed))
    for i in range(length + 1):
        if i == at:
            snap = hand.to_json()
            text = json.dumps(snap)
            assert json.loads(text) == snap
            restored = load_hand(json.loads(text))
            assert restored.to_json() == snap
            for s in range(4):
                assert restored.legal_actions(s) == hand.legal_actions(s)
                assert restored.view(s) == hand.view(s)
        if i == length:
            break
        action, events = next(gen)
        if i >= at:
            rest.append(action)
            rest_events.extend(e.to_json() for e in events)
    assert hand.ended and snap is not None
    again = load_hand(snap)
    replayed: list[dict[str, Any]] = []
    for action in rest:
        replayed.extend(e.to_json() for e in again.apply(action))
    assert replayed == rest_events
    assert again.to_json() == hand.to_json()
    assert again.result is not None and hand.result is not None
    assert again.result.to_json() == hand.result.to_json()


# -------------------------------------------------------------------------------- refusals
def wrong_actions(hand: Hand, rng: random.Random, count: int) -> Iterator[Action]:
    """Plausible but (mostly) illegal actions: other seats, tiles not held, claims out of place..."""
    w = hand.window
    for _ in range(count):
        seat = rng.choice([0, 1, 2, 3, 0, 1, 2, 3, 4, -1])
        kind = rng.choice([DISCARD, DISCARD, CHOW, PUNG, KONG, WIN, PASS, "ready", "flower"])
        tile = rng.randrange(NUM_KINDS)
        if kind in (DISCARD, KONG):
            # half the time a tile the seat really holds, so that "wrong seat/phase" is what is wrong
            if 0 <= seat < 4 and hand.players[seat].hand and rng.random() < 0.5:
                tile = rng.choice(hand.players[seat].hand)
            yield Action(seat, kind, tile=tile)
        elif kind == CHOW:
            base = w.tile if w is not None and rng.random() < 0.7 else tile
            lo = base - rng.randrange(3)
            yield Action(seat, CHOW, tiles=(lo, lo + 1, lo + 2))
        else:
            yield Action(seat, kind)
    # A legal action of one seat, replayed by each other seat.
    for s in range(4):
        for a in hand.legal_actions(s)[:3]:
            for other in range(4):
                if other != s:
                    yield Action(other, a.kind, tile=a.tile, tiles=a.tiles)


def is_listed(hand: Hand, action: Action) -> bool:
    return 0 <= action.seat < 4 and action in hand.legal_actions(action.seat)


@PROPS
@given(variant=variant_keys, seed=seeds, bot_names=bot_mixes, rng_seed=rng_seeds)
def test_actions_not_listed_are_refused_without_effect(
    variant: str, seed: str, bot_names: list[str], rng_seed: int
) -> None:
    hand = get_variant(variant).new_hand(seed=seed)
    rng = random.Random(rng_seed ^ 0x5EED)

    def probe() -> None:
        before = hand.to_json()
        for wrong in wrong_actions(hand, rng, 12):
            if is_listed(hand, wrong):
                continue
            with pytest.raises(IllegalAction):
                hand.apply(wrong)
        assert hand.to_json() == before

    probe()
    for _ in steps(hand, bot_names, random.Random(rng_seed)):
        probe()


# ------------------------------------------------------------------------- seeds and walls
@settings(max_examples=30, deadline=None)
@given(variant=variant_keys, seed=seeds, other=seeds)
def test_same_seed_same_wall_and_commitment(variant: str, seed: str, other: str) -> None:
    v = get_variant(variant)
    a, b = v.new_hand(seed=seed), v.new_hand(seed=seed)
    assert a.to_json() == b.to_json()
    assert a.seed_hash == seed_commitment(seed) != seed
    if other != seed:
        c = v.new_hand(seed=other)
        assert c.wall.tiles + [t for p in c.players for t in p.hand] != a.wall.tiles + [
            t for p in a.players for t in p.hand
        ]
        assert c.seed_hash != a.seed_hash


@pytest.mark.parametrize("variant", VARIANTS)
def test_different_seeds_give_different_walls(variant: str) -> None:
    v = get_variant(variant)
    walls = {tuple(v.new_hand(seed=f"s{i}").wall.tiles) for i in range(20)}
    assert len(walls) == 20


@pytest.mark.parametrize("variant", VARIANTS)
def test_seed_is_revealed_only_at_the_end(variant: str) -> None:
    hand = get_variant(variant).new_hand(seed="reveal-me")
    seen_end: list[Event] = []
    for _, events in steps(hand, ["greedy"] * 4, random.Random(1)):
        for e in events:
            if e.kind == "hand_end":
                seen_end.append(e)
        if not hand.ended:
            assert hand.public_view().get("seed") is None
    assert len(seen_end) == 1 and seen_end[0].for_seat(None)["seed"] == "reveal-me"
    assert hand.public_view()["seed"] == "reveal-me"
    assert seed_commitment(hand.public_view()["seed"]) == hand.public_view()["seed_hash"]


# ------------------------------------------------------------------ engine bugs and regressions


def test_robbed_tile_stays_on_the_table() -> None:
    # A case the census above turns up: the robbed 7m must stay in the state (hand.py keeps it).
    hands = fill_hands(ROB_HANDS, avoid="7m P C E", flipped="9p", wall="E E E 7m")
    hand = hand_after("zhejiang_caishen", hands, [*ROB_ACTIONS, act("W", "win")], flipped="9p", wall="E E E 7m")
    assert hand.result is not None and hand.result.win_kind == "robbing_kong"
    full = Counter(get_variant("zhejiang_caishen").tile_set(hand.options))
    assert tile_census(hand) == full
    assert parse_tile("7m") in hand.players[2].hand  # it joined the winner's hand


HEAVEN = {"E": "1111m 23m 789p 234s 55s", "S": "7p 7p 1s 1s 1s 9s 9s 9s E E E S S"}


def heaven_hand(actions: list[dict[str, Any]]) -> Hand:
    """E holds a dealt win (天和) and a concealed kong of 1m; S can pung E's 7p."""
    return hand_after("zhejiang_caishen", fill_hands(HEAVEN, avoid="7p", flipped="C"), actions, flipped="C")


# Each names a field its kind does not take; the listed action is the one without it.
EXTRANEOUS: dict[str, tuple[list[dict[str, Any]], Action]] = {
    "own-turn win naming a tile": ([], Action(0, WIN, tile=parse_tile("9m"))),
    "discard naming chow tiles": ([], Action(0, DISCARD, tile=parse_tile("7p"), tiles=(0, 1, 2))),
    "kong naming chow tiles": ([], Action(0, KONG, tile=parse_tile("1m"), tiles=(0, 1, 2))),
    "pass naming a tile": ([act("E", "discard", "7p")], Action(1, PASS, tile=parse_tile("7p"))),
}


@pytest.mark.parametrize("case", sorted(EXTRANEOUS))
def test_action_with_extraneous_fields_is_refused(case: str) -> None:
    actions, wrong = EXTRANEOUS[case]
    hand = heaven_hand(actions)
    assert not is_listed(hand, wrong)
    assert Action(wrong.seat, wrong.kind, tile=wrong.tile if wrong.kind in (DISCARD, KONG) else None) in (
        hand.legal_actions(wrong.seat)
    ), "the same action without the extra field must be legal"
    before = hand.to_json()
    with pytest.raises(IllegalAction):
        hand.apply(wrong)
    assert hand.to_json() == before


# The wrong actions above use real tile codes; codes outside 0..41 must be refused just the same.
OUT_OF_RANGE = {
    "discard 200": Action(0, DISCARD, tile=200),
    "discard -1": Action(0, DISCARD, tile=-1),
    "kong 99": Action(0, KONG, tile=99),
}


@pytest.mark.parametrize("case", sorted(OUT_OF_RANGE))
def test_out_of_range_tile_codes_are_refused(case: str) -> None:
    hand = get_variant("zhejiang_caishen").new_hand(seed="seed:range")
    before = hand.to_json()
    with pytest.raises(IllegalAction):
        hand.apply(OUT_OF_RANGE[case])
    assert hand.to_json() == before
