"""games.live.catch_up on its own: a heartbeat's answer, the positions clients name, the grace a late
frame gets and the coalescing of a watcher's requests (the sockets' tests drive them end to end:
test_live_table.py, test_spectating.py, test_protocol_v2_sockets.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from games.live import catch_up


@pytest.mark.parametrize(
    ("client_seq", "current", "delivered", "checking", "answer"),
    [
        (17, (42, 17), (42, 17), False, "pong"),  # up to date
        (16, (42, 17), (42, 17), False, "pong"),  # the frame went down before this pong
        (None, None, (0, 0), False, "pong"),  # no hand, and the client holds none
        (17, None, (42, 17), False, "snapshot"),  # the hand is gone: the client missed something
        (16, (42, 17), (42, 16), True, "pong"),  # the earlier ping's check answers this one too
        (16, (42, 17), (42, 16), False, "pong_then_check"),  # the frame is on its way
        (16, (43, 1), (42, 16), False, "pong_then_check"),  # a new hand not yet delivered
    ],
)
def test_a_heartbeat_is_answered_by_where_the_socket_stands(
    client_seq: Any, current: Any, delivered: Any, checking: bool, answer: str
) -> None:
    assert catch_up.ping_answer(client_seq, current, delivered, checking) == answer


def test_the_positions_clients_name() -> None:
    assert catch_up.since_in_query({"hand": ["42"], "seq": ["17"]}) == (42, 17)
    assert catch_up.since_in_query({"hand": ["42"]}) is None
    assert catch_up.since_in_query({"hand": ["42"], "seq": ["x"]}) is None
    assert catch_up.since_in_resync({"type": "resync", "hand": 42, "seq": 17}) == (42, 17)
    assert catch_up.since_in_resync({"type": "resync"}) is None
    assert catch_up.since_in_resync({"type": "resync", "hand": 42, "seq": True}) is None  # JSON true is no seq
    assert catch_up.since_in_resync({"type": "resync", "hand": "42", "seq": 17}) is None


def test_a_late_frame_spares_the_snapshot_and_a_lost_one_is_owed_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(catch_up, "PING_GRACE_SECONDS", 0.01)
    monkeypatch.setattr(catch_up, "PING_GRACE_MAX_SECONDS", 0.05)
    delivered = [(42, 16)]

    async def arrives() -> bool:
        waiting = asyncio.create_task(catch_up.frame_overdue((42, 17), lambda: delivered[0], lambda: True))
        await asyncio.sleep(0.005)
        delivered[0] = (42, 17)
        return await waiting

    assert asyncio.run(arrives()) is False
    delivered[0] = (42, 16)
    monkeypatch.setattr(catch_up, "frames_in_flight", lambda: False)
    assert asyncio.run(catch_up.frame_overdue((42, 17), lambda: delivered[0], lambda: True)) is True
    # A busy process waits on, up to the maximum, then owes the snapshot all the same.
    monkeypatch.setattr(catch_up, "frames_in_flight", lambda: True)
    assert asyncio.run(catch_up.frame_overdue((42, 17), lambda: delivered[0], lambda: True)) is True
    # A socket closed meanwhile owes nothing.
    assert asyncio.run(catch_up.frame_overdue((42, 17), lambda: delivered[0], lambda: False)) is False


def test_a_watchers_requests_within_the_interval_are_answered_once_together(settings: Any) -> None:
    settings.CAISHEN_WATCHER_SYNC_SECONDS = 0.5
    answers: list[tuple[bool, Any]] = []

    async def answer(resync: bool, seq: Any) -> None:
        answers.append((resync, seq))

    async def scenario() -> None:
        sync = catch_up.WatcherSync(answer, lambda: True)
        await sync.ask(seq=5)  # at once
        await sync.ask(resync=True)
        await sync.ask(seq=6)  # a later ping keeps the resync asked before it
        assert answers == [(False, 5)]
        await asyncio.sleep(0.75)  # answered at 0.5 s; the next answer is not due before 1 s
        assert answers == [(False, 5), (True, 6)]
        await sync.ask(seq=7)
        sync.cancel()
        await asyncio.sleep(0.5)

    asyncio.run(scenario())
    assert answers == [(False, 5), (True, 6)]  # the last one was cancelled with the socket
