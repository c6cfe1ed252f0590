"""A full match through the scaled topology.

Two people and two bots; the people's sockets are on *different* daphne processes, so every frame
one of them sees after the other acts crossed the Redis channel layer.  Bots' turns, claim-window
pauses and one deliberate timeout are fired by the Celery worker (no daphne process runs timers
with ``CAISHEN_TIMERS=celery``); each finished hand is settled by the ``games.settle`` task.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.v2_frames import WholeSocket

pytestmark = pytest.mark.integration

HANDS = 2
FRAME_TIMEOUT = 30.0  # no frame for this long: the topology is stuck
MATCH_TIMEOUT = 90.0

SETUP = """
import json
from django.contrib.auth import get_user_model
from django.test import Client
from games import services
User = get_user_model()
a = User.objects.create_user("it_alice", password="pw-it-123456")
b = User.objects.create_user("it_bob", password="pw-it-123456")
table = services.create_table(a, "zhejiang_caishen", {{}}, stake=1, hands_total={hands},
                              turn_seconds=5, claim_seconds=3)
services.sit(table.pk, a, 0)
services.sit(table.pk, b, 2)
services.add_bots(table.pk, a)
cookies = {{}}
for user in (a, b):
    client = Client()
    client.force_login(user)
    cookies[user.username] = client.cookies["sessionid"].value
print("RESULT " + json.dumps({{"table": table.pk, "cookies": cookies}}))
"""

READY = """
from django.contrib.auth import get_user_model
from games import services
User = get_user_model()
for name in ("it_alice", "it_bob"):
    services.set_ready({table}, User.objects.get(username=name))
print("RESULT 1")
"""

OUTCOME = """
import json
from django.db.models import Sum, Count
from accounts.models import LedgerEntry, Wallet
from games.models import HandAction, Table
table = Table.objects.get(pk={table})
hands = []
for h in table.hands.order_by("number"):
    ledger = LedgerEntry.objects.filter(reference=f"hand:{{h.pk}}").aggregate(total=Sum("amount"), rows=Count("id"))
    seqs = sorted(set(HandAction.objects.filter(hand=h).values_list("seq", flat=True)))
    hands.append({{"id": h.pk, "seq": h.seq, "status": h.status, "settled": h.settled, "deltas": h.deltas,
                  "ledger_total": ledger["total"], "ledger_rows": ledger["rows"], "action_seqs": seqs}})
balances = sorted(Wallet.objects.values_list("balance", flat=True))
print("RESULT " + json.dumps({{"status": table.status, "hands": hands, "min_balance": balances[0]}}))
"""


@dataclass
class Human:
    name: str
    web: str
    chair: int
    skip_one_turn: bool = False
    frames: list[dict[str, Any]] = field(default_factory=list)
    acted: int = 0
    gaps: int = 0
    last_seen: dict[int, int] = field(default_factory=dict)  # hand id -> highest seq seen
    skipped_at: tuple[int, int] | None = None  # (hand, seq) of the decision left to the clock
    timed_out: bool = False


def choose(legal: list[dict[str, Any]]) -> dict[str, Any]:
    def plain(action: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in action.items() if k != "seat"}

    for wanted in ("win", "discard", "pass"):
        for action in legal:
            if action.get("do") == wanted:
                return plain(action)
    return plain(legal[0])


def match_over(frame: dict[str, Any], hands: int) -> bool:
    table, hand = frame.get("table") or {}, frame.get("hand") or {}
    return (
        table.get("status") == "finished"
        and hand.get("number") == hands
        and hand.get("status") == "finished"
        and hand.get("deltas") is not None  # settled (by the Celery task)
    )


async def play(human: Human, url: str, origin: str, cookie: str, hands: int) -> None:
    import websockets

    async with websockets.connect(
        url, origin=origin, additional_headers={"Cookie": f"sessionid={cookie}"}, open_timeout=15
    ) as raw:
        ws = WholeSocket(raw)
        acted_on: set[tuple[int, int]] = set()
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), FRAME_TIMEOUT))
            human.frames.append(frame)
            if frame.get("type") not in ("snapshot", "update"):
                continue
            assert frame.get("you") == human.chair
            if match_over(frame, hands):
                return
            hand = frame.get("hand")
            if not hand:
                continue
            hand_id, seq = hand["id"], hand["seq"]
            previous = human.last_seen.get(hand_id)
            if frame["type"] == "update" and previous is not None and seq > previous + 1:
                human.gaps += 1
                await ws.send(json.dumps({"type": "resync"}))
            human.last_seen[hand_id] = max(seq, previous or 0)
            if human.skipped_at is not None and not human.timed_out and (hand_id, seq) > human.skipped_at:
                human.timed_out = True  # the hand moved on without us: the clock played for us
            if hand["status"] != "playing" or (hand_id, seq) in acted_on:
                continue
            legal = hand["view"].get("legal_actions") or []
            if not legal:
                continue
            if human.skip_one_turn and human.skipped_at is None and any(a.get("do") == "discard" for a in legal):
                human.skipped_at = (hand_id, seq)  # leave this decision to the timeout
                continue
            if human.skipped_at == (hand_id, seq):
                continue
            acted_on.add((hand_id, seq))
            human.acted += 1
            await ws.send(json.dumps({"type": "act", "hand": hand_id, "seq": seq, "action": choose(legal)}))


def wait_for(predicate: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


@dataclass
class PlayedMatch:
    table: int
    outcome: dict[str, Any]
    alice: Human
    bob: Human


@pytest.fixture(scope="module")
def played_match(topology: Any) -> PlayedMatch:
    """One full match on the module's topology, played once for the tests that ask for it: the
    match test checks its outcome, the log test reads what it logged, and neither depends on
    the other having run first."""
    setup = topology.manage(SETUP.format(hands=HANDS))
    table = setup["table"]
    alice = Human("it_alice", "web1", chair=0)
    bob = Human("it_bob", "web2", chair=2, skip_one_turn=True)

    async def run() -> None:
        tasks = [
            asyncio.create_task(
                play(
                    h,
                    topology.ws_url(h.web, f"/ws/table/{table}/?v=2"),
                    topology.url(h.web).rstrip("/"),
                    setup["cookies"][h.name],
                    HANDS,
                )
            )
            for h in (alice, bob)
        ]
        # Both sockets are open (each got its first snapshot) before the match starts.
        while not (alice.frames and bob.frames):
            await asyncio.sleep(0.05)
        await asyncio.to_thread(topology.manage, READY.format(table=table))
        await asyncio.wait_for(asyncio.gather(*tasks), MATCH_TIMEOUT)

    asyncio.run(run())

    outcome = wait_for(
        lambda: (o := topology.manage(OUTCOME.format(table=table))) and all(h["settled"] for h in o["hands"]) and o,
        30,
        "settlement",
    )
    return PlayedMatch(table, outcome, alice, bob)


def test_full_match_across_two_daphne_processes(topology: Any, played_match: PlayedMatch) -> None:
    outcome, alice, bob = played_match.outcome, played_match.alice, played_match.bob
    assert outcome["status"] == "finished"
    assert len(outcome["hands"]) == HANDS
    for hand in outcome["hands"]:
        assert hand["status"] == "finished" and hand["settled"]
        # Settled by Celery, once: the ledger rows of the hand sum to zero.
        assert hand["ledger_total"] in (0, None)
        assert sum(hand["deltas"].values()) == 0
        # One writer: the log's steps lie within 1..seq and the last one is the hand's end.
        assert hand["action_seqs"] and hand["action_seqs"][0] >= 1 and hand["action_seqs"][-1] == hand["seq"]
        # Both people, on different processes, saw the hand's last state.
        for human in (alice, bob):
            assert human.last_seen.get(hand["id"]) == hand["seq"], (human.name, hand)
    assert outcome["min_balance"] >= 0
    assert alice.acted > 0 and bob.acted > 0
    assert bob.skipped_at is not None and bob.timed_out, "the Celery worker never played bob's timed-out turn"
    worker_log = topology.processes["worker"].log.read_text(errors="replace")
    assert "games.wake" in worker_log and "games.settle" in worker_log
    # Frames crossed processes without loss (a gap would be healed by resync, but should not happen).
    assert alice.gaps + bob.gaps <= 2


def test_healthz_reports_every_dependency(topology: Any) -> None:
    for web in ("web1", "web2"):
        status, body = topology.healthz(web)
        assert status == 200, body
        assert {k: body[k] for k in ("status", "database", "redis", "channel_layer", "sweeper")} == {
            "status": "ok",
            "database": "ok",
            "redis": "ok",
            "channel_layer": "ok",
            "sweeper": "ok",
        }
        assert body["details"]["sweeper"]["age_seconds"] < 10


def test_logs_are_structured_and_carry_the_game(topology: Any, played_match: PlayedMatch) -> None:
    lines = []
    for name in ("web1", "web2", "worker"):
        for line in topology.processes[name].log.read_text(errors="replace").splitlines():
            if line.startswith("{"):
                lines.append(json.loads(line))
    steps = [line for line in lines if line.get("message") == "hand step"]
    assert played_match.table in {line.get("table") for line in steps}, "the played match's steps were not logged"
    assert steps, "no hand step was logged"
    assert all({"table", "hand", "seq", "process"} <= set(line) for line in steps)
    assert {line["process"] for line in steps} >= {"worker"}
    commands = [line for line in lines if line.get("message") == "command"]
    assert commands and all({"table", "hand", "seat", "seq"} <= set(line) for line in commands)
    assert {line["process"] for line in commands} == {"web1", "web2"}  # each person acted on their process
