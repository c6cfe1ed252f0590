"""The load benchmark's reference table server (games/tools/loadtest/reference).

In process (Channels' WebsocketCommunicator, the in-memory layer, a table set up as the load
test sets it up): the four seats get snapshots, the seat whose turn it is alone may discard,
and each action costs exactly one SQL statement — an UPDATE of the hand's row — and one
``group_send``, whose frames reach all four seats with the next ``seq``.  Then a short
``loadtest --baseline`` run (a fresh SQLite database, both servers as real daphne processes on
127.0.0.1) shows the load client playing against both and the comparison coming out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.db.backends import utils as db_utils

from games.models import Hand
from games.tools.loadtest import setup
from games.tools.loadtest.reference.asgi import websocket_urlpatterns
from games.tools.loadtest.reference.consumer import TILE, turn_of
from tests.polling import HANDSHAKE_S

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]

ROOT = Path(__file__).resolve().parents[2]
APP = URLRouter(websocket_urlpatterns)


class Counted:
    """Every SQL statement any connection runs, and every group_send of the layer."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sql: list[str] = []
        self.group_sends: list[str] = []
        execute = db_utils.CursorWrapper.execute

        def counting_execute(wrapper: Any, sql: str, params: Any = None) -> Any:
            self.sql.append(sql)
            return execute(wrapper, sql, params)

        monkeypatch.setattr(db_utils.CursorWrapper, "execute", counting_execute)
        layer = get_channel_layer()
        group_send = layer.group_send

        async def counting_group_send(group: str, message: dict[str, Any]) -> None:
            self.group_sends.append(group)
            await group_send(group, message)

        monkeypatch.setattr(layer, "group_send", counting_group_send)

    def reset(self) -> None:
        self.sql.clear()
        self.group_sends.clear()


def test_the_reference_answers_each_action_with_one_update_and_one_group_send(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tag, seats = setup.prepare(1)
    setup.start(tag)  # the hand is dealt, as in a load run
    hand = Hand.objects.get(table_id=seats[0].table)
    users = {u.username: u for u in get_user_model().objects.filter(username__startswith=f"lt{tag}_")}
    counted = Counted(monkeypatch)

    async def play() -> None:
        comms = []
        for seat in seats:
            comm = WebsocketCommunicator(APP, f"/ws/table/{seat.table}/")
            comm.scope["user"] = users[f"lt{tag}_0_{seat.position}"]
            connected, _ = await comm.connect(timeout=HANDSHAKE_S)
            assert connected
            comms.append(comm)
        snapshots = [await c.receive_json_from(timeout=5) for c in comms]
        assert {s["type"] for s in snapshots} == {"snapshot"}
        assert {(s["hand"]["id"], s["hand"]["seq"]) for s in snapshots} == {(hand.pk, hand.seq)}
        seq, frames = hand.seq, snapshots
        for _ in range(6):  # round the table and a half
            turn = turn_of(seq)
            legal = [f["hand"]["view"]["legal_actions"] for f in frames]
            assert legal[turn] == [{"seat": "ESWN"[turn], "do": "discard", "tile": TILE}]
            assert all(not moves for p, moves in enumerate(legal) if p != turn)
            counted.reset()
            # Out of turn: refused without touching the database.
            other = comms[(turn + 1) % 4]
            await other.send_json_to(
                {"type": "act", "hand": hand.pk, "seq": seq, "action": {"do": "discard", "tile": TILE}}
            )
            assert (await other.receive_json_from(timeout=5))["type"] == "refused"
            assert counted.sql == [] and counted.group_sends == []
            await comms[turn].send_json_to(
                {"type": "act", "hand": hand.pk, "seq": seq, "action": {"do": "discard", "tile": TILE}}
            )
            updates = [await c.receive_json_from(timeout=5) for c in comms]
            assert [(u["type"], u["seq"], u["hand"]["seq"], u["you"]) for u in updates] == [
                ("update", seq + 1, seq + 1, p) for p in range(4)
            ]
            assert len(counted.sql) == 1 and counted.sql[0].lstrip().upper().startswith("UPDATE")
            assert counted.group_sends == [f"reference.{hand.table_id}"]
            seq, frames = seq + 1, updates
        # A stale command: its UPDATE finds the row moved on; refused, nothing sent.
        counted.reset()
        stale = comms[turn_of(seq - 4)]
        await stale.send_json_to(
            {"type": "act", "hand": hand.pk, "seq": seq - 4, "action": {"do": "discard", "tile": TILE}}
        )
        assert (await stale.receive_json_from(timeout=5))["type"] == "refused"
        assert len(counted.sql) == 1 and counted.group_sends == []
        # A heartbeat is answered from memory.
        counted.reset()
        await comms[0].send_json_to({"type": "ping", "seq": seq})
        assert await comms[0].receive_json_from(timeout=5) == {"type": "pong", "seq": seq}
        assert counted.sql == []
        for c in comms:
            assert await c.receive_nothing(timeout=0.1)
            await c.disconnect()

    async_to_sync(play)()
    assert setup.hand_seqs(tag) == {hand.pk: hand.seq + 6}  # six actions, six steps on the row
    setup.stop(tag)


def test_a_socket_of_someone_not_seated_is_closed() -> None:
    tag, seats = setup.prepare(1)
    stranger = get_user_model().objects.create_user("stranger", password="pw-123456")

    async def connect() -> int:
        comm = WebsocketCommunicator(APP, f"/ws/table/{seats[0].table}/")
        comm.scope["user"] = stranger
        connected, _ = await comm.connect(timeout=HANDSHAKE_S)
        assert connected  # accepted, then closed with the code (as the real consumer)
        closed = await comm.receive_output(timeout=5)
        await comm.disconnect()
        return int(closed["code"])

    assert async_to_sync(connect)() == 4403
    setup.stop(tag)


def test_steps_are_counted_from_the_hands_seq_advance() -> None:
    assert setup.steps_between({1: 5, 2: 9}, {1: 8, 2: 9, 3: 4}) == 3 + 0 + 4  # hand 3 dealt in between


@pytest.mark.slow
def test_a_short_baseline_run_plays_both_servers(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "DJANGO_DEBUG": "0",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECRET_KEY": "baseline-test-not-secret-but-long-enough-0123456789",
        "CAISHEN_CLAIM_PROTECTION": "pause",
        "PYTHONPATH": str(ROOT),
    }
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True, timeout=120)
    done = subprocess.run(
        [
            *manage,
            "loadtest",
            "--baseline",
            "--tables",
            "2",
            "--duration",
            "3",
            "--warmup",
            "1",
            "--think",
            "0.2",
            "--json",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    ref, real = result["reference"], result["real"]
    for r in (ref, real):
        assert r["actions"] > 0 and r["errors"] == 0 and r["gaps"] == 0 and r["steps"] > 0
        assert r["cpu_ms_per_step"] is not None
    # The reference applies one step per action (every action sent was answered); the real
    # server adds a timer step per discard (the claim pause), the deals, and so on.
    assert ref["refused"] == 0 and abs(ref["steps"] - ref["sent"]) <= 8
    assert real["steps"] > real["actions"]
    assert result["ratio_per_step"] is not None and result["ratio_per_step"] > 0
