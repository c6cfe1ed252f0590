"""Load benchmark: N tables of four socket clients against a running server (docs/performance.md).

    python manage.py loadtest --tables 50 --duration 30 --url http://127.0.0.1:8000
    python manage.py loadtest --tables 200 --duration 60 --url http://127.0.0.1:8001 --url http://127.0.0.1:8002

Run it with the server's own environment (DATABASE_URL, REDIS_URL, ...): it creates the accounts
and tables in the server's database, signs the clients in there, talks to the server only over
its WebSockets, prints actions per second, the action -> all-four-seats latency (p50/p95/p99) and
the CPU of the server processes, then aborts its tables and stops by itself.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any
from urllib.parse import urlsplit

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.loadtest import setup
from games.loadtest.client import SeatClient, Stats, percentile
from games.loadtest.cpu import CpuMeter, server_processes
from mahjong_platform.gc_tuning import tune_for_latency


class Command(BaseCommand):
    help = "Drive N tables of four socket clients against a running server and measure it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tables", type=int, default=50)
        parser.add_argument("--duration", type=float, default=30.0, help="seconds measured")
        parser.add_argument("--warmup", type=float, default=5.0, help="seconds played before measuring")
        parser.add_argument("--url", action="append", default=[], help="server base URL (repeat: seats go round-robin)")
        parser.add_argument("--think", type=float, default=1.0, help="mean seconds a client thinks")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--json", action="store_true", help="print the result as one JSON line")

    def handle(self, *args: Any, **options: Any) -> None:
        urls = [u.rstrip("/") for u in options["url"]] or ["http://127.0.0.1:8000"]
        for url in urls:
            host = urlsplit(url).hostname
            if host not in ("127.0.0.1", "localhost", "::1"):
                raise CommandError(f"the load test only talks to this machine, not {host}")
        tables = int(options["tables"])
        if tables < 1:
            raise CommandError("--tables must be at least 1")
        self.stderr.write(f"preparing {tables} tables ({4 * tables} accounts) ...")
        tag, seats = setup.prepare(tables)
        # The client's own collector pauses would count as server latency: tuned like the server's.
        tune_for_latency()
        try:
            result = asyncio.run(self.drive(tag, seats, urls, options))
        finally:
            setup.stop(tag)
        result.update({"tables": tables, "urls": urls})
        if options["json"]:
            self.stdout.write(json.dumps(result))
        else:
            self.print_result(result)

    async def drive(
        self, tag: str, seats: list[setup.Seat], urls: list[str], options: dict[str, Any]
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
        self.stderr.write(f"{len(clients)} sockets open; starting the matches ...")
        await asyncio.to_thread(setup.start, tag)
        await asyncio.gather(*(c.resync() for c in clients))  # the embedded layer cannot reach them from here
        await asyncio.sleep(options["warmup"])
        meter = CpuMeter(server_processes(with_services=True))
        stats.latencies.clear()
        meter.start()
        started = time.perf_counter()
        stats.measure_from, stats.measure_to = started, started + options["duration"]
        sent_before, refused_before, frames_before = stats.sent, stats.refused, stats.frames
        await asyncio.sleep(options["duration"])
        elapsed = time.perf_counter() - started
        meter.stop()
        sent, refused, frames = stats.sent - sent_before, stats.refused - refused_before, stats.frames - frames_before
        await asyncio.sleep(2)  # let the last measured actions arrive everywhere
        for c in clients:
            c.stopping = True
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        lat = stats.latencies
        return {
            "seconds": round(elapsed, 1),
            "actions": len(lat),
            "actions_per_s": round(len(lat) / elapsed, 1),
            "sent": sent,
            "refused": refused,
            "frames_per_s": round(frames / elapsed, 1),
            "gaps": stats.gaps,
            "errors": stats.errors,
            "p50_ms": round(1000 * percentile(lat, 50), 1),
            "p95_ms": round(1000 * percentile(lat, 95), 1),
            "p99_ms": round(1000 * percentile(lat, 99), 1),
            "max_ms": round(1000 * max(lat), 1) if lat else None,
            "cpu_percent": {k: round(v, 1) for k, v in meter.report(elapsed).items()},
        }

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
            f"  server CPU     {cpu['server_total']}% of one core ({servers})\n"
            f"  client CPU     {cpu['client']}% of one core; machine {cpu['machine']}% of all cores"
        )
