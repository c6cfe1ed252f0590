"""A database error inside a command leaves nothing half-applied (embedded mode, SQLite).

A trigger makes the hand's action log refuse rows, so the command's transaction fails after the
engine applied the action in memory, the hand row was saved, the match finished, the hand settled
into the wallets (inline here) and the events were logged.  All of it must roll back; the socket
answers with a refusal and stays open; without the trigger the same command applies.
(tests/integration/test_faults_processes.py does the same on PostgreSQL through daphne.)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.db import DatabaseError, connection

from accounts.models import LedgerEntry, Wallet
from games import services
from games.live.routing import websocket_urlpatterns
from games.models import Hand, HandAction, Table
from games.runtime.process import runtime
from tests.platform.live_helpers import WholeFrames, rigged, ws_path
from tests.polling import HANDSHAKE_S

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]

APP = URLRouter(websocket_urlpatterns)


@pytest.fixture
def players() -> list[Any]:
    User = get_user_model()
    return [User.objects.create_user(f"dbe{i}", password="pw-123456") for i in range(4)]


def start(players: list[Any]) -> Hand:
    """A rigged hand under way: E has discarded 6s, W claimed it (pung), and S's win ends the hand."""
    table = services.create_table(players[0], "zhejiang_caishen", {}, stake=5, hands_total=1)
    for p in players:
        services.sit(table.pk, p)
    engine = rigged()  # live_helpers.GOLDEN: E discards 6s and S wins on it
    original = services.match.start_match
    services.match.start_match = lambda t, first_hand=None: original(t, engine)  # type: ignore[assignment]
    try:
        for p in players:
            services.set_ready(table.pk, p)
    finally:
        services.match.start_match = original
    hand = Hand.objects.get(table=table)
    seq = services.submit(hand.pk, players[0], {"do": "discard", "tile": "6s"}, hand.seq)
    services.submit(hand.pk, players[2], {"do": "pung"}, seq)  # W answers first; S's win still wins
    hand.refresh_from_db()
    return hand


@pytest.fixture
def failing_action_log() -> Iterator[Any]:
    """Install the fault for one hand: ``install(hand_id)``; removed at the end (and by ``remove()``)."""

    class Fault:
        def install(self, hand_id: int) -> None:
            with connection.cursor() as cursor:
                cursor.execute(
                    "CREATE TRIGGER caishen_fail BEFORE INSERT ON games_handaction"
                    f" WHEN NEW.hand_id = {int(hand_id)}"
                    " BEGIN SELECT RAISE(ABORT, 'injected fault'); END"
                )

        def remove(self) -> None:
            with connection.cursor() as cursor:
                cursor.execute("DROP TRIGGER IF EXISTS caishen_fail")

    fault = Fault()
    yield fault
    fault.remove()


def snapshot_of(hand: Hand) -> dict[str, Any]:
    row = Hand.objects.select_related("table").get(pk=hand.pk)
    return {
        "hand": (
            row.seq,
            row.snapshot,
            row.snapshot_seq,
            row.status,
            row.deadline_at,
            row.result,
            row.settled,
            row.deltas,
        ),
        "table": (row.table.status, row.table.hands_played, row.table.dealer_position),
        "engine": services.decoded_engine(row).to_json(),
        "actions": list(HandAction.objects.filter(hand=row).values_list("seq", "index", "action")),
        "wallets": sorted(Wallet.objects.values_list("pk", "balance")),
        "ledger": LedgerEntry.objects.count(),
    }


def test_the_service_rolls_back_a_failing_command(players: list[Any], failing_action_log: Any) -> None:
    hand = start(players)
    failing_action_log.install(hand.pk)
    before = snapshot_of(hand)
    with pytest.raises(DatabaseError, match="injected fault"):
        services.submit(hand.pk, players[1], {"do": "win"}, hand.seq)
    assert snapshot_of(hand) == before
    # The failed step took the cached engine and changed it; it must not come back.
    assert runtime().engines.take(hand.pk, hand.seq, hand.seed) is None
    failing_action_log.remove()
    assert services.submit(hand.pk, players[1], {"do": "win"}, hand.seq) == hand.seq + 1
    hand.refresh_from_db()
    assert hand.status == Hand.FINISHED and hand.settled
    assert Table.objects.get(pk=hand.table_id).status == Table.FINISHED
    assert {p.username: Wallet.objects.get(user=p).balance for p in players} == {
        "dbe0": 995,
        "dbe1": 1005,
        "dbe2": 1000,
        "dbe3": 1000,
    }


def test_the_socket_refuses_a_failing_command_and_stays_open(players: list[Any], failing_action_log: Any) -> None:
    hand = start(players)
    failing_action_log.install(hand.pk)
    before = snapshot_of(hand)

    async def scenario() -> None:
        comm = WebsocketCommunicator(APP, ws_path(hand.table_id))
        whole = WholeFrames()
        comm.scope["user"] = players[1]
        connected, _ = await comm.connect(timeout=HANDSHAKE_S)
        assert connected
        assert whole(await comm.receive_json_from(timeout=5))["hand"]["seq"] == hand.seq
        while not await comm.receive_nothing(timeout=0.2):  # the seat shown as connected: the table
            assert whole(await comm.receive_json_from())["type"] == "update"
        win = {"type": "act", "hand": hand.pk, "seq": hand.seq, "action": {"do": "win"}}
        await comm.send_json_to(win)
        answer = await comm.receive_json_from(timeout=5)
        assert answer["type"] == "refused" and answer["seq"] == hand.seq, answer
        assert "try again" in answer["reason"]
        # Still open, and still where it was.
        await comm.send_json_to({"type": "ping", "seq": hand.seq})
        assert await comm.receive_json_from(timeout=5) == {"type": "pong", "seq": hand.seq}
        assert await comm.receive_nothing(timeout=0.2)
        assert await database_sync_to_async(snapshot_of)(hand) == before
        await database_sync_to_async(failing_action_log.remove)()
        # The same command, the same seq: now it applies and the hand ends, settled.
        await comm.send_json_to(win)
        update = whole(await comm.receive_json_from(timeout=5))
        assert update["type"] == "update" and update["seq"] == hand.seq + 1
        assert update["hand"]["status"] == "finished" and update["hand"]["deltas"] == {
            "0": -5,
            "1": 5,
            "2": 0,
            "3": 0,
        }
        await comm.disconnect()

    async_to_sync(scenario)()
    hand.refresh_from_db()
    assert hand.settled and LedgerEntry.objects.filter(reference=f"hand:{hand.pk}").count() == 2
    assert Wallet.objects.get(user=players[1]).balance == 1005
