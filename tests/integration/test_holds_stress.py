"""Readying at many tables at once never overcommits a balance, on real PostgreSQL.

A script run in a configured Django process (``run_stress`` of test_settlement_stress.py, which
migrates the database and runs it in a fresh process) seats each of a few shared players at
TABLES tables, with three players of their own at each.  Every match holds the table's
stake × CAISHEN_SIT_MULTIPLE (400 here) from each player's wallet; the shared players' 1000
units cover two such holds.  Then several threads, each with its own database connection, make
the last ready of every table at once: at half the tables the shared player readies last (so
the refusal is theirs), at the others one of the table's own players does (so the shared player,
ready already, is the seat that cannot be covered and is unreadied).  A monitor thread reads the
wallets meanwhile.  Checks: exactly two matches start per shared player (no overcommit, and no
table refused while units were free), every other table waits with the shared player not ready
and a clear reason for each refused caller, no wallet ever backs more holds than its balance.

Then every started match's hand ends with the shared player owing more than their whole
balance, and the hands are settled from the threads at once: each table's winners get at least
what that table's hold covered (another table never spent it), the shared player ends at 0 and
never below, every hand's rows sum to zero and equal the hand's shown deltas, and every hold is
released (a one-hand match ends with its hand).

``HOLDS_SCRIPT`` is shared with the SQLite variant in tests/platform/test_holds_stress_sqlite.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_settlement_stress import run_stress

HOLDS_SCRIPT = r'''
import json, os, queue, threading, time
import django
django.setup()
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone
from accounts.models import Hold, LedgerEntry, Wallet
from games import services
from games.engine.state import Result
from games.models import Hand, Table

run = os.environ["STRESS_RUN"]
SHARED, TABLES, THREADS = (int(os.environ[f"STRESS_{k}"]) for k in ("SHARED", "TABLES", "THREADS"))
STAKE = 20  # x CAISHEN_SIT_MULTIPLE 20 = 400 held per seat; the 1000-unit grant covers two
User = get_user_model()

shared = [User.objects.create_user(f"{run}_p{k}") for k in range(SHARED)]  # no password: no hashing
wallets = [Wallet.objects.get(user=u).pk for u in shared]
tables = []  # (table id, shared player's index, who readies last: "shared" or "own")
tasks = []
for k, player in enumerate(shared):
    for t in range(TABLES):
        own = [User.objects.create_user(f"{run}_p{k}_t{t}_{i}") for i in range(3)]
        wallets += [Wallet.objects.get(user=u).pk for u in own]
        table = services.create_table(player, "zhejiang_caishen", {}, stake=STAKE, hands_total=1)
        for u in [player, *own]:
            services.sit(table.pk, u)
        last = "shared" if t % 2 == 0 else "own"
        first = own if last == "shared" else [player, *own[:2]]
        for u in first:
            services.set_ready(table.pk, u)
        tasks.append((table.pk, player if last == "shared" else own[2]))
        tables.append((table.pk, k, last))

def wallet_check():
    """One statement (one snapshot): wallets below zero, off their rows, or below their holds."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT w.id, w.balance,"
            " COALESCE((SELECT SUM(l.amount) FROM accounts_ledgerentry l WHERE l.wallet_id = w.id), 0),"
            " COALESCE((SELECT SUM(h.amount) FROM accounts_hold h"
            "  WHERE h.wallet_id = w.id AND h.released_at IS NULL), 0)"
            " FROM accounts_wallet w WHERE w.id IN (%s)" % ",".join(str(int(w)) for w in wallets)
        )
        rows = cur.fetchall()
    return [r for r in rows if r[1] != r[2] or r[1] < 0 or r[3] > r[1]]

watching = threading.Event()
watch = {"reads": 0, "bad": []}
def monitor():
    try:
        while not watching.is_set():
            watch["bad"] += wallet_check()
            watch["reads"] += 1
            time.sleep(0.005)
    finally:
        connection.close()

def at_once(jobs, work):
    """Run work(job) for every job from THREADS threads released together; (outcomes, errors)."""
    todo = queue.Queue()
    for job in jobs:
        todo.put(job)
    start = threading.Barrier(THREADS)
    outcomes, errors = [], []
    def worker():
        start.wait()
        try:
            while True:
                try:
                    job = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    outcomes.append(work(job))
                except Exception as exc:  # a deadlock, a constraint: reported, not hidden
                    errors.append(f"{job}: {type(exc).__name__}: {exc}")
        finally:
            connection.close()  # this thread's own connection
    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes, errors

def ready(job):
    table_id, user = job
    try:
        services.set_ready(table_id, user)
        return [table_id, "ok"]
    except services.Refused as exc:
        return [table_id, f"refused: {exc}"]

watcher = threading.Thread(target=monitor)
watcher.start()
readied, ready_errors = at_once(tasks, ready)

status = dict(Table.objects.filter(pk__in=[t for t, _, _ in tables]).values_list("pk", "status"))
shared_ready = {
    t: Table.objects.get(pk=t).seats.get(user=shared[k]).ready for t, k, _ in tables
}
holds = {
    k: sorted(Hold.objects.filter(wallet__user=p, released_at__isnull=True).values_list("amount", flat=True))
    for k, p in enumerate(shared)
}

# Every started match's hand ends with the shared player owing 60 points x 20 = 1200 (more than
# the whole balance) to the table's three own players, 20 points each.
hands = []
for table_id, k, _ in tables:
    if status[table_id] != Table.PLAYING:
        continue
    hand = Hand.objects.get(table_id=table_id)
    chair = Table.objects.get(pk=table_id).seats.get(user=shared[k]).position
    loser = hand.engine_seat(chair)
    points = [20, 20, 20, 20]
    points[loser] = -60
    result = Result("win", winner=(loser + 1) % 4, deltas=points)
    Hand.objects.filter(pk=hand.pk).update(
        status=Hand.FINISHED, result=result.to_json(), deadline_at=None, finished_at=timezone.now()
    )
    Table.objects.filter(pk=table_id).update(status=Table.FINISHED, hands_played=1)
    hands.append(hand.pk)

settled, settle_errors = at_once(hands, lambda pk: [pk, services.settle_finished_hand(pk)])
watching.set()
watcher.join()

rows = {}
for pk in hands:
    hand = Hand.objects.get(pk=pk)
    seats = Table.objects.get(pk=hand.table_id).seats.order_by("position")
    rows[pk] = {
        "table": hand.table_id,
        "deltas": hand.deltas,
        "chairs": {str(s.position): Wallet.objects.get(user_id=s.user_id).pk for s in seats},
        "booked": {
            str(w): a
            for w, a in LedgerEntry.objects.filter(reference=f"hand:{pk}").values_list("wallet_id", "amount")
        },
    }
print("RESULT " + json.dumps({
    "vendor": connection.vendor, "tables": tables, "readied": readied, "ready_errors": ready_errors,
    "status": {str(k): v for k, v in status.items()}, "shared_ready": {str(k): v for k, v in shared_ready.items()},
    "holds": {str(k): v for k, v in holds.items()}, "settled": settled, "settle_errors": settle_errors,
    "hands": rows, "watch": watch,
    "shared_wallets": [Wallet.objects.get(user=p).pk for p in shared],
    "balances": {str(w): b for w, b in Wallet.objects.filter(pk__in=wallets).values_list("pk", "balance")},
    "holds_left": Hold.objects.filter(wallet_id__in=wallets, released_at__isnull=True).count(),
}))
'''


def run_holds_stress(database_url: str, var: Path, shared: int, tables: int, threads: int) -> dict[str, Any]:
    return run_stress(
        database_url,
        var,
        threads=threads,
        script=HOLDS_SCRIPT,
        extra_env={
            "CAISHEN_STARTING_GRANT": "1000",
            "CAISHEN_SIT_MULTIPLE": "20",
            "STRESS_SHARED": str(shared),
            "STRESS_TABLES": str(tables),
        },
    )


def check_holds(r: dict[str, Any]) -> None:
    assert r["ready_errors"] == [] and r["settle_errors"] == []
    assert r["watch"]["reads"] > 0 and r["watch"]["bad"] == [], "a wallet backed more holds than its balance"
    outcome = {table: text for table, text in r["readied"]}
    shared_wallets = r["shared_wallets"]
    for k in range(len(shared_wallets)):
        mine = [(t, last) for t, j, last in r["tables"] if j == k]
        started = [t for t, _ in mine if r["status"][str(t)] == "playing"]
        # 1000 units back two holds of 400: two matches start, never three (nor fewer).
        assert len(started) == 2, (k, r["status"])
        assert sorted(r["holds"][str(k)]) == [400, 400]
        for t, last in mine:
            if t in started:
                assert outcome[t] == "ok" and r["shared_ready"][str(t)]
                continue
            # The match waits and the shared player's seat is not ready (unreadied if it was).
            assert not r["shared_ready"][str(t)], t
            if last == "shared":
                assert outcome[t].startswith("refused: ") and "held by your other matches" in outcome[t], outcome[t]
            else:
                assert outcome[t] == "ok", outcome[t]  # the caller's own ready stands
    # Settlement at once: each table gets at least its hold from the shared player, who pays
    # their whole 1000 over the two tables and ends at 0; shown deltas are the booked rows.
    assert sorted(set(ok for _, ok in r["settled"])) == [True]
    paid: dict[int, list[int]] = {w: [] for w in shared_wallets}
    for pk, hand in r["hands"].items():
        booked = {int(w): a for w, a in hand["booked"].items()}
        assert sum(booked.values()) == 0, (pk, booked)
        for chair, wallet in hand["chairs"].items():
            assert hand["deltas"][chair] == booked.get(wallet, 0), (pk, chair)
        for w in shared_wallets:
            if w in booked:
                paid[w].append(-booked[w])
    for w, amounts in paid.items():
        assert len(amounts) == 2 and min(amounts) >= 400 and sum(amounts) == 1000, (w, amounts)
        assert r["balances"][str(w)] == 0
    assert min(r["balances"].values()) >= 0
    assert r["holds_left"] == 0


@pytest.mark.integration
def test_concurrent_readying_across_tables_never_overcommits(own_pg_database: str, tmp_path: Path) -> None:
    result = run_holds_stress(own_pg_database, tmp_path, shared=3, tables=6, threads=8)
    assert result["vendor"] == "postgresql"
    check_holds(result)
