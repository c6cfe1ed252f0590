"""Load benchmark: N tables of four socket clients against a running server (docs/performance.md).

    python manage.py loadtest --tables 50 --duration 30 --url http://127.0.0.1:8000
    python manage.py loadtest --tables 200 --duration 60 --url http://127.0.0.1:8001 --url http://127.0.0.1:8002
    python manage.py loadtest --baseline --tables 50 --duration 30

Run it with the server's own environment (DATABASE_URL, REDIS_URL, ...): it creates the accounts
and tables in the server's database, signs the clients in there, talks to the server only over
its WebSockets, prints actions per second, the action -> all-four-seats latency (p50/p95/p99) and
the CPU of the server processes, then aborts its tables and stops by itself.

With ``--baseline`` it starts the servers itself, on 127.0.0.1 with its own environment, one
after the other: the reference table server (games/tools/loadtest/reference: the same stack, one
UPDATE and one group send per action), then the real one (mahjong_platform.asgi); it drives
each with the same client and prints both and the ratio of their CPU per applied step.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.tools.loadtest import flood, ramp, setup
from games.tools.loadtest.client import SeatClient, Stats, percentile
from games.tools.loadtest.cpu import CpuMeter, Proc, server_processes
from mahjong_platform.gc_tuning import tune_for_latency

REFERENCE_APP = "games.tools.loadtest.reference.asgi:application"
REAL_APP = "mahjong_platform.asgi:application"


class Command(BaseCommand):
    help = "Drive N tables of four socket clients against a running server and measure it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tables", type=int, default=50)
        parser.add_argument("--duration", type=float, default=30.0, help="seconds measured")
        parser.add_argument("--warmup", type=float, default=5.0, help="seconds played before measuring")
        parser.add_argument("--url", action="append", default=[], help="server base URL (repeat: seats go round-robin)")
        parser.add_argument("--think", type=float, default=1.0, help="mean seconds a client thinks")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--ramp",
            type=float,
            default=0.0,
            help="seconds over which the tables' matches start one after another through the server's "
            "API, which may refuse them when saturated (games/tools/loadtest/ramp.py); 0: all at once, here",
        )
        parser.add_argument(
            "--flood",
            type=float,
            default=0.0,
            help="seconds of each anonymous flood phase run inside the measured window, while another "
            "user creates a table every 2 s (games/tools/loadtest/flood.py); the window must hold both phases",
        )
        parser.add_argument(
            "--timeline",
            default="",
            help="write each measured action as a CSV line (seconds into the window, latency ms) to this file",
        )
        parser.add_argument("--json", action="store_true", help="print the result as one JSON line")
        parser.add_argument(
            "--baseline",
            action="store_true",
            help="start the reference server, then the real one, here (no --url) and compare their CPU per step",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        tables = int(options["tables"])
        if tables < 1:
            raise CommandError("--tables must be at least 1")
        if options["baseline"]:
            if options["url"]:
                raise CommandError("--baseline starts its own servers: no --url")
            if options["ramp"] > 0:
                raise CommandError("--ramp starts matches through the real server's API, which the reference lacks")
            if options["flood"] > 0:
                raise CommandError("--flood measures the real server's refusals, which the reference lacks")
            self.baseline(tables, options)
            return
        if options["flood"] < 0 or 2 * options["flood"] > options["duration"]:
            raise CommandError("--flood SECONDS: both phases (2 × SECONDS) must fit in --duration")
        urls = [u.rstrip("/") for u in options["url"]] or ["http://127.0.0.1:8000"]
        for url in urls:
            host = urlsplit(url).hostname
            if host not in ("127.0.0.1", "localhost", "::1"):
                raise CommandError(f"the load test only talks to this machine, not {host}")
        result = self.run_once(tables, urls, options, procs=None)
        if options["json"]:
            self.stdout.write(json.dumps(result))
        else:
            self.print_result(result)

    def run_once(
        self, tables: int, urls: list[str], options: dict[str, Any], procs: list[Proc] | None
    ) -> dict[str, Any]:
        """One measured run against ``urls``: fresh tables and accounts, played, then aborted."""
        self.stderr.write(f"preparing {tables} tables ({4 * tables} accounts) ...")
        tag, seats = setup.prepare(tables)
        # The client's own collector pauses would count as server latency: tuned like the server's.
        tune_for_latency()
        try:
            result = asyncio.run(self.drive(tag, seats, urls, options, procs))
        finally:
            setup.stop(tag)
        result.update({"tables": tables, "urls": urls})
        return result

    def baseline(self, tables: int, options: dict[str, Any]) -> None:
        """The reference server, then the real one, each started here on a free port of
        127.0.0.1 with this command's environment (so the same database and channel layer),
        measured by the same client with the same options; only the daphne started for the run
        is metered (other daphne processes on the machine are not counted)."""
        results: dict[str, Any] = {}
        for name, app in (("reference", REFERENCE_APP), ("real", REAL_APP)):
            with (
                tempfile.TemporaryDirectory(prefix="caishen-baseline-") as work,
                daphne_server(app, Path(work) / "daphne.log") as (pid, url),
            ):
                self.stderr.write(f"{name} server: daphne {app} on {url} (pid {pid})")
                # PostgreSQL and Redis are listed apart, as without --baseline (others may share
                # them), and only when the settings use them: embedded, they are someone else's.
                found = server_processes(with_services=True, database_url=os.environ.get("DATABASE_URL") or None)
                services = [p for p in found if p.name in ("postgres", "redis") and p.name in used_services()]
                results[name] = self.run_once(tables, [url], options, procs=[Proc(pid, "daphne"), *services])
        ref, real = results["reference"], results["real"]
        results["ratio_per_step"] = _ratio(real["cpu_ms_per_step"], ref["cpu_ms_per_step"])
        results["ratio_per_action"] = _ratio(real["cpu_ms_per_action"], ref["cpu_ms_per_action"])
        if options["json"]:
            self.stdout.write(json.dumps(results))
            return
        for name in ("reference", "real"):
            self.stdout.write(f"{name} server:")
            self.print_result(results[name])
        self.print_comparison(results)

    async def drive(
        self,
        tag: str,
        seats: list[setup.Seat],
        urls: list[str],
        options: dict[str, Any],
        procs: list[Proc] | None = None,
    ) -> dict[str, Any]:
        stats = Stats()
        rng = random.Random(options["seed"])
        clients = []
        for i, seat in enumerate(seats):
            base = urls[(seat.table + seat.position) % len(urls)]  # a table's seats spread over the servers
            ws_url = base.replace("http://", "ws://", 1).replace("https://", "wss://", 1)
            clients.append(SeatClient(seat, ws_url, base, stats, options["think"], random.Random(rng.random() + i)))
        tasks = []
        for k in range(0, len(clients), 20):  # connect in batches: no thundering herd on accept
            batch = clients[k : k + 20]
            tasks += [asyncio.create_task(c.run()) for c in batch]
            await asyncio.gather(*(c.opened.wait() for c in batch))
        if stats.errors:
            raise CommandError(f"{stats.errors} sockets failed to connect to {urls}: {stats.first_error}")
        arrivals: ramp.Arrivals | None = None
        arriving: list[asyncio.Task[None]] = []
        if options["ramp"] > 0:
            arrivals, arriving = await self.start_over_ramp(tag, seats, urls, options)
        else:
            self.stderr.write(f"{len(clients)} sockets open; starting the matches ...")
            await asyncio.to_thread(setup.start, tag)
            await asyncio.gather(*(c.resync() for c in clients))  # the embedded layer cannot reach them from here
        await asyncio.sleep(options["warmup"])
        # Without a list of its own (--baseline), the servers of this database: the same
        # DATABASE_URL as this command's (other daphne or Celery processes on the machine are not
        # counted — another person's, another test run's).
        database_url = os.environ.get("DATABASE_URL") or None

        def scan() -> list[Proc]:
            return server_processes(with_services=True, database_url=database_url)

        meter = CpuMeter(scan(), rescan=scan) if procs is None else CpuMeter(procs)
        stats.latencies.clear()
        stats.sent_at.clear()
        seqs_before = await asyncio.to_thread(setup.hand_seqs, tag)
        meter.start()
        started = time.perf_counter()
        stats.measure_from, stats.measure_to = started, started + options["duration"]
        sent_before, refused_before, frames_before = stats.sent, stats.refused, stats.frames
        flooding = None
        if options.get("flood", 0) > 0:
            other = await asyncio.to_thread(setup.other_user, tag)
            flooding = asyncio.create_task(flood.run(urls[0], other, flood.watched_table(seats), options["flood"]))
        await asyncio.sleep(options["duration"])
        elapsed = time.perf_counter() - started
        meter.stop()
        steps = setup.steps_between(seqs_before, await asyncio.to_thread(setup.hand_seqs, tag))
        sent, refused, frames = stats.sent - sent_before, stats.refused - refused_before, stats.frames - frames_before
        await asyncio.sleep(2)  # let the last measured actions arrive everywhere
        for t in arriving:
            t.cancel()
        await asyncio.gather(*arriving, return_exceptions=True)
        for c in clients:
            c.stopping = True
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        lat = stats.latencies
        if options.get("timeline"):
            with open(options["timeline"], "w", encoding="utf-8") as out:
                # monotonic: the send time on the machine's monotonic clock (perf_counter is
                # CLOCK_MONOTONIC on Linux), to line up with the server's CAISHEN_DB_TRACE.
                out.write("seconds,latency_ms,monotonic\n")
                for t0, latency in sorted(zip(stats.sent_at, lat, strict=True)):
                    out.write(f"{t0 - started:.3f},{1000 * latency:.1f},{t0:.4f}\n")
        cpu = meter.report(elapsed)
        cpu_ms = 10 * cpu["server_total"] * elapsed  # percent of one core over the window -> ms
        cpu_all_ms = cpu_ms + 10 * (cpu.get("postgres", 0.0) + cpu.get("redis", 0.0)) * elapsed
        extra: dict[str, Any] = {"arrivals": arrivals.summary()} if arrivals is not None else {}
        if flooding is not None:
            extra["flood"] = [phase.summary() for phase in await flooding]
        return extra | {
            "seconds": round(elapsed, 1),
            "actions": len(lat),
            "actions_per_s": round(len(lat) / elapsed, 1),
            # Applied steps: the hands' seq advance (player actions, timer steps, deals).
            "steps": steps,
            "steps_per_s": round(steps / elapsed, 1),
            "cpu_ms_per_action": round(cpu_ms / len(lat), 3) if lat else None,
            "cpu_ms_per_step": round(cpu_ms / steps, 3) if steps else None,
            # The same with PostgreSQL's and Redis's CPU added (the scaled mode's whole cost; on a
            # shared machine they may serve others too — their backends of this database only).
            "cpu_ms_per_step_with_services": round(cpu_all_ms / steps, 3) if steps else None,
            "sent": sent,
            "refused": refused,
            "frames_per_s": round(frames / elapsed, 1),
            "gaps": stats.gaps,
            "errors": stats.errors,
            "p50_ms": round(1000 * percentile(lat, 50), 1),
            "p95_ms": round(1000 * percentile(lat, 95), 1),
            "p99_ms": round(1000 * percentile(lat, 99), 1),
            "max_ms": round(1000 * max(lat), 1) if lat else None,
            "cpu_percent": {k: round(v, 1) for k, v in cpu.items()},
        }

    async def start_over_ramp(
        self, tag: str, seats: list[setup.Seat], urls: list[str], options: dict[str, Any]
    ) -> tuple[ramp.Arrivals, list[asyncio.Task[None]]]:
        """Two seats per table ready here, the other two through the server, table after table
        over ``--ramp`` seconds (games/tools/loadtest/ramp.py); returns once the ramp is over, with the
        tasks of seats still asking (refused ones ask again until the run ends)."""
        await asyncio.to_thread(setup.ready_first, tag, 2)
        by_table: dict[int, list[setup.Seat]] = {}
        for seat in seats:
            by_table.setdefault(seat.table, []).append(seat)
        loop = asyncio.get_running_loop()
        spread = float(options["ramp"])
        until = loop.time() + spread + options["warmup"] + options["duration"]
        arrivals = ramp.Arrivals(tables=len(by_table))
        self.stderr.write(f"{len(seats)} sockets open; the matches start over {spread:g} s, through the server ...")
        tasks = []
        for i, (table, table_seats) in enumerate(sorted(by_table.items())):
            late = sorted((s for s in table_seats if s.position >= 2), key=lambda s: s.position)
            base = urls[(table + late[0].position) % len(urls)]  # the server the seat's socket talks to
            rng = random.Random(f"{options['seed']}:{table}")
            tasks.append(asyncio.create_task(ramp.arrive(base, late, i * spread / len(by_table), until, arrivals, rng)))
        await asyncio.sleep(spread)
        return arrivals, tasks

    def print_result(self, r: dict[str, Any]) -> None:
        cpu = r["cpu_percent"]
        servers = ", ".join(
            f"{k} {v}%" for k, v in cpu.items() if k not in ("server_total", "client", "machine", "daphne_loop")
        )
        if "daphne_loop" in cpu:
            servers += f"; of daphne's, its event loop {cpu['daphne_loop']}%"
        # postgres and redis are listed but not in the total: other programs may use them too
        self.stdout.write(
            f"tables {r['tables']} over {r['seconds']} s against {' '.join(r['urls'])}\n"
            f"  actions/s      {r['actions_per_s']}  ({r['actions']} actions measured, {r['sent']} sent, "
            f"{r['refused']} refused, {r['frames_per_s']} frames/s received, {r['gaps']} seq gaps, "
            f"{r['errors']} socket errors)\n"
            f"  latency        p50 {r['p50_ms']} ms  p95 {r['p95_ms']} ms  p99 {r['p99_ms']} ms  max {r['max_ms']} ms\n"
            f"  applied steps  {r['steps_per_s']}/s  ({r['steps']} steps: the hands' seq advance)\n"
            f"  server CPU     {cpu['server_total']}% of one core ({servers}); "
            f"{r['cpu_ms_per_action']} ms per action, {r['cpu_ms_per_step']} ms per applied step "
            f"({r['cpu_ms_per_step_with_services']} with PostgreSQL and Redis)\n"
            f"  client CPU     {cpu['client']}% of one core; machine {cpu['machine']}% of all cores"
        )
        if "arrivals" in r:
            a = r["arrivals"]
            self.stdout.write(
                f"  matches        {a['tables_started']} of {a['tables_offered']} tables started; "
                f"{a['refusals']} refusals (503) at {a['tables_refused_at_least_once']} tables, "
                f"{a['failures']} other failures {a['first_failure']}\n"
                f"  refusal        {a['refusal_message'] or '-'}"
            )
        for f in r.get("flood", []):
            self.stdout.write(
                f"  flood          {f['phase']}: {f['requests']} anonymous requests in {f['seconds']} s "
                f"({f['per_s']}/s; {f['limited_429']} limited with 429, {f['flood_errors']} failed); "
                f"another user's new tables: {f['victim_created']} created, {f['victim_refused_503']} refused (503), "
                f"{f['victim_other']} other"
            )

    def print_comparison(self, results: dict[str, Any]) -> None:
        ref, real = results["reference"], results["real"]
        rows = [
            ("actions/s", "actions_per_s"),
            ("applied steps/s", "steps_per_s"),
            ("p50 ms", "p50_ms"),
            ("p99 ms", "p99_ms"),
            ("CPU ms/action", "cpu_ms_per_action"),
            ("CPU ms/step", "cpu_ms_per_step"),
        ]
        lines = [
            f"comparison at {real['tables']} tables ({real['seconds']} s each)",
            f"  {'':18}{'reference':>12}{'real':>12}",
        ]
        lines += [f"  {label:18}{ref[key]!s:>12}{real[key]!s:>12}" for label, key in rows]
        cpu = [str(r["cpu_percent"]["server_total"]) for r in (ref, real)]
        lines.append(f"  {'server CPU %':18}{cpu[0]:>12}{cpu[1]:>12}")
        lines.append(
            f"  ratio real/reference: {results['ratio_per_step']} per applied step, "
            f"{results['ratio_per_action']} per player action"
        )
        self.stdout.write("\n".join(lines))


def used_services() -> set[str]:
    """Which shared services this configuration's servers talk to ("postgres", "redis")."""
    from django.conf import settings

    used = set()
    if "postgresql" in settings.DATABASES["default"]["ENGINE"]:
        used.add("postgres")
    if "channels_redis" in settings.CHANNEL_LAYERS["default"]["BACKEND"]:
        used.add("redis")
    return used


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a is not None and b else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def daphne_server(app: str, log: Path, timeout: float = 60.0) -> Iterator[tuple[int, str]]:
    """daphne serving ``app`` on a free port of 127.0.0.1 with this process's environment and
    interpreter (the same settings, database and layer); yields (its pid, its base URL) once it
    accepts connections, and stops it on the way out — killed if it does not stop within 10 s
    (a daphne stopped under load sometimes hangs on its way out: docs/performance.md)."""
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), app],
            env=os.environ.copy(),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        end = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise CommandError(f"daphne {app} exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > end:
                    raise CommandError(f"daphne {app} did not listen within {timeout} s") from None
                time.sleep(0.2)
        yield proc.pid, f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
