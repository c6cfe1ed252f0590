"""The engine's front door and its driver: who owes a decision, what is forced, the defaults,
claim protection in the snapshot, and the ``ply`` counter (old snapshots still load)."""

from __future__ import annotations

import json
import random

import pytest

import games.engine as engine
from games.engine import (
    PASS,
    Action,
    Hand,
    advance,
    all_variants,
    bot_chooser,
    get_variant,
    idle_passes,
    load_hand,
    new_hand,
    rigged_hand,
    turn,
)
from games.engine.bots import make_bot
from games.engine.simulate import hand_seed, play_hand

VARIANTS = [v.key for v in all_variants()]


def walk(variant: str, seed: str, protection: bool) -> list[Hand]:
    """Every state a random-bot hand passes through (copies, so each stays as it was)."""
    hand = new_hand(variant, seed=seed, open_empty_windows=protection)
    bots = [make_bot("random") for _ in range(4)]
    states = [load_hand(hand.to_json())]

    def apply(action: Action) -> None:
        hand.apply(action)
        states.append(load_hand(hand.to_json()))

    assert advance(hand, bot_chooser(bots, random.Random(seed)), apply).ended
    return states


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("protection", [False, True])
def test_the_turn_agrees_with_the_hand_everywhere(variant: str, protection: bool) -> None:
    for i in range(3):
        for hand in walk(variant, hand_seed(f"driver-{protection}", i), protection):
            t = turn(hand)
            legal = {s: acts for s in range(4) if (acts := hand.legal_actions(s))}
            assert dict(t.legal) == legal and t.owed == sorted(legal)
            forced = [a for s in legal if (a := hand.variant.forced_action(hand, s)) is not None]
            assert t.forced == (forced[0] if forced else None)
            for seat in range(4):
                assert t.default(seat) == hand.timeout_action(seat)
            prompt = hand.variant.prompt(hand) or {}
            assert dict(t.asked) == prompt
            window = hand.window
            options = window.options if window is not None else {}
            for seat in range(4):
                assert t.has_claim(seat) == bool(prompt.get(seat) or options.get(seat))
            if window is not None and not prompt:
                assert t.idle == [s for s in window.waiting_on() if not options[s]]
                assert all(t.legal[s] == [Action(s, PASS)] for s in t.idle)
            else:
                assert t.idle == []
            assert t.ended == hand.ended and (t.owed == []) == hand.ended


def test_idle_passes_close_a_window_nobody_can_claim() -> None:
    for hand in walk("zhejiang_caishen", "idle", True):
        t = turn(hand)
        if t.in_window and not t.claimants:
            for action in idle_passes(hand):
                hand.apply(action)
            assert not turn(hand).in_window
            return
    raise AssertionError("no empty window met")


def test_claim_protection_is_saved_in_the_snapshot() -> None:
    for flag in (False, True):
        hand = new_hand("zhejiang_caishen", seed="snap", open_empty_windows=flag)
        saved = json.loads(json.dumps(hand.to_json()))
        assert saved["open_empty_windows"] is flag and load_hand(saved).open_empty_windows is flag
    dealt = new_hand("zhejiang_caishen", seed="deal")
    hands = [list(p.hand) for p in dealt.players]
    rigged = rigged_hand("zhejiang_caishen", hands, flipped=dealt.wall.face_up_tiles()[0], open_empty_windows=True)
    assert rigged.open_empty_windows and load_hand(rigged.to_json()).open_empty_windows
    assert not rigged_hand("zhejiang_caishen", hands, flipped=dealt.wall.face_up_tiles()[0]).open_empty_windows


def test_a_snapshot_saved_before_ply_still_loads() -> None:
    """Stored hands and replays name the counter ``seq`` and carry no claim protection flag: the
    platform always played with it on."""
    hand = new_hand("zhejiang_caishen", seed="old", open_empty_windows=True)
    advance(hand, bot_chooser([make_bot("greedy")] * 4), max_actions=7)
    old = hand.to_json()
    old["seq"] = old.pop("ply")
    del old["open_empty_windows"]
    loaded = load_hand(old)
    assert loaded.ply == hand.ply == 7 and loaded.open_empty_windows
    assert loaded.to_json() == hand.to_json()
    assert "seq" not in loaded.to_json()


def test_the_simulator_plays_with_claim_protection_as_the_live_table() -> None:
    played = play_hand(get_variant("zhejiang_caishen"), "sim", [make_bot("greedy") for _ in range(4)])
    assert played.hand.open_empty_windows
    passes = sum(a.kind == PASS for a in played.actions)
    discards = sum(e.kind == "discard" for e in played.events)
    assert passes >= discards  # a window after every discard; most are passed by all three
    assert played.hand.ply == len(played.actions)


def test_the_front_door_exports_the_public_surface() -> None:
    for name in (
        "Hand",
        "Action",
        "Event",
        "IllegalAction",
        "new_hand",
        "rigged_hand",
        "turn",
        "parse_tile",
        "tile_str",
    ):
        assert name in engine.__all__ and hasattr(engine, name)


def test_claim_protection_is_set_at_creation_only() -> None:
    hand = new_hand("zhejiang_caishen", seed="flag")
    with pytest.raises(AttributeError):
        hand.open_empty_windows = True  # type: ignore[misc]
    protected = hand.with_claim_protection()
    assert protected.open_empty_windows and not hand.open_empty_windows
    assert {**protected.to_json(), "open_empty_windows": False} == hand.to_json()
    assert not protected.with_claim_protection(False).open_empty_windows


def choosing(log: list[tuple[int, int]]) -> engine.Chooser:
    """The greedy bots' chooser, noting every (ply, seat) it is asked for."""
    greedy = bot_chooser([make_bot("greedy")] * 4)

    def choose(hand: Hand, seat: int, legal: list[Action]) -> Action:
        assert len(legal) > 1  # a seat with one legal action is never asked
        log.append((hand.ply, seat))
        return greedy(hand, seat, legal)

    return choose


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_play_loop_stops_where_a_person_must_decide(variant: str) -> None:
    """Seat 2 is a person: the loop stops only with seat 2 alone owing a decision (every
    automatic seat that owed one beside it has answered), and never asks the chooser for it."""
    hand = new_hand(variant, seed=hand_seed("people", 0), open_empty_windows=True)
    asked: list[tuple[int, int]] = []
    choose = choosing(asked)
    stops = windows = 0
    while True:
        t = advance(hand, choose, automatic=lambda seat: seat != 2)
        if t.ended:
            break
        assert t.owed == [2] and t.forced is None
        assert all(seat != 2 for _, seat in asked)
        stops += 1
        windows += t.in_window
        legal = t.legal[2]
        hand.apply(legal[0] if len(legal) == 1 else greedy_choice(hand, 2, legal))
    assert stops > 5 and windows > 0 and asked


def greedy_choice(hand: Hand, seat: int, legal: list[Action]) -> Action:
    return make_bot("greedy").choose(hand, seat, random.Random(hand.ply), legal)


def test_the_play_loop_pauses_before_a_bot_and_counts_its_actions() -> None:
    hand = new_hand("zhejiang_caishen", seed="pause", open_empty_windows=True)
    t = advance(hand, bot_chooser([make_bot("greedy")] * 4), pause_before_bots=True)
    assert hand.ply == 0 and t.owed == [0]  # the dealer's first discard waits for the bot
    for most in (1, 2, 5):
        before = hand.ply
        advance(hand, bot_chooser([make_bot("greedy")] * 4), max_actions=most)
        assert hand.ply == before + most
