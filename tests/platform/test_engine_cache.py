"""The engine cache (games/runtime/engine_cache.py) is only ever a shortcut for the row.

The hand's record stays the authority: after every step the engine rebuilt from it (the last
snapshot and the actions since: games/records/rebuild.py) is the engine the cache holds; a step
applied elsewhere (another process: the row's seq moves on) is never answered from a stale
entry; an entry is used once per step and comes back only after a commit.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from games import services
from games.engine import load_hand
from games.engine.tiles import tile_str
from games.models import Hand
from games.runtime.engine_cache import EngineCache
from games.runtime.process import runtime
from tests.platform.live_helpers import started, started_rigged

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]


def one_step(hand: Hand, users: list[Any]) -> int:
    """One step by a person: a discard by the seat on turn, else a pass on an open claim."""
    engine = services.decoded_engine(hand)
    for wanted in ("discard", "pass"):
        for position, user in enumerate(users):
            for action in engine.legal_actions(hand.engine_seat(position)):
                if action.kind == wanted:
                    command = {"do": wanted} | ({"tile": tile_str(action.tile)} if action.tile is not None else {})
                    return services.submit(hand.pk, user, command, hand.seq)
    raise AssertionError("nobody must decide")


def test_the_row_always_holds_the_engine_the_cache_holds() -> None:
    table, hand, users = started("ec")
    hits_before = runtime().engines.hits
    for _ in range(12):
        hand.refresh_from_db()
        if hand.status != Hand.PLAYING:
            break
        seq = one_step(hand, users)
        hand.refresh_from_db()
        assert hand.seq == seq
        cached = runtime().engines.take(hand.pk, hand.seq, hand.seed)
        assert cached is not None, "a committed step leaves its engine in the cache"
        # The record holds the same hand: the cache only saves rebuilding it.
        assert cached.to_json() == services.decoded_engine(hand).to_json()
        runtime().engines.put(hand.pk, hand.seq, hand.seed, cached)
    assert runtime().engines.hits > hits_before  # later steps were served from the cache


def test_a_step_applied_elsewhere_is_not_answered_from_the_cache() -> None:
    table, hand, users = started_rigged("ew")
    seq = services.submit(hand.pk, users[0], {"do": "discard", "tile": "6s"}, hand.seq)
    hand.refresh_from_db()
    assert runtime().engines.take(hand.pk, seq, hand.seed) is not None  # held at this seq (and taken out)
    # Another process applies W's pung: the row moves to seq + 1 without this process's cache.
    stale = services.decoded_engine(hand)
    runtime().engines.put(hand.pk, seq, hand.seed, stale)
    other = services.decoded_engine(hand)
    from games.engine.state import Action

    other.apply(Action(hand.engine_seat(2), "pung"))
    Hand.objects.filter(pk=hand.pk).update(seq=seq + 1, snapshot=other.to_json(), snapshot_seq=seq + 1)
    # S's win at the new seq must judge the row's state (W's pung pending), not the stale engine.
    misses = runtime().engines.misses
    new_seq = services.submit(hand.pk, users[1], {"do": "win"}, seq + 1)
    assert runtime().engines.misses == misses + 1
    hand.refresh_from_db()
    assert new_seq == seq + 2 and hand.status == Hand.FINISHED


def test_an_entry_comes_back_only_after_commit() -> None:
    table, hand, users = started_rigged("er")
    engine = services.decoded_engine(hand)
    runtime().engines.put(hand.pk, hand.seq, hand.seed, engine)
    try:
        with transaction.atomic():
            services.submit(hand.pk, users[0], {"do": "discard", "tile": "6s"}, hand.seq)
            raise RuntimeError("rolled back")
    except RuntimeError:
        pass
    hand.refresh_from_db()
    assert runtime().engines.take(hand.pk, hand.seq, hand.seed) is None  # the changed engine did not come back
    assert runtime().engines.take(hand.pk, hand.seq + 1, hand.seed) is None
    assert services.submit(hand.pk, users[0], {"do": "discard", "tile": "6s"}, hand.seq) == hand.seq + 1


def test_entries_match_seq_and_seed_and_the_cache_is_bounded() -> None:
    cache = EngineCache(size=2)
    table, hand, users = started_rigged("eb")
    engine = services.decoded_engine(hand)
    cache.put(1, 5, "seed-a", engine)
    assert cache.take(1, 5, "seed-b") is None  # an id reused by another hand (other seed)
    cache.put(1, 5, "seed-a", engine)
    assert cache.take(1, 6, "seed-a") is None  # moved on
    assert cache.take(1, 5, "seed-a") is None  # and a miss drops the entry
    for hand_id in (1, 2, 3):
        cache.put(hand_id, 1, "s", engine)
    assert cache.take(1, 1, "s") is None  # the oldest went
    assert cache.take(3, 1, "s") is engine


def test_peek_renders_from_the_cache_without_taking_the_entry() -> None:
    cache = EngineCache(size=4)
    engine = load_hand(started("pk")[1].snapshot)
    cache.put(7, 3, "seed", engine)
    assert cache.peek(7, 3, "seed") is engine
    assert cache.peek(7, 3, "seed") is engine  # still there: peeking takes nothing
    assert cache.peek(7, 4, "seed") is None and cache.peek(7, 3, "other") is None
    assert cache.take(7, 3, "seed") is engine
    assert cache.peek(7, 3, "seed") is None  # a hand in mid-step (taken out) is not rendered from here


def test_a_snapshot_from_the_cache_equals_one_decoded_from_the_row() -> None:
    table, hand, users = started("sn")
    for _ in range(3):
        one_step(hand, users)
        hand.refresh_from_db()
    assert runtime().engines.peek(hand.pk, hand.seq, hand.seed) is not None  # the snapshot below uses it
    for user in users:
        cached = services.state_for(table, user)
        runtime().engines.clear()
        decoded = services.state_for(table, user)
        runtime().engines.put(hand.pk, hand.seq, hand.seed, services.decoded_engine(hand))
        for state in (cached, decoded):
            state["hand"].pop("deadline_in_ms")  # a clock reading
        assert cached == decoded
        assert cached["hand"]["seq"] == hand.seq and cached["you"] is not None
