"""Faults of processes and services on the real topology (those of the commands, the settlement
and the worker: test_faults.py).

* a database error inside a command (a PostgreSQL trigger fails the hand's transaction after the
  engine applied the winning action in memory): the player gets a refusal on an open socket and
  nothing is half-applied; once the fault is gone the same command applies;
* a daphne process SIGKILLed mid-hand: its players reconnect to the other process, resync with no
  gap, the hand ends and settles with every step applied once; the process comes back healthy;
* a daphne process, and the Celery worker, SIGKILLed inside a step (its rows written, its
  transaction open: the hold hook CAISHEN_TEST_HOLD_STEP, games/services/step_hold.py): the hand
  is at the step before or after, never between, and goes on;
* Redis (channel layer, cache and Celery broker) restarted mid-match: players resync, the match
  ends, each step applied once, settled once, and every process survives.

All run on ``private_topology`` (conftest.py): a fresh database and a Redis server of this
module's own, so killing processes and restarting Redis touch nothing else on the machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from games.tools.loadtest.client import choose  # the load test's player: win, else discard, else pass
from tests.v2_frames import open_whole_socket

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.integration

FRAME_TIMEOUT = 20.0  # no frame for this long on a live socket: something is stuck
HAND_TIMEOUT = 60.0

# Users, a table, bots in the empty chairs, everyone ready (the hand starts at once: nobody's
# turn times out before the sockets open, turn_seconds is long), and session cookies.
SETUP = """
import json
from django.contrib.auth import get_user_model
from django.test import Client
from games import services
from games.engine.tiles import parse_tiles
from games.engine.variants import get_variant
User = get_user_model()
people = {people}
owner = None
for name, chair in people.items():
    user = User.objects.create_user(name, password="pw-it-123456")
    owner = owner or user
    if chair == 0:
        table = services.create_table(user, "zhejiang_caishen", {{}}, stake=1, hands_total=1,
                                      turn_seconds=30, claim_seconds=20)
users = {{u.username: u for u in User.objects.filter(username__in=list(people))}}
for name, chair in people.items():
    services.sit(table.pk, users[name], chair)
services.add_bots(table.pk, owner)
rigged = {rigged}
if rigged:
    engine = get_variant("zhejiang_caishen").rigged_hand(
        [parse_tiles(rigged[s]) for s in "ESWN"], parse_tiles("3m")[0], [], [])
    original = services.match.start_match
    services.match.start_match = lambda t, first_hand=None: original(t, engine)
for name in people:
    services.set_ready(table.pk, users[name])
cookies = {{}}
for name in people:
    client = Client()
    client.force_login(users[name])
    cookies[name] = client.cookies["sessionid"].value
print("RESULT " + json.dumps({{"table": table.pk, "cookies": cookies}}))
"""

# tests/platform/test_live_table.py's golden hand: E discards 6s and S wins on it (W could pung).
GOLDEN = {
    "E": "6s 1m 1m 4p 5p 7p 8p 1s 2s E S W N C",
    "S": "234m 567m 999p 55s 3p 8s",
    "W": "C 3p 6s S 8p 9s 6p 4m 7s 6s 6m 1s E",
    "N": "2p 5m E 2m 5s 4p 4p 7m 8s 3p 9s 9s 8m",
}

OUTCOME = """
import json
from django.db.models import Count, Sum
from accounts.models import LedgerEntry, Wallet
from games.models import HandAction, Table
from games.records.replay import verify_hand
table = Table.objects.get(pk={table})
hands = []
for h in table.hands.order_by("number"):
    ledger = LedgerEntry.objects.filter(reference=f"hand:{{h.pk}}")
    hands.append({{
        "id": h.pk, "seq": h.seq, "status": h.status, "settled": h.settled, "deltas": h.deltas,
        "winds": {{str(c): "ESWN"[h.engine_seat(c)] for c in range(4)}},
        "actions": [[a.seq, a.index, a.action] for a in HandAction.objects.filter(hand=h)],
        "ledger": sorted(ledger.values_list("wallet_id", "amount")),
        "verify": verify_hand(h) if h.status == "finished" else None,
    }})
wallets = {{w.user.username if w.user else "house": w.balance for w in Wallet.objects.select_related("user")}}
print("RESULT " + json.dumps({{"status": table.status, "hands_played": table.hands_played, "hands": hands,
                              "wallets": wallets}}))
"""


# ------------------------------------------------------------------------------- clients
@dataclass
class Player:
    """A person in a browser: plays win > discard > pass, resyncs on a gap, reconnects on a drop."""

    name: str
    chair: int
    web: str
    cookie: str = ""
    heartbeat: float = 0.0  # seconds between pings (0: none)
    hold_from_seq: int | None = None  # sit on the first discard decision at or after this seq
    holding: bool = False
    held_at: tuple[int, int] | None = None
    ws: Any = None
    connections: int = 0
    drops: list[tuple[str, float]] = field(default_factory=list)  # (process, when)
    failed_connects: int = 0
    first_frames: list[dict[str, Any]] = field(default_factory=list)  # the first frame of each connection
    snapshots: list[float] = field(default_factory=list)  # when each snapshot arrived
    frames: list[dict[str, Any]] = field(default_factory=list)
    last_seen: dict[int, int] = field(default_factory=dict)  # hand -> highest seq seen
    gaps: list[tuple[int, int, int]] = field(default_factory=list)  # (hand, last seen, update's seq)
    sent: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)  # (hand, seq, action)
    # (hand, seq) of commands still unanswered (no later seq, no refusal) when their connection
    # dropped: such a command may never have reached the server.
    lost_in_flight: set[tuple[int, int]] = field(default_factory=set)
    refused: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    done: bool = False
    # While true, this player does not declare a win (a test that must reach a later point of
    # the hand first: a random deal with wilds can be won within a few discards).
    no_win_yet: Callable[[], bool] = lambda: False

    def latest(self) -> int:
        return max(self.last_seen.values(), default=0)


def match_over(frame: dict[str, Any]) -> bool:
    table, hand = frame.get("table") or {}, frame.get("hand") or {}
    return table.get("status") == "finished" and hand.get("status") == "finished" and hand.get("deltas") is not None


async def connect(topology: Any, web: str, table: int, cookie: str) -> Any:
    url = topology.ws_url(web, f"/ws/table/{table}/?v=2")
    return await open_whole_socket(url, topology.url(web).rstrip("/"), cookie, open_timeout=5)


async def play(p: Player, topology: Any, table: int, deadline: float) -> None:
    """Play until the match is over.  A dropped socket is replaced, first on the other process."""
    import websockets

    other = {"web1": "web2", "web2": "web1"}
    acted_on: set[tuple[int, int]] = set()
    while time.monotonic() < deadline:
        try:
            p.ws = await connect(topology, p.web, table, p.cookie)
        except (OSError, TimeoutError, websockets.exceptions.WebSocketException):
            p.failed_connects += 1
            p.web = other[p.web]  # a proxy would send us to the other process
            await asyncio.sleep(0.2)
            continue
        p.connections += 1
        # A command sent on the lost connection may never have arrived: decide again on what the
        # new connection shows (had it been applied, the hand moved on; a repeat is refused as stale).
        acted_on.clear()
        unanswered: set[tuple[int, int]] = set()
        beat = asyncio.create_task(_heartbeat(p)) if p.heartbeat else None
        first = True
        try:
            while True:
                left = min(FRAME_TIMEOUT, deadline - time.monotonic())
                frame = json.loads(await asyncio.wait_for(p.ws.recv(), max(0.1, left)))
                p.frames.append(frame)
                if first:
                    p.first_frames.append({**frame, "_web": p.web, "_index": len(p.frames) - 1})
                    first = False
                kind = frame.get("type")
                if kind == "refused":
                    p.refused.append(frame)
                    unanswered = {(h, s) for h, s in unanswered if s != frame.get("seq")}
                    if "try again" in frame.get("reason", ""):  # a server error: nothing was applied
                        acted_on = {(h, s) for h, s in acted_on if s != frame.get("seq")}
                        await asyncio.sleep(0.2)
                        await p.ws.send(json.dumps({"type": "resync"}))
                    continue
                if kind == "error":
                    p.errors.append(frame)
                    continue
                if kind not in ("snapshot", "update"):
                    continue
                if kind == "snapshot":
                    p.snapshots.append(time.monotonic())
                assert frame.get("you") == p.chair
                hand = frame.get("hand")
                if hand:
                    # Seen, even in the frame that ends the match: frames lost in an outage are made
                    # good by the snapshot that shows the match over as well as by a resync.
                    previous = p.last_seen.get(hand["id"])
                    p.last_seen[hand["id"]] = max(hand["seq"], previous or 0)
                    unanswered = {(h, s) for h, s in unanswered if h != hand["id"] or s >= hand["seq"]}
                if match_over(frame):
                    p.done = True
                    return
                if not hand:
                    continue
                hand_id, seq = hand["id"], hand["seq"]
                if kind == "update" and previous is not None and seq > previous + 1:
                    p.gaps.append((hand_id, previous, seq))
                    await p.ws.send(json.dumps({"type": "resync"}))
                if hand["status"] != "playing" or (hand_id, seq) in acted_on or seq < p.last_seen[hand_id]:
                    continue
                legal = hand["view"].get("legal_actions") or []
                if not legal:
                    continue
                discard = any(a.get("do") == "discard" for a in legal)
                if discard and p.hold_from_seq is not None and p.held_at is None and seq >= p.hold_from_seq:
                    p.held_at, p.holding = (hand_id, seq), True
                if p.holding:
                    continue
                acted_on.add((hand_id, seq))
                if p.no_win_yet():
                    legal = [a for a in legal if a.get("do") != "win"] or legal
                action = choose(legal)
                p.sent.append((hand_id, seq, action))
                unanswered.add((hand_id, seq))
                await p.ws.send(json.dumps({"type": "act", "hand": hand_id, "seq": seq, "action": action}))
        except websockets.exceptions.ConnectionClosed:
            p.drops.append((p.web, time.monotonic()))
            p.lost_in_flight |= unanswered
            p.web = other[p.web]
        finally:
            if beat is not None:
                beat.cancel()
            if p.done:
                await p.ws.close()
    raise AssertionError(f"{p.name}: the match did not end in time (last seq {p.latest()})")


async def _heartbeat(p: Player) -> None:
    """The browser's heartbeat (every ~10 s there; faster here): the last seq seen."""
    while True:
        await asyncio.sleep(p.heartbeat)
        try:
            await p.ws.send(json.dumps({"type": "ping", "seq": p.latest()}))
        except Exception:
            return


def setup_table(topology: Any, people: dict[str, int], rigged: dict[str, str] | None = None) -> dict[str, Any]:
    return topology.manage(SETUP.format(people=repr(people), rigged=repr(rigged)))


def outcome(topology: Any, table: int) -> dict[str, Any]:
    return topology.manage(OUTCOME.format(table=table))


def sql(topology: Any, query: str, *args: Any) -> list[tuple[Any, ...]]:
    """Read (or change) the topology's database directly: no Django start-up, so it is quick."""
    import psycopg

    with psycopg.connect(topology.env["DATABASE_URL"], autocommit=True) as conn:
        cur = conn.execute(query, args)
        return cur.fetchall() if cur.description else []


def wait_for(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


async def until(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def assert_each_step_once(hand: dict[str, Any], players: list[Player]) -> None:
    """The hand's logs: contiguous steps 1..seq, each once; the log replays; every command is in it."""
    assert len(hand["actions"]) == len({(seq, index) for seq, index, _ in hand["actions"]})
    # Step 1 is the deal (with actions only if bots moved before the first person); every later
    # step applied at least one action (a lone pass has no event), none beyond the hand's seq.
    action_seqs = {seq for seq, _, _ in hand["actions"]}
    steps = set(range(2, hand["seq"] + 1))
    assert steps <= action_seqs <= steps | {1}, "a step is missing from (or beyond) the action log"
    assert hand["verify"] and hand["verify"]["ok"], hand["verify"]  # replaying every action gives every event
    assert hand["verify"]["actions"] == len(hand["actions"])
    by_step: dict[int, list[dict[str, Any]]] = {}
    for seq, _index, action in sorted(hand["actions"], key=lambda a: (a[0], a[1])):
        by_step.setdefault(seq, []).append(action)
    for p in players:
        refused = {f.get("seq") for f in p.refused}
        wind = hand["winds"][str(p.chair)]
        for hand_id, seq, action in p.sent:
            if hand_id != hand["id"] or seq in refused:
                continue
            # A command on seq s that was not refused is an action of step s + 1: not lost.  The
            # step's first, except where a protected claim window kept the answers of two people
            # and applied them together when the last came in (in seat order: games.services.play).
            step = by_step.get(seq + 1, [])
            mine = [a for a in step if a["seat"] == wind]
            same = [a for a in mine if a["do"] == action["do"] and a.get("tile") == action.get("tile")]
            if not same and (hand_id, seq) in p.lost_in_flight:
                continue  # sent into a connection that died before any answer: it may never have arrived
            assert same, (p.name, seq, action, step)


def assert_settled_once(result: dict[str, Any], players: list[Player]) -> None:
    (hand,) = result["hands"]
    assert result["status"] == "finished" and result["hands_played"] == 1
    assert hand["status"] == "finished" and hand["settled"]
    assert sum(hand["deltas"].values()) == 0
    # One ledger row per wallet that moved, summing to zero; each person's wallet moved by their delta once.
    assert len({w for w, _ in hand["ledger"]}) == len(hand["ledger"])
    assert sum(amount for _, amount in hand["ledger"]) == 0
    for p in players:
        assert result["wallets"][p.name] == 1000 + hand["deltas"][str(p.chair)], (p.name, result["wallets"], hand)


def alive(topology: Any) -> dict[str, int | None]:
    """Each process's exit code (None: running)."""
    return {name: (p.proc.poll() if p.proc is not None else -999) for name, p in topology.processes.items()}


# ------------------------------------------------------------------------------- tests
def test_a_database_error_inside_a_command_leaves_nothing_half_applied(private_topology: Any) -> None:
    topo = private_topology
    setup = setup_table(topo, {"dberr_east": 0, "dberr_south": 1}, rigged=GOLDEN)
    table, cookies = setup["table"], setup["cookies"]
    ((hand_id,),) = sql(topo, "SELECT id FROM games_hand WHERE table_id = %s", table)

    async def recv_until(ws: Any, test: Callable[[dict[str, Any]], bool], timeout: float = 15) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic())))
            if test(frame):
                return frame

    def legal(frame: dict[str, Any]) -> list[dict[str, Any]]:
        return ((frame.get("hand") or {}).get("view") or {}).get("legal_actions") or []

    def moved(frame: dict[str, Any], seq: int) -> bool:
        return bool((frame.get("hand") or {}).get("seq", 0) > seq)

    def state() -> dict[str, Any]:
        ((seq, snapshot, status, deadline, played, tstatus),) = sql(
            topo,
            "SELECT h.seq, h.snapshot, h.status, h.deadline_at, t.hands_played, t.status"
            " FROM games_hand h JOIN games_table t ON t.id = h.table_id WHERE h.id = %s",
            hand_id,
        )
        counts = sql(
            topo,
            "SELECT (SELECT count(*) FROM games_handaction WHERE hand_id = %s),"
            " (SELECT count(*) FROM accounts_ledgerentry WHERE reference = %s)",
            hand_id,
            f"hand:{hand_id}",
        )[0]
        wallets = sql(topo, "SELECT id, balance FROM accounts_wallet ORDER BY id")
        return {
            "seq": seq,
            "snapshot": snapshot,
            "status": status,
            "deadline": deadline,
            "table": (played, tstatus),
            "logs": counts,
            "wallets": wallets,
        }

    async def run() -> None:
        east = await connect(topo, "web1", table, cookies["dberr_east"])
        south = await connect(topo, "web2", table, cookies["dberr_south"])
        try:
            first = await recv_until(east, lambda f: any(a["do"] == "discard" for a in legal(f)))
            seq = first["hand"]["seq"]
            discard = {"type": "act", "hand": hand_id, "seq": seq, "action": {"do": "discard", "tile": "6s"}}
            await east.send(json.dumps(discard))
            window = await recv_until(south, lambda f: {"seat": "S", "do": "win"} in legal(f))
            seq = window["hand"]["seq"]
            # The fault: the hand's action log refuses rows.  The win is applied by the engine,
            # the hand row saved (seq + 1, the ended snapshot), the table's match finished and
            # the events logged before the action log fails: all of it must roll back.
            sql(
                topo,
                "CREATE FUNCTION caishen_it_fail() RETURNS trigger LANGUAGE plpgsql AS"
                " $$ BEGIN RAISE EXCEPTION 'injected fault for hand %%', NEW.hand_id; END $$",
            )
            sql(
                topo,
                f"CREATE TRIGGER caishen_it_fail BEFORE INSERT ON games_handaction FOR EACH ROW"
                f" WHEN (NEW.hand_id = {int(hand_id)}) EXECUTE FUNCTION caishen_it_fail()",
            )
            before = state()
            win = {"type": "act", "hand": hand_id, "seq": seq, "action": {"do": "win"}}
            try:
                await south.send(json.dumps(win))
                answer = await recv_until(south, lambda f: f.get("type") in ("refused", "error") or moved(f, seq))
                assert answer["type"] in ("refused", "error"), answer
                assert answer.get("seq") in (seq, None)
                # The socket is still open and the table is where it was.
                await south.send(json.dumps({"type": "ping", "seq": seq}))
                pong = await recv_until(south, lambda f: f.get("type") in ("pong", "snapshot") or moved(f, seq))
                assert pong == {"type": "pong", "seq": seq}, pong
                assert state() == before
            finally:
                sql(topo, "DROP TRIGGER IF EXISTS caishen_it_fail ON games_handaction")
                sql(topo, "DROP FUNCTION IF EXISTS caishen_it_fail()")
            # The same command, the same seq: now it applies, and the hand ends and settles.
            await south.send(json.dumps(win))
            done = await recv_until(south, lambda f: (f.get("hand") or {}).get("deltas") is not None, 30)
            assert done["hand"]["seq"] == seq + 1
            assert done["hand"]["view"]["result"]["winner"] == "S"
        finally:
            await east.close()
            await south.close()

    asyncio.run(run())
    result = outcome(topo, table)
    (hand,) = result["hands"]
    assert hand["seq"] == sql(topo, "SELECT seq FROM games_hand WHERE id = %s", hand_id)[0][0]
    east, south = Player("dberr_east", 0, "web1"), Player("dberr_south", 1, "web2")
    assert_settled_once(result, [east, south])
    assert hand["deltas"]["1"] > 0 > hand["deltas"]["0"]
    assert_each_step_once(hand, [])
    assert [a for s, i, a in hand["actions"] if s == hand["seq"]][0] == {"seat": "S", "do": "win"}


def print_last_frames(players: list[Any]) -> None:
    """What each client saw last, sent and had refused, for whoever reads a failure."""
    for p in players:
        tail = [(f.get("type"), (f.get("hand") or {}).get("seq"), f.get("reason")) for f in p.frames[-6:]]
        print(f"{p.name} on {p.web}: last frames {tail}; sent {p.sent[-3:]}; refused {p.refused[-3:]}")


def test_a_killed_daphne_process_loses_nothing(private_topology: Any) -> None:
    topo = private_topology
    people = {"kill_alice": 0, "kill_carol": 1, "kill_bob": 2}
    setup = setup_table(topo, people)
    table = setup["table"]
    # With the browser's heartbeat (faster here), as real clients have.  (A client once waited
    # 20 s here: its command had been dropped by the human-pace socket rate limit, which these
    # 20×-speed hands exceed — conftest now raises CAISHEN_SOCKET_RATE.  On a failure the dump
    # below says what each client saw last.)
    alice = Player("kill_alice", 0, "web1", setup["cookies"]["kill_alice"], heartbeat=3.0, hold_from_seq=8)
    carol = Player("kill_carol", 1, "web1", setup["cookies"]["kill_carol"], heartbeat=3.0)
    bob = Player("kill_bob", 2, "web2", setup["cookies"]["kill_bob"], heartbeat=3.0)
    players = [alice, carol, bob]
    for p in players:  # the hand must last until alice holds her turn (the server's bot may still win)
        p.no_win_yet = lambda: alice.held_at is None
    web1 = topo.processes["web1"]
    seen: dict[str, Any] = {}

    async def run() -> None:
        deadline = time.monotonic() + HAND_TIMEOUT
        tasks = [asyncio.create_task(play(p, topo, table, deadline)) for p in players]
        try:
            # Mid-hand, alice (web1) sits on her turn: nothing can move until she discards.
            await until(lambda: alice.held_at, 30, "alice's turn mid-hand")
            hand_id, held_seq = alice.held_at  # type: ignore[misc]
            await asyncio.sleep(0.3)
            status, seen["db_before"] = sql(topo, "SELECT status, seq FROM games_hand WHERE id = %s", hand_id)[0]
            assert status == "playing"  # the kill strikes a hand in play
            web1.signal(signal.SIGKILL)
            web1.proc.wait(10)
            # Both web1 players notice the drop and come back through web2 with a snapshot.
            await until(lambda: alice.connections == 2 and carol.connections == 2, 20, "the reconnects")
            await until(lambda: len(alice.first_frames) == 2 and len(carol.first_frames) == 2, 10, "snapshots")
            seen["db_after"] = sql(topo, "SELECT seq FROM games_hand WHERE id = %s", hand_id)[0][0]
            seen["held"] = (hand_id, held_seq)
            alice.holding = False  # she decides again on what she sees now
            await alice.ws.send(json.dumps({"type": "resync"}))
            await asyncio.gather(*tasks)
        finally:
            for t in tasks:
                t.cancel()

    try:
        asyncio.run(run())
    except BaseException:
        print_last_frames(players)
        raise
    finally:
        if web1.proc is None or web1.proc.poll() is not None:
            web1.start()
    hand_id, held_seq = seen["held"]
    assert seen["db_before"] == seen["db_after"] == held_seq
    for p in (alice, carol):
        assert [web for web, _ in p.drops] == ["web1"], p.drops
        assert p.first_frames[1]["_web"] == "web2" and p.first_frames[1]["type"] == "snapshot"
        # The resync: the snapshot is the latest state, exactly where the table stood.
        assert p.first_frames[1]["hand"]["id"] == hand_id
        assert p.first_frames[1]["hand"]["seq"] == held_seq, (p.name, p.first_frames[1]["hand"]["seq"])
        # ... and play goes on from there: the next update is the very next step.
        after = [f for f in p.frames[p.first_frames[1]["_index"] + 1 :] if f.get("type") == "update"]
        assert after and after[0]["seq"] == held_seq + 1, (p.name, [f["seq"] for f in after[:3]])
    assert bob.drops == [] and bob.connections == 1
    result = wait_for(lambda: (o := outcome(topo, table)) and o["hands"][0]["settled"] and o, 30, "settlement")
    (hand,) = result["hands"]
    for p in players:
        # Frames of steps applied by different processes (web2, the worker) may cross on the way
        # to a socket: a rare gap, healed by resync (as in test_scaled_match.py).
        assert p.done and len(p.gaps) <= 2, (p.name, p.gaps)
        assert p.last_seen[hand["id"]] == hand["seq"], (p.name, p.last_seen, hand["seq"])
        assert not p.errors, p.errors
    assert_each_step_once(hand, players)
    assert_settled_once(result, players)
    # The killed process comes back and reports healthy.
    topo.wait_healthy(("web1", "web2"), timeout=30)
    assert all(code is None for code in alive(topo).values()), alive(topo)


@contextlib.contextmanager
def holding_steps(process: Any, topology: Any, folder: Path) -> Any:
    """``process`` restarted with the step hold on (CAISHEN_TEST_HOLD_STEP=``folder``:
    games/services/step_hold.py), and restarted without it afterwards."""
    plain = process.env
    folder.mkdir(parents=True, exist_ok=True)
    process.stop()
    process.env = {**plain, "CAISHEN_TEST_HOLD_STEP": str(folder)}
    process.start()
    try:
        topology.wait_healthy()
        yield folder
    finally:
        process.stop()
        process.env = plain
        process.start()
        topology.wait_healthy()


def hand_row_and_log(topology: Any, hand_id: int) -> tuple[str, int, int]:
    """The hand's status and seq as committed, and the last step in its action log."""
    status, seq = sql(topology, "SELECT status, seq FROM games_hand WHERE id = %s", hand_id)[0]
    logged = sql(topology, "SELECT coalesce(max(seq), 0) FROM games_handaction WHERE hand_id = %s", hand_id)[0][0]
    return status, seq, logged


def test_a_daphne_process_killed_mid_step_leaves_the_step_before_or_after(
    private_topology: Any, tmp_path: Path
) -> None:
    """A person's command is held inside its step on web1 (the step's rows written, its
    transaction open: the hold hook), and web1 is SIGKILLed there.  The hand is then at the step
    before or the step after — its row and its action log agree — never between; the players
    reconnect through web2 at exactly that step, and the hand goes on to its end, every step
    applied once."""
    topo = private_topology
    web1 = topo.processes["web1"]
    with holding_steps(web1, topo, tmp_path / "hold") as hold:
        people = {"mid_alice": 0, "mid_carol": 1, "mid_bob": 2}
        setup = setup_table(topo, people)
        table = setup["table"]
        alice = Player("mid_alice", 0, "web1", setup["cookies"]["mid_alice"], heartbeat=3.0, hold_from_seq=8)
        carol = Player("mid_carol", 1, "web1", setup["cookies"]["mid_carol"], heartbeat=3.0)
        bob = Player("mid_bob", 2, "web2", setup["cookies"]["mid_bob"], heartbeat=3.0)
        players = [alice, carol, bob]
        for p in players:  # the hand must last until alice holds her turn
            p.no_win_yet = lambda: alice.held_at is None
        seen: dict[str, Any] = {}

        async def run() -> None:
            deadline = time.monotonic() + HAND_TIMEOUT
            tasks = [asyncio.create_task(play(p, topo, table, deadline)) for p in players]
            try:
                # Mid-hand, alice (web1) sits on her turn: nothing moves until she discards.
                await until(lambda: alice.held_at, 30, "alice's turn mid-hand")
                hand_id, held_seq = alice.held_at  # type: ignore[misc]
                # Arm the hold, and let her discard: her command's step is the next web1 saves.
                (hold / "arm").touch()
                sent = len(alice.sent)
                alice.holding = False
                await alice.ws.send(json.dumps({"type": "resync"}))
                await until(lambda: (hold / "held").exists(), 20, "the step held open on web1")
                seen["held"] = json.loads((hold / "held").read_text())
                seen["lost"] = alice.sent[sent]
                # The hand is in play, the held step's rows written but not committed.
                seen["before_kill"] = hand_row_and_log(topo, hand_id)
                web1.signal(signal.SIGKILL)
                web1.proc.wait(10)
                seen["after_kill"] = hand_row_and_log(topo, hand_id)
                await until(lambda: alice.connections == 2 and carol.connections == 2, 20, "the reconnects")
                await until(lambda: len(alice.first_frames) == 2 and len(carol.first_frames) == 2, 10, "snapshots")
                seen["hand"] = (hand_id, held_seq)
                await asyncio.gather(*tasks)
            finally:
                for t in tasks:
                    t.cancel()

        try:
            asyncio.run(run())
        except BaseException:
            print_last_frames(players)
            raise

    hand_id, held_seq = seen["hand"]
    assert seen["held"]["hand"] == hand_id and seen["held"]["seq"] == held_seq + 1  # her step, held
    assert seen["held"]["pid"] != os.getpid()
    assert seen["before_kill"] == ("playing", held_seq, held_seq)  # in play; the held step not committed
    status, seq, logged = seen["after_kill"]
    assert status == "playing" and seq in (held_seq, held_seq + 1), seen["after_kill"]
    assert logged == seq, f"between steps: the hand's row is at {seq}, its action log at {logged}"
    # Her command went down with the process (nothing of it committed): she decided again on
    # the snapshot web2 sent her, which the checks below hold to the log.
    assert seen["lost"][:2] == (hand_id, held_seq)
    alice.sent.remove(seen["lost"])
    for p in (alice, carol):
        assert [web for web, _ in p.drops] == ["web1"], p.drops
        again = p.first_frames[1]
        assert again["_web"] == "web2" and again["type"] == "snapshot"
        assert again["hand"]["id"] == hand_id and again["hand"]["seq"] == seq, (p.name, again["hand"]["seq"])
        after = [f for f in p.frames[again["_index"] + 1 :] if f.get("type") == "update"]
        assert after and after[0]["seq"] == seq + 1, (p.name, [f["seq"] for f in after[:3]])
    result = wait_for(lambda: (o := outcome(topo, table)) and o["hands"][0]["settled"] and o, 30, "settlement")
    (hand,) = result["hands"]
    for p in players:
        assert p.done and len(p.gaps) <= 2, (p.name, p.gaps)
        assert p.last_seen[hand["id"]] == hand["seq"], (p.name, p.last_seen, hand["seq"])
        assert not p.errors, p.errors
    assert_each_step_once(hand, players)
    assert_settled_once(result, players)


BOTS_ONLY = """
import json
from django.contrib.auth import get_user_model
from games import services
owner = get_user_model().objects.create_user("{name}", password="pw-it-123456")
table = services.create_table(owner, "zhejiang_caishen", {{}}, stake=1, hands_total=1)
services.add_bots(table.pk, owner)
print("RESULT " + json.dumps(table.pk))
"""


def test_a_worker_killed_mid_step_leaves_the_step_before_or_after(private_topology: Any, tmp_path: Path) -> None:
    """The scaled mode's Celery worker plays the bots' turns: one is held inside its step (rows
    written, transaction open) and the worker's processes are SIGKILLed there.  The hand is at
    the step before or the step after, never between; a worker started again (the sweeper
    re-fires the lost wake-up) plays it to its end, every step applied once."""
    topo = private_topology
    worker = topo.processes["worker"]
    seen: dict[str, Any] = {}
    with holding_steps(worker, topo, tmp_path / "hold") as hold:
        table = topo.manage(BOTS_ONLY.format(name="mid_worker_owner"))
        # A few steps in (each step after the deal logs an action), hold the worker's next.
        playing = "SELECT h.seq FROM games_hand h WHERE h.table_id = %s AND h.status = 'playing'"
        # (patient: under a full parallel suite with browsers a worker's first steps can take long)
        wait_for(lambda: (rows := sql(topo, playing, table)) and rows[0][0] >= 3, 120, "the bots to play")
        (hold / "arm").touch()
        wait_for(lambda: (hold / "held").exists(), 120, "a bot's step held open in the worker")
        held = json.loads((hold / "held").read_text())
        assert held["table"] == table
        seen["before_kill"] = hand_row_and_log(topo, held["hand"])
        worker.signal(signal.SIGKILL)  # the whole group: the pool's child holds the step
        worker.stop()
        seen["after_kill"] = hand_row_and_log(topo, held["hand"])
    # (the worker runs again, without the hold)
    assert seen["before_kill"] == ("playing", held["seq"] - 1, held["seq"] - 1)  # in play, the step not committed
    status, seq, logged = seen["after_kill"]
    assert status == "playing" and seq in (held["seq"] - 1, held["seq"]), seen["after_kill"]
    assert logged == seq, f"between steps: the hand's row is at {seq}, its action log at {logged}"
    result = wait_for(lambda: (o := outcome(topo, table)) and o["hands"][0]["settled"] and o, 60, "the hand's end")
    (hand,) = result["hands"]
    assert hand["status"] == "finished" and hand["seq"] > seq
    assert_each_step_once(hand, [])


# Celery's broker here is RabbitMQ (private_topology), not the Redis that restarts: the restart
# is then a fault of the channel layer and the cache alone, which is what this test is about.  With
# Redis as the broker the Celery worker itself dies on the restart (a Celery 5.7.0 bug, below).
def test_a_redis_restart_mid_match_loses_nothing(private_topology: Any, private_redis: Any) -> None:
    topo = private_topology
    assert topo.env["REDIS_URL"] == private_redis.url and topo.env["CELERY_BROKER_URL"].startswith("amqp://")
    people = {"redis_alice": 0, "redis_bob": 2}
    setup = setup_table(topo, people)
    table = setup["table"]
    alice = Player("redis_alice", 0, "web1", setup["cookies"]["redis_alice"], heartbeat=1.0)
    bob = Player("redis_bob", 2, "web2", setup["cookies"]["redis_bob"], heartbeat=1.0)
    players = [alice, bob]
    outage: dict[str, float] = {}

    def restart_redis() -> None:
        outage["down"] = time.monotonic()
        private_redis.stop()
        time.sleep(1.5)
        private_redis.start()
        outage["up"] = time.monotonic()

    async def run() -> None:
        deadline = time.monotonic() + HAND_TIMEOUT + 30
        tasks = [asyncio.create_task(play(p, topo, table, deadline)) for p in players]
        try:
            await until(lambda: alice.latest() >= 10 or any(t.done() for t in tasks), 30, "the hand under way")
            thread = threading.Thread(target=restart_redis)
            thread.start()
            while thread.is_alive():
                await asyncio.sleep(0.05)
            await asyncio.gather(*tasks)
        finally:
            for t in tasks:
                t.cancel()

    asyncio.run(run())
    assert "up" in outage, "Redis was not restarted"
    assert all(code is None for code in alive(topo).values()), (alive(topo), _tails(topo))
    result = wait_for(lambda: (o := outcome(topo, table)) and o["hands"][0]["settled"] and o, 30, "settlement")
    (hand,) = result["hands"]
    for p in players:
        assert p.done, p.name
        # Resynced: whatever the outage cost (a dropped socket, a gap), the player got a complete
        # state after it began, and the last state seen is the hand's last step.
        assert any(t > outage["down"] for t in p.snapshots), (p.name, p.drops, p.gaps)
        assert p.last_seen[hand["id"]] == hand["seq"], (p.name, p.last_seen, hand["seq"])
    assert_each_step_once(hand, players)
    assert_settled_once(result, players)
    # Every process survived the outage and reports healthy again (the sweeper too: beat and the
    # worker reconnected to the broker).
    topo.wait_healthy(("web1", "web2"), timeout=30)
    assert all(code is None for code in alive(topo).values()), alive(topo)
    # Presence: the sockets that died with the layer left their seats (no connection counted
    # for good); once the players closed their last sockets, nobody is connected.
    wait_for(
        lambda: sql(topo, "SELECT count(*) FROM games_seat WHERE table_id = %s AND connections > 0", table)[0][0] == 0,
        10,
        "the seats to be free of connections",
    )


WORKER_ALONE = (
    "exec {python} -m celery -A mahjong_platform worker -l info --concurrency 1 -n broker-restart@%h"
    " --without-mingle --without-gossip"
)


def test_a_celery_worker_survives_a_redis_broker_restart(private_topology: Any, spare_redis: Any) -> None:
    """Redis as the broker (the docs' default, CELERY_BROKER_URL=$REDIS_URL) restarting while the
    worker holds a reserved ETA task, as it always does while a hand waits on a deadline."""
    env = {**private_topology.env, "REDIS_URL": spare_redis.url, "CELERY_BROKER_URL": spare_redis.url}
    log = spare_redis.log.with_name("worker-alone.log")

    def logged() -> str:
        return log.read_text(errors="replace")

    with log.open("ab") as handle:
        worker = subprocess.Popen(
            ["bash", "-c", WORKER_ALONE.format(python=env["PYTHON"])],
            cwd=ROOT,
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for(lambda: "ready." in logged(), 30, "the worker")
        queued = subprocess.run(
            [env["PYTHON"], "manage.py", "shell", "-c", ETA_TASK],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert queued.returncode == 0, queued.stderr
        wait_for(lambda: "games.wake" in logged(), 15, "the task to be reserved")
        spare_redis.stop()
        time.sleep(1.5)
        spare_redis.start()

        # The worker reconnects (its first attempt comes about 2 s after the loss) and lives on.
        def reconnected() -> bool:
            return "Connected to redis" in logged().split("Connection to broker lost")[-1]

        wait_for(lambda: worker.poll() is not None or reconnected(), 15, "a reconnect")
        assert worker.poll() is None, logged()[-3000:]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(10)


# A wake-up for a hand that does not exist, a minute ahead: the worker holds it unacknowledged.
ETA_TASK = """
from datetime import timedelta
from django.utils import timezone
from games.tasks import wake_task
wake_task.apply_async(args=("hand", 987654321, 1), eta=timezone.now() + timedelta(seconds=60))
print("RESULT 1")
"""


def _tails(topo: Any) -> str:
    return "\n".join(f"--- {p.name}\n{p.tail(15)}" for p in topo.processes.values())
