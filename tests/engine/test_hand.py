"""The hand state machine: its fast claim path agrees with its explanations; refusals change nothing."""

from __future__ import annotations

import json
import random

import pytest

from games.engine.hand import CLAIM, ENDED, Hand
from games.engine.state import CHOW, KONG, PUNG, WIN, Action, IllegalAction
from games.engine.variants import get_variant, load_hand


def random_play(seed: int, check: bool = True) -> Hand:
    rng = random.Random(seed)
    hand = get_variant("zhejiang_caishen").new_hand(seed=f"hand-{seed}", open_empty_windows=rng.random() < 0.5)
    while hand.phase != ENDED:
        if hand.phase == CLAIM and check:
            assert_options_match_reasons(hand)
        seats = [s for s in range(4) if hand.legal_actions(s)]
        seat = rng.choice(seats)
        acts = hand.legal_actions(seat)
        # Prefer the interesting moves now and then so that claims and kongs happen.
        special = [a for a in acts if a.kind in (WIN, PUNG, KONG, CHOW)]
        hand.apply(rng.choice(special) if special and rng.random() < 0.6 else rng.choice(acts))
    return hand


def assert_options_match_reasons(hand: Hand) -> None:
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
            legal = hand._claim_reason(a) is None
            assert legal == (a in offered), (a, hand._claim_reason(a), offered)


@pytest.mark.parametrize("seed", range(40))
def test_random_hands_end_and_options_agree(seed: int) -> None:
    hand = random_play(seed)
    assert hand.result is not None
    assert sum(hand.result.deltas) == 0


def test_refused_action_changes_nothing() -> None:
    hand = get_variant("zhejiang_caishen").new_hand(seed="refuse")
    before = json.dumps(hand.to_json(), sort_keys=True)
    missing = next(t for t in range(34) if not hand.players[0].counts[t])
    for bad in [
        Action(1, "discard", tile=hand.players[1].hand[0]),
        Action(0, "discard", tile=missing),
        Action(0, PUNG),
        Action(0, "fly"),
        Action(2, "pass"),
        Action(0, KONG, tile=missing),
    ]:
        with pytest.raises(IllegalAction):
            hand.apply(bad)
        assert json.dumps(hand.to_json(), sort_keys=True) == before


def test_view_hides_other_hands_and_the_wall() -> None:
    hand = get_variant("zhejiang_caishen").new_hand(seed="views")
    public = hand.public_view()
    assert all(p["hand"] is None and p["drawn"] is None for p in public["players"])
    assert "seed" not in public and "wall" not in public
    mine = hand.view(1)
    assert mine["players"][1]["hand"] is not None
    assert [p["hand"] for i, p in enumerate(mine["players"]) if i != 1] == [None, None, None]
    assert mine["table"]["wilds"] and mine["table"]["indicator"]


def test_snapshot_round_trip_continues_identically() -> None:
    a = get_variant("zhejiang_caishen").new_hand(seed="snap")
    for _ in range(7):
        a.apply(a.timeout_action(a.turn) or Action(a.turn, "pass"))
        while a.phase == CLAIM and a.window is not None:
            a.apply(Action(a.window.waiting_on()[0], "pass"))
    b = load_hand(json.loads(json.dumps(a.to_json())))
    assert b.to_json() == a.to_json()
    while a.phase != ENDED:
        seat = a.window.waiting_on()[0] if a.window is not None else a.turn
        act = a.timeout_action(seat)
        assert act is not None
        assert a.apply(act) == b.apply(act)
    assert b.phase == ENDED and a.result is not None and b.result is not None
    assert a.result.to_json() == b.result.to_json()
