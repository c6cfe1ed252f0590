"""D2 (温州麻将) properties over many bot-played hands: the machine's fast claim options agree
with its explanations (白板 chows included), every discard obeys the discard obligation as an
independent re-statement of SPEC D2.2 reads it, no 财神 ever leaves a hand, and hands are zero-sum."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games.engine.bots import make_bot
from games.engine.hand import CLAIM, ENDED, Hand
from games.engine.state import CHOW, DISCARD, KONG, PUNG, WIN, Action, Event
from games.engine.tiles import WHITE
from games.engine.variants import get_variant

V = "wenzhou"
SEEDS = range(24)


def claim_candidates(hand: Hand, seat: int) -> list[Action]:
    """Every claim worth asking about: win, pung, kong, and each chow from held tiles."""
    w = hand.window
    assert w is not None
    t = w.tile
    out = [Action(seat, WIN), Action(seat, PUNG), Action(seat, KONG, tile=t)]
    held = sorted({x for x in hand.players[seat].hand})
    for i, a in enumerate(held):
        for b in held[i:]:
            out.append(Action(seat, CHOW, tiles=tuple(sorted((a, b, t)))))
    return list(dict.fromkeys(out))


def allowed_discards(hand: Hand, seat: int, last: int | None) -> set[int]:
    """SPEC D2.2 'Discard obligation', stated afresh: follow the previous single honour, else
    any single wind/dragon (白板 when it plays one), else anything but a 财神."""
    wild = hand.state.wilds[0]
    counts = Counter(hand.players[seat].hand)

    def honour(x: int) -> bool:
        face = wild if x == WHITE and wild != WHITE else x
        return x != wild and face >= 27

    singles = {x for x, n in counts.items() if n == 1 and honour(x)}
    if last is not None and last in singles:
        return {last}
    if singles:
        return singles
    return {x for x in counts if x != wild}


def play(seed: int, stats: Counter[str]) -> Hand:
    rng = random.Random(seed)
    hand = get_variant(V).new_hand(
        {"follow_wind": seed % 2 == 0}, seed=f"wz-{seed}", open_empty_windows=rng.random() < 0.5
    )
    bots = [make_bot(rng.choice(["random", "greedy"])) for _ in range(4)]
    last: int | None = None
    wild = hand.state.wilds[0]
    start_wilds = sum(p.hand.count(wild) for p in hand.players)
    while hand.phase != ENDED:
        if hand.phase == CLAIM and hand.window is not None:
            for seat in hand.window.waiting_on():  # an answer may change a seat's flags (过碰)
                offered = hand.window.options.get(seat, [])
                for a in claim_candidates(hand, seat):
                    assert (hand._claim_reason(a) is None) == (a in offered), (a, hand._claim_reason(a), offered)
                    if a in offered and a.kind == CHOW and a.tiles is not None and WHITE in a.tiles:
                        stats["white_chow_offered"] += 1
        seat = next(s for s in range(4) if hand.legal_actions(s))
        action = bots[seat].choose(hand, seat, rng)
        if action.kind == DISCARD:
            assert action.tile is not None
            assert action.tile != wild, "a 财神 was discarded"
            assert action.tile in allowed_discards(hand, seat, last), (action, last, hand.players[seat].hand)
            stats["discards"] += 1
        events: list[Event] = hand.apply(action)
        for e in events:
            if e.kind == "discard":
                last = None if e.data["tile"] is None else _code(e.data["tile"])
            elif e.kind in (CHOW, PUNG) or (e.kind == KONG and e.data.get("from")):
                last = None  # the claimed tile left the river
            elif e.kind == "follow_wind":
                stats["follow_wind"] += 1
    assert hand.result is not None and sum(hand.result.deltas) == 0
    held = sum(p.hand.count(wild) for p in hand.players)
    assert held + sum(p.discards.count(wild) for p in hand.players) >= start_wilds
    assert all(wild not in p.discards for p in hand.players)
    stats[hand.result.status] += 1
    return hand


def _code(text: str) -> int:
    from games.engine.tiles import parse_tile

    return parse_tile(text)


def test_bot_hands_keep_the_rules() -> None:
    stats: Counter[str] = Counter()
    for seed in SEEDS:
        play(seed, stats)
    assert stats["discards"] > 500 and stats["win"] and stats["draw"]
    assert stats["white_chow_offered"], "no 白板 chow was ever offered: the stand-in path went untested"


@pytest.mark.parametrize("discard", ["P", "3m"])
def test_white_stand_in_chows_are_offered_and_agree(discard: str) -> None:
    """Rig the 下家 with 白板 beside the 财神's neighbours so the stand-in path is exercised."""
    from tests.engine.rig import act, hand_after

    hands = {
        "E": "P 1m 2m 3m 1p 2p 3p 4p 6p 7p 8p 9p 1s 2s 3s 4s 8s",
        "S": "4m 6m 3m 7m P 123p 789p 456s 9s 1s",
        "W": "1m 2m 3m 4m 6m 7m 8m 9m 1s 2s 3s 5s 6s 7s 9s 9p",
        "N": "1m 2m 3m 7m 8m 9m 1p 2p 3p 4p 6p 7p 8p 9p 6s 7s",
    }
    hand = hand_after(V, hands, [act("E", "discard", discard)], flipped="5m")
    assert hand.window is not None or hand.ended
    w = hand.window
    if w is None:
        return
    offered = w.options.get(1, [])
    assert any(a.kind == CHOW and a.tiles is not None and WHITE in a.tiles for a in offered)
    for a in claim_candidates(hand, 1):
        assert (hand._claim_reason(a) is None) == (a in offered), (a, hand._claim_reason(a))
