"""Heartbeats answered from memory (games/runtime/positions.py): the one process that applies a
table's steps knows the table's hand and seq without asking the database thread; with several
processes the database is asked on every heartbeat."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model

from games import services
from games.runtime.positions import TablePositions
from games.runtime.process import runtime
from tests.platform.test_engine_cache import one_step
from tests.platform.test_live_table import Client, dealt_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]


@pytest.fixture
def players() -> list[Any]:
    User = get_user_model()
    return [User.objects.create_user(f"hb{i}", password="pw-123456") for i in range(4)]


def test_a_table_never_moves_backwards_and_a_late_database_answer_does_not_win() -> None:
    positions = TablePositions(size=2)
    assert positions.known(1) == (False, None)
    positions.learn(1, None)  # a table with no hand yet
    assert positions.known(1) == (True, None)
    positions.record(1, 10, 3)
    positions.record(1, 10, 2)  # an older step's callback, late: ignored
    assert positions.known(1) == (True, (10, 3))
    positions.learn(1, (10, 1))  # a database read that started before step 3 committed
    assert positions.known(1) == (True, (10, 3))
    positions.record(1, 11, 1)  # the next hand
    assert positions.known(1) == (True, (11, 1))
    positions.record(2, 20, 1)
    positions.record(3, 30, 1)  # bounded: the oldest table is forgotten (read again when asked)
    assert positions.known(1) == (False, None) and positions.known(3) == (True, (30, 1))


def counting_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = services.current_seq

    def counted(table_id: int) -> Any:
        calls.append(table_id)
        return real(table_id)

    monkeypatch.setattr(services, "current_seq", counted)
    return calls


def ping_twice(table: Any, user: Any, seq: int, reads: list[int]) -> list[dict[str, Any]]:
    """Two heartbeats at ``seq`` from a fresh socket; ``reads`` counts only theirs."""

    async def scenario() -> list[dict[str, Any]]:
        c = Client(table, user)
        await c.open()
        await c.drain()
        reads.clear()
        answers = []
        for _ in range(2):
            await c.comm.send_json_to({"type": "ping", "seq": seq})
            answers.append(await c.recv())
        await c.comm.disconnect()
        return answers

    return async_to_sync(scenario)()


def test_one_process_answers_heartbeats_from_the_steps_it_applied(
    players: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    table, hand = dealt_table(players)
    seq = one_step(hand, players)
    reads = counting_reads(monkeypatch)
    answers = ping_twice(table, players[0], seq, reads)
    assert answers == [{"type": "pong", "seq": seq}] * 2
    assert reads == []  # no trip to the database thread


def test_a_table_not_stepped_here_since_start_is_read_once(players: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    table, hand = dealt_table(players)
    runtime().positions.clear()  # as after a restart
    reads = counting_reads(monkeypatch)
    answers = ping_twice(table, players[0], hand.seq, reads)
    assert answers == [{"type": "pong", "seq": hand.seq}] * 2
    assert reads == [table.pk]


def test_several_processes_ask_the_database_every_time(
    players: list[Any], monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.CAISHEN_PROCESSES = 2  # another process may have moved the table on
    table, hand = dealt_table(players)
    reads = counting_reads(monkeypatch)
    answers = ping_twice(table, players[0], hand.seq, reads)
    assert answers == [{"type": "pong", "seq": hand.seq}] * 2
    assert reads == [table.pk, table.pk]
