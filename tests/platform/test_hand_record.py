"""A running hand's record: its actions appended each step, its snapshot only now and then.

A step writes the hand's few changed columns and its actions; the whole engine snapshot is
rewritten every CAISHEN_SNAPSHOT_EVERY steps and at the hand's end (games/records/rebuild.py).
The hand at any seq is the last snapshot with the actions after it applied again, and its event
log is derived from the deal and the actions: these tests hold both to what the live steps did.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from games import services
from games.engine import Event
from games.models import Hand, HandAction, HandEvent, HandStart
from games.records import rebuild
from games.records.replay import verify_hand
from games.runtime.process import runtime
from tests.platform.live_helpers import started, started_rigged
from tests.platform.test_engine_cache import one_step

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]


def play_out(hand: Hand, users: list[Any], steps: int) -> Iterator[Hand]:
    """Up to ``steps`` person steps (fewer if the hand ends); the row after each, before the next."""
    for _ in range(steps):
        hand.refresh_from_db()
        if hand.status != Hand.PLAYING:
            break
        one_step(hand, users)
        yield Hand.objects.get(pk=hand.pk)


def win(hand: Hand, users: list[Any]) -> None:
    """The GOLDEN deal played out: East discards 6s, South wins on it, West passes its pung."""
    seq = services.submit(hand.pk, users[0], {"do": "discard", "tile": "6s"}, hand.seq)
    seq = services.submit(hand.pk, users[1], {"do": "win"}, seq)
    hand.refresh_from_db()
    if hand.status == Hand.PLAYING:
        services.submit(hand.pk, users[2], {"do": "pass"}, seq)


def test_the_snapshot_is_written_every_k_steps_and_the_record_gives_every_step(settings: Any) -> None:
    settings.CAISHEN_SNAPSHOT_EVERY = 3
    settings.CAISHEN_DISCARD_PAUSE = 60  # no timer's step races the test's reads: people pass
    table, hand, users = started("rk")
    snapshot_seqs = set()
    for row in play_out(hand, users, 40):
        assert row.snapshot_seq <= row.seq
        if row.status == Hand.PLAYING:
            assert row.seq - row.snapshot_seq < 3  # at most K - 1 steps' actions to apply again
        else:
            assert row.snapshot_seq == row.seq  # the ended hand's snapshot is its final state
        snapshot_seqs.add(row.snapshot_seq)
        if row.status != Hand.PLAYING:
            break
        # The engine the live step left.
        cached = runtime().engines.peek(row.pk, row.seq, row.seed)
        assert cached is not None, "the process that applied the step keeps its engine"
        assert rebuild.engine_of(row).to_json() == cached.to_json()
    assert len(snapshot_seqs) >= 5  # the snapshot moved on as the hand went, not on every step


def test_most_steps_leave_the_snapshot_column_alone(settings: Any) -> None:
    settings.CAISHEN_SNAPSHOT_EVERY = 1000
    table, hand, users = started("rs")
    dealt = Hand.objects.get(pk=hand.pk).snapshot
    rows = [row for row in play_out(hand, users, 12) if row.status == Hand.PLAYING]
    assert len(rows) >= 10
    for row in rows:
        assert row.snapshot == dealt and row.snapshot_seq == 0
        assert rebuild.engine_of(row).ply > 0  # yet the rebuilt hand has moved on


def test_a_step_after_a_cache_miss_goes_on_from_the_record(settings: Any) -> None:
    settings.CAISHEN_SNAPSHOT_EVERY = 4
    table, hand, users = started("rm")
    list(play_out(hand, users, 6))
    hand.refresh_from_db()
    assert hand.status == Hand.PLAYING and hand.seq > hand.snapshot_seq  # actions to apply again
    expected = rebuild.engine_of(hand).to_json()
    runtime().engines.clear()  # as in a process that did not apply the last step
    misses = runtime().engines.misses
    one_step(hand, users)
    assert runtime().engines.misses == misses + 1
    after = Hand.objects.get(pk=hand.pk)
    assert after.seq == hand.seq + 1
    # The step applied to the rebuilt engine what one_step chose from the same state.
    replayed = rebuild.engine_from(expected, rebuild.actions_between(hand.pk, hand.seq, after.seq))
    assert rebuild.engine_of(after).to_json() == replayed.to_json()


def test_a_snapshot_newer_than_the_row_read_rebuilds_from_the_deal(settings: Any) -> None:
    settings.CAISHEN_SNAPSHOT_EVERY = 2
    table, hand, users = started("rn")
    rows = list(play_out(hand, users, 5))
    old = next(r for r in rows if r.seq < rows[-1].snapshot_seq)
    latest = Hand.objects.get(pk=hand.pk)
    assert latest.snapshot_seq > old.seq
    # The old row's state, from the latest snapshot columns: wound back through the deal.
    got = rebuild.engine_at(old.pk, old.seq, latest.snapshot, latest.snapshot_seq)
    assert got.to_json() == rebuild.engine_of(old).to_json()
    dealt = HandStart.objects.get(hand=hand).snapshot
    assert got.to_json() == rebuild.engine_from(dealt, rebuild.actions_between(hand.pk, 0, old.seq)).to_json()


def test_the_event_log_is_derived_from_the_actions_as_the_steps_made_it() -> None:
    table, hand, users = started_rigged("re")
    win(hand, users)
    hand.refresh_from_db()
    assert hand.status == Hand.FINISHED
    assert not HandEvent.objects.filter(hand=hand).exists()  # no step stores events
    log = rebuild.event_log(hand)
    kinds = [e.kind for _, e in log]
    assert "discard" in kinds and kinds[-1] == "hand_end"
    counts = {(a.seq, a.index): a.event_count for a in HandAction.objects.filter(hand=hand)}
    assert len(log) == sum(counts.values())
    discard_seq = next(s for s, e in log if e.kind == "discard")
    assert discard_seq == 2  # each event carries the step that made it: East's discard is step 2
    assert verify_hand(hand)["ok"]


def test_a_hand_recorded_with_its_events_keeps_them() -> None:
    table, hand, users = started_rigged("ro")
    win(hand, users)
    hand.refresh_from_db()
    derived = rebuild.event_log(hand)
    # As a hand logged before events were derived: its stored rows are what is read.
    HandEvent.objects.bulk_create(
        HandEvent(hand=hand, seq=s, index=i, kind=e.kind, event=e.to_json()) for i, (s, e) in enumerate(derived)
    )
    HandEvent.objects.filter(hand=hand, kind="discard").update(event=Event("discard", 0, {"tile": "C"}).to_json())
    stored = rebuild.event_log(hand)
    assert [e.kind for _, e in stored] == [e.kind for _, e in derived]
    assert (
        next(e for _, e in stored if e.kind == "discard").to_json()
        != next(e for _, e in derived if e.kind == "discard").to_json()
    )


def test_a_broken_record_says_so() -> None:
    table, hand, users = started_rigged("rb")
    win(hand, users)
    hand.refresh_from_db()
    HandAction.objects.filter(hand=hand, seq=hand.seq).update(event_count=99)
    with pytest.raises(rebuild.RecordBroken, match="99 logged"):
        rebuild.event_log(hand)
    result = verify_hand(hand)
    assert not result["ok"] and "99 logged" in result["reason"]
