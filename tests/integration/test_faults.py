"""Faults of the commands, the settlement and the worker on the real topology (those of processes
and services: test_faults_processes.py).

* the same command sent twice at once, through both daphne processes: exactly one applies;
* settlement run again on settled hands: the ledger does not change;
* the Celery worker killed while deadlines are pending: nothing moves while it is gone, and
  when it returns the sweeper and the queued timers finish the match, each step applied once.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time
from typing import Any

import pytest

from tests.v2_frames import open_whole_socket

pytestmark = pytest.mark.integration

ONE_PERSON = """
import json
from django.contrib.auth import get_user_model
from django.test import Client
from games import services
User = get_user_model()
a = User.objects.create_user("{name}", password="pw-it-123456")
table = services.create_table(a, "zhejiang_caishen", {{}}, stake=1, hands_total=1, turn_seconds=30, claim_seconds=10)
services.sit(table.pk, a, 0)
services.add_bots(table.pk, a)
client = Client()
client.force_login(a)
print("RESULT " + json.dumps({{"table": table.pk, "cookie": client.cookies["sessionid"].value}}))
"""

READY = """
from django.contrib.auth import get_user_model
from games import services
services.set_ready({table}, get_user_model().objects.get(username="{name}"))
print("RESULT 1")
"""

ALL_BOTS = """
import json
from django.contrib.auth import get_user_model
from games import services
owner = get_user_model().objects.create_user("{name}", password="pw-it-123456")
table = services.create_table(owner, "zhejiang_caishen", {{}}, stake=1, hands_total={hands})
services.add_bots(table.pk, owner)
print("RESULT " + json.dumps(table.pk))
"""

HAND_STATE = """
import json
from accounts.models import LedgerEntry
from games.models import HandAction, Table
table = Table.objects.get(pk={table})
hand = table.hands.order_by("number").last()
steps = list(HandAction.objects.filter(hand=hand).values_list("seq", "index")) if hand else []
print("RESULT " + json.dumps({{
    "status": table.status, "hand": hand and hand.pk, "seq": hand and hand.seq, "hand_status": hand and hand.status,
    "settled": bool(hand and hand.settled), "steps": len(steps), "distinct_steps": len(set(steps)),
    "ledger": LedgerEntry.objects.filter(reference=f"hand:{{hand and hand.pk}}").count(),
}}))
"""


async def open_socket(topology: Any, web: str, table: int, cookie: str) -> Any:
    url = topology.ws_url(web, f"/ws/table/{table}/?v=2")
    return await open_whole_socket(url, topology.url(web).rstrip("/"), cookie, open_timeout=15)


async def next_decision(ws: Any, timeout: float = 30) -> tuple[int, int, list[dict[str, Any]]]:
    """Read frames until this seat may discard; returns (hand, seq, legal actions)."""
    deadline = time.monotonic() + timeout
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic())))
        hand = frame.get("hand") or {}
        legal = (hand.get("view") or {}).get("legal_actions") or []
        if hand.get("status") == "playing" and any(a.get("do") == "discard" for a in legal):
            return hand["id"], hand["seq"], legal


def test_the_same_command_sent_twice_at_once_applies_once(topology: Any) -> None:
    setup = topology.manage(ONE_PERSON.format(name="it_twice"))
    table, cookie = setup["table"], setup["cookie"]

    async def run() -> list[dict[str, Any]]:
        one = await open_socket(topology, "web1", table, cookie)
        two = await open_socket(topology, "web2", table, cookie)
        try:
            await asyncio.to_thread(topology.manage, READY.format(table=table, name="it_twice"))
            (h1, s1, legal), (h2, s2, _) = await asyncio.gather(next_decision(one), next_decision(two))
            assert (h1, s1) == (h2, s2)
            discard = next({k: v for k, v in a.items() if k != "seat"} for a in legal if a["do"] == "discard")
            command = json.dumps({"type": "act", "hand": h1, "seq": s1, "action": discard})
            await asyncio.gather(one.send(command), two.send(command))
            answers: list[dict[str, Any]] = []
            for ws in (one, two):  # each socket sees the update of seq + 1; the loser also a refusal
                seen_update, quiet_until = False, time.monotonic() + 15
                while time.monotonic() < quiet_until:
                    try:
                        frame = json.loads(await asyncio.wait_for(ws.recv(), quiet_until - time.monotonic()))
                    except TimeoutError:
                        break
                    if frame.get("type") == "refused":
                        answers.append(frame)
                    elif not seen_update and (frame.get("hand") or {}).get("seq", 0) > s1:
                        seen_update, quiet_until = True, time.monotonic() + 1.0
                assert seen_update
            return answers
        finally:
            await one.close()
            await two.close()

    refusals = asyncio.run(run())
    assert len(refusals) == 1 and "stale" in refusals[0]["reason"]


def test_a_killed_worker_leaves_deadlines_to_the_sweeper(topology: Any) -> None:
    table = topology.manage(ALL_BOTS.format(name="it_bots_owner", hands=8))
    state = lambda: topology.manage(HAND_STATE.format(table=table))  # noqa: E731
    first = _wait(lambda: (s := state())["hand"] and s["seq"] > 2 and s, 30, "the bots to play")
    worker = topology.processes["worker"]
    worker.signal(signal.SIGKILL)  # no warm shutdown: reserved ETA tasks die with it
    worker.stop()
    try:
        stalled = state()
        # The match still playing when the worker went (eight hands of bots at 50 ms a step: with
        # four, a loaded machine's looks — each a manage.py process — once came so slowly that
        # the match was over by the next), else "nothing moves" below would hold vacuously;
        # between two hands the next deal is a deadline the worker owes too.
        assert stalled["status"] == "playing", stalled
        time.sleep(1.5)  # deadlines (50 ms apart) pass with no worker: nothing may move
        after = state()
        assert (after["hand"], after["seq"]) == (stalled["hand"], stalled["seq"])
        assert (stalled["hand"], stalled["seq"]) >= (first["hand"], first["seq"])
    finally:
        worker.start()
    final = _wait(lambda: (s := state())["status"] == "finished" and s["settled"] and s, 120, "the match to end")
    assert final["steps"] == final["distinct_steps"]  # no step logged twice
    assert final["settled"]  # (bots play for the house: its ledger nets to no row)
    topology.wait_healthy()


def test_settling_settled_hands_again_changes_nothing(topology: Any) -> None:
    table = topology.manage(ALL_BOTS.format(name="it_settle_owner", hands=1))
    _wait(
        lambda: (s := topology.manage(HAND_STATE.format(table=table)))["status"] == "finished" and s["settled"],
        60,
        "a settled hand",
    )
    # The hands settled by now, and their ledger rows: other tests' tables in this topology may
    # still be playing and booking theirs meanwhile.
    ids = topology.manage(
        "import json; from games.models import Hand; "
        "print('RESULT ' + json.dumps(sorted(Hand.objects.filter(settled=True).values_list('pk', flat=True))))"
    )
    ledger = (
        "import json; from accounts.models import LedgerEntry as L; "
        f"refs = [f'hand:{{i}}' for i in {ids!r}]; rows = L.objects.filter(reference__in=refs); "
        "print('RESULT ' + json.dumps([rows.count(), sorted(rows.values_list('amount', flat=True))]))"
    )
    before = topology.manage(ledger)
    again = topology.manage(
        "import json; from games import services; from games.tasks import settle_task; "
        f"ids = {ids!r}; "
        "runs = [services.settle_finished_hand(i) for i in ids] + [settle_task.apply(args=(i,)).get() for i in ids]; "
        "print('RESULT ' + json.dumps([len(ids), any(runs)]))"
    )
    after = topology.manage(ledger)
    assert again[0] > 0
    assert again[1] is False
    assert after == before


def _wait(predicate: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")
