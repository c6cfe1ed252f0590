"""Concurrent settlement on real PostgreSQL.

A script run in a configured Django process (``DATABASE_URL`` set, like the Procfile's
processes) deals real hands at tables whose players share a handful of wallets with small
balances, marks them finished with results whose losses mostly exceed the balances (so
``accounts.services.capped_movements`` caps them), then settles every hand twice at once from
several threads (each with its own database connection: PostgreSQL row locks are what keep
this straight), together with direct ``accounts.services.settle`` calls on shared references,
also twice each.  Every match holds its stake from its players' wallets while it runs,
so a loser pays from that table's hold plus the free balance, never from another table's
hold, and the last booking of a match releases its holds.  A monitor thread reads the wallets
meanwhile.  The test then checks the ledger: no balance below zero (the check constraint
refuses one) and no balance below its active holds at any read, every hand's rows sum to
zero, one row per hand and wallet at most, each wallet's balance is the sum of its rows (and
each row's ``balance_after`` the running sum), units are conserved, every hold is released
at the end, and settling everything again changes nothing.

``run_stress`` is shared with the SQLite variant in tests/platform/test_settlement_stress_sqlite.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Runs inside Django (``python SCRIPT``): prints one line "RESULT <json>" for the test to check.
SCRIPT = r'''
import json, os, queue, random, sys, threading, time
import django
django.setup()
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from accounts import services as accounts
from accounts.models import Hold, LedgerEntry, Wallet
from games import services
from games.engine.state import Result
from games.models import Hand, Table

seed = int(os.environ["STRESS_SEED"])
rng = random.Random(seed)
run = os.environ["STRESS_RUN"]
PLAYERS, HANDS, DIRECT, THREADS = (
    int(os.environ[f"STRESS_{k}"]) for k in ("PLAYERS", "HANDS", "DIRECT", "THREADS")
)

users = [get_user_model().objects.create_user(f"{run}_{i}", password="x") for i in range(PLAYERS)]
wallets = [Wallet.objects.get(user=u).pk for u in users]
initial = sum(Wallet.objects.filter(pk__in=wallets).values_list("balance", flat=True))

# The same reference settled twice at once, deterministically: the first call's transaction is
# held open (its wallet locks with it) while the second starts.  The loser pays their whole
# balance, so a second call that books against the new balances would move nothing at all.
def race():
    a, b = (get_user_model().objects.create_user(f"{run}_race{i}", password="x") for i in range(2))
    wa, wb = Wallet.objects.get(user=a), Wallet.objects.get(user=b)
    deltas = {wa.pk: -100, wb.pk: 100}
    reference = f"{run}:race"
    holding, out = threading.Event(), {}
    def first():
        try:
            with transaction.atomic():
                out["first"] = sorted(e.pk for e in accounts.settle(reference, deltas))
                holding.set()
                time.sleep(0.5)
        finally:
            connection.close()
    def second():
        try:
            holding.wait()
            out["second"] = sorted(e.pk for e in accounts.settle(reference, deltas))
        finally:
            connection.close()
    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out["rows"] = sorted(LedgerEntry.objects.filter(reference=reference).values_list("pk", flat=True))
    return out

same_reference = race()


def points() -> list[int]:
    """Engine deltas (E, S, W, N): self-drawn, discard and mixed wins, and draws."""
    kind = rng.choice(["self", "discard", "mixed", "mixed", "draw"])
    if kind == "draw":
        return [0, 0, 0, 0]
    if kind == "mixed":  # several winners (kong payments and the like): shares are proportional
        while True:
            d = [rng.randint(-6, 6) for _ in range(3)]
            d.append(-sum(d))
            if any(x < 0 for x in d) and any(x > 0 for x in d):
                return d
    winner = rng.randrange(4)
    d = [0, 0, 0, 0]
    others = [s for s in range(4) if s != winner]
    losers = others if kind == "self" else [rng.choice(others)]
    for s in losers:
        d[s] = -rng.randint(1, 8)
    d[winner] = -sum(d)
    return d

def available(user) -> int:
    return Wallet.objects.get(user=user).available

hands = []
for h in range(HANDS):
    # Each match holds stake x CAISHEN_SIT_MULTIPLE (1 here) from its players until it is booked,
    # and only players with that much available can sit: smaller stakes once the wallets run low.
    stake = rng.choice([1, 5, 10])
    able = [u for u in users if available(u) >= stake]
    if len(able) < 4:
        stake = 1
        able = [u for u in users if available(u) >= stake]
    if len(able) < 4:
        break
    four = rng.sample(able, 4)
    table = services.create_table(four[0], "zhejiang_caishen", {}, stake=stake, hands_total=1)
    for u in four:
        services.sit(table.pk, u)
    table.seats.update(ready=True)
    table.refresh_from_db()
    hand = services.start_match(table)  # a real, seeded deal
    d = points()
    result = Result("win" if any(d) else "draw", winner=d.index(max(d)) if any(d) else None, deltas=d)
    # The hand ends as HandStep.finish leaves it under CAISHEN_SETTLEMENT=celery: finished, not settled
    # (settle_finished_hand, the Celery task's body, settles it below).
    Hand.objects.filter(pk=hand.pk).update(
        status=Hand.FINISHED, result=result.to_json(), deadline_at=None, finished_at=timezone.now()
    )
    Table.objects.filter(pk=table.pk).update(status=Table.FINISHED, hands_played=1)
    hands.append(hand.pk)

direct = {}
for k in range(DIRECT):  # accounts.settle itself, on references no hand guards
    some = rng.sample(wallets, rng.randint(2, 4))
    d = [rng.randint(-120, 60) for _ in some[:-1]]
    d.append(-sum(d))
    direct[f"{run}:direct:{k}"] = dict(zip(some, d))

def settle_all(tasks):
    """Run every task from THREADS threads at once; returns (outcomes, errors)."""
    todo = queue.Queue()
    for t in tasks:
        todo.put(t)
    start = threading.Barrier(THREADS)
    outcomes, errors = [], []
    def worker():
        start.wait()
        try:
            while True:
                try:
                    kind, key = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    if kind == "hand":
                        outcomes.append((kind, key, services.settle_finished_hand(key)))
                    else:
                        outcomes.append((kind, key, len(accounts.settle(key, direct[key]))))
                except Exception as exc:  # a deadlock, a constraint: reported, not hidden
                    errors.append(f"{kind} {key}: {type(exc).__name__}: {exc}")
        finally:
            connection.close()  # this thread's own connection
    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes, errors

def wallet_check():
    """One statement (one snapshot): wallets whose balance is not the sum of their rows, is
    negative, or is below its active holds (a table spent units another table holds)."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT w.id, w.balance,"
            " COALESCE((SELECT SUM(l.amount) FROM accounts_ledgerentry l WHERE l.wallet_id = w.id), 0),"
            " COALESCE((SELECT SUM(h.amount) FROM accounts_hold h"
            "  WHERE h.wallet_id = w.id AND h.released_at IS NULL), 0)"
            " FROM accounts_wallet w WHERE w.id IN (%s)"
            % ",".join(str(int(w)) for w in wallets)
        )
        rows = cur.fetchall()
    return [r for r in rows if r[1] != r[2] or r[1] < 0 or r[3] > r[1]]

def active_holds():
    return list(Hold.objects.filter(wallet_id__in=wallets, released_at__isnull=True).values_list("amount", flat=True))

held_before = active_holds()

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

tasks = [("hand", h) for h in hands for _ in range(2)] + [("direct", k) for k in direct for _ in range(2)]
rng.shuffle(tasks)
watcher = threading.Thread(target=monitor)
watcher.start()
t0 = time.monotonic()
outcomes, errors = settle_all(tasks)
elapsed = time.monotonic() - t0
watching.set()
watcher.join()

def ledger():
    return sorted(
        LedgerEntry.objects.filter(wallet_id__in=wallets)
        .values_list("id", "wallet_id", "reference", "amount", "balance_after")
    )

first = ledger()
holds_left = len(active_holds())
balances = dict(Wallet.objects.filter(pk__in=wallets).values_list("pk", "balance"))
# Re-running changes nothing.  (A direct reference whose first run moved nothing, every loser
# being broke, is left out: settle() then writes no row to remember it by, so it would book
# against later balances; hands are guarded by Hand.settled, see settle_finished_hand.)
booked = {reference for _, _, reference, _, _ in first}
again, again_errors = settle_all([t for t in tasks if t[0] == "hand" or t[1] in booked])
unchanged = ledger() == first and dict(Wallet.objects.filter(pk__in=wallets).values_list("pk", "balance")) == balances

# The database itself refuses a negative balance (not only accounts.services.post).
try:
    with transaction.atomic():
        Wallet.objects.filter(pk=wallets[0]).update(balance=-1)
    constraint = "accepted"
except IntegrityError:
    constraint = "refused"
try:
    accounts.post(Wallet.objects.get(pk=wallets[0]), -(balances[wallets[0]] + 1), LedgerEntry.STAFF_DEBIT)
    overdraft = "accepted"
except accounts.InsufficientFunds:
    overdraft = "refused"

rows = list(Hand.objects.filter(pk__in=hands).values(
    "pk", "settled", "deltas", "result", "dealer_position", "table_id", "table__stake"
))
chairs = {}
for row in rows:
    seats = Table.objects.get(pk=row["table_id"]).seats.order_by("position")
    chairs[row["pk"]] = [Wallet.objects.get(user_id=s.user_id).pk for s in seats]
print("RESULT " + json.dumps({
    "seed": seed, "elapsed": elapsed, "initial": initial, "wallets": wallets, "balances": balances,
    "ledger": first, "outcomes": outcomes, "errors": errors, "again": again, "again_errors": again_errors,
    "unchanged": unchanged, "constraint": constraint, "overdraft": overdraft,
    "watch": watch, "hands": rows, "chairs": chairs, "direct": direct,
    "vendor": connection.vendor, "same_reference": same_reference,
    "held_before": sum(held_before), "holds_before": len(held_before), "holds_left": holds_left,
}))
'''


def run_stress(
    database_url: str,
    var: Path,
    players: int = 8,
    hands: int = 24,
    direct: int = 12,
    threads: int = 8,
    script: str = SCRIPT,
    extra_env: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Migrate the database, run ``script`` (SCRIPT unless given: the holds stress, in
    test_holds_stress.py, brings its own) against it in a fresh process, return what it printed."""
    seed = int(os.environ.get("STRESS_SEED", uuid.uuid4().int % 10**6))
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("CAISHEN_", "REDIS_URL", "CELERY_"))},
        "DJANGO_SETTINGS_MODULE": "mahjong_platform.settings",
        "DJANGO_SECRET_KEY": "stress-" + uuid.uuid4().hex,
        "DATABASE_URL": database_url,
        "CAISHEN_VAR_DIR": str(var),
        "CAISHEN_STARTING_GRANT": "40",  # small balances: most losses are capped
        "CAISHEN_SIT_MULTIPLE": "1",
        "CAISHEN_TIMERS": "inprocess",  # no loop is bound in a script: nothing is scheduled
        "DJANGO_LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
        "STRESS_SEED": str(seed),
        "STRESS_RUN": f"st{uuid.uuid4().hex[:6]}",
        "STRESS_PLAYERS": str(players),
        "STRESS_HANDS": str(hands),
        "STRESS_DIRECT": str(direct),
        "STRESS_THREADS": str(threads),
        **(extra_env or {}),
    }
    migrate = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert migrate.returncode == 0, migrate.stderr
    path = var / "settlement_stress.py"
    path.write_text(script)
    done = subprocess.run([sys.executable, str(path)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"seed {seed}\n{done.stdout}\n{done.stderr}"
    line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")][-1]
    result: dict[str, Any] = json.loads(line[len("RESULT ") :])
    return result


def check(r: dict[str, Any]) -> None:
    """The ledger invariants after concurrent settlement (see the module docstring)."""
    seed = f"seed {r['seed']} (STRESS_SEED={r['seed']} reruns it)"
    assert r["errors"] == [], seed
    assert r["again_errors"] == [], seed
    wallets = {int(w) for w in r["wallets"]}
    balances = {int(w): b for w, b in r["balances"].items()}

    # The same reference settled twice at once: the second call waits and returns the first's rows.
    race = r["same_reference"]
    assert len(race["rows"]) == 2 and race["first"] == race["rows"], race
    assert race["second"] == race["rows"], f"the second settle() of one reference returned {race['second']}"

    # Never below zero: not at the end, not in any read during the run, and the database refuses it.
    assert min(balances.values()) >= 0, seed
    assert r["watch"]["reads"] > 0 and r["watch"]["bad"] == [], seed
    assert r["constraint"] == "refused" and r["overdraft"] == "refused"

    # The cached balance is the sum of the rows, and every row's balance_after is the running sum.
    by_wallet: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
    by_reference: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for entry_id, wallet, reference, amount, after in r["ledger"]:
        by_wallet[wallet].append((entry_id, amount, after))
        by_reference[reference].append((wallet, amount))
    for wallet in wallets:
        running = 0
        for _, amount, after in sorted(by_wallet[wallet]):
            running += amount
            assert after == running >= 0, (seed, wallet)
        assert balances[wallet] == running, (seed, wallet)
    assert sum(balances.values()) == r["initial"], seed  # units only move between these wallets

    # Each hand settled once: one True among its two concurrent runs, rows sum to zero, one per wallet.
    won = defaultdict(list)
    for kind, key, outcome in r["outcomes"]:
        won[(kind, str(key))].append(outcome)
    capped = 0  # chairs whose movement was cut by the cap
    for hand in r["hands"]:
        pk = hand["pk"]
        assert hand["settled"], (seed, pk)
        assert sorted(won[("hand", str(pk))]) == [False, True], (seed, pk)
        rows = by_reference.get(f"hand:{pk}", [])
        assert sum(a for _, a in rows) == 0, (seed, pk, rows)
        assert len({w for w, _ in rows}) == len(rows), (seed, pk, rows)
        # hand.deltas (per chair) are exactly the rows; a loser never pays more than owed and a
        # winner never gets more than won (engine points x stake; chair c is wind c - dealer).
        moved = dict(rows)
        chairs = r["chairs"][str(pk)]
        for chair, wallet in enumerate(chairs):
            assert hand["deltas"][str(chair)] == moved.get(wallet, 0), (seed, pk, chair)
            raw = hand["result"]["deltas"]["ESWN"[(chair - hand["dealer_position"]) % 4]] * hand["table__stake"]
            got = moved.get(wallet, 0)
            assert min(raw, 0) <= got <= max(raw, 0), (seed, pk, chair, raw, got)
            capped += got != raw
    # Direct settle calls on shared references: rows sum to zero, one per wallet, and each call
    # reports either those rows or none (none: it ran first, every loser broke; see SCRIPT).
    for reference in r["direct"]:
        rows = by_reference.get(reference, [])
        counts = won[("direct", reference)]
        assert len(counts) == 2 and set(counts) <= {0, len(rows)}, (seed, reference, counts, rows)
        assert sum(a for _, a in rows) == 0 and len({w for w, _ in rows}) == len(rows), (seed, reference)
    assert capped > 0, "no loss was capped: the stress did not reach capped_movements' cap"
    # The matches held their stakes while they ran, and booking each one's last hand released them.
    assert r["holds_before"] == 4 * len(r["hands"]) and r["held_before"] > 0, seed
    assert r["holds_left"] == 0, seed
    # Re-running every settlement changed nothing.
    assert r["unchanged"], seed
    assert all(outcome is False for kind, _, outcome in r["again"] if kind == "hand"), seed


@pytest.mark.integration
def test_concurrent_settlements_keep_the_ledger_straight(own_pg_database: str, tmp_path: Path) -> None:
    result = run_stress(own_pg_database, tmp_path)
    assert result["vendor"] == "postgresql"
    check(result)
