"""One result from several load clients run side by side against the same servers.

One load-client process drives a few hundred sockets before it becomes the bottleneck itself; a
many-core machine running 8 web processes needs several (scripts/loadtest-scale.sh).  Each client
writes its ``manage.py loadtest --json`` result and its ``--timeline`` (each measured action's
latency); this sums their actions and applied steps, takes the percentiles over every client's
latencies together, and charges the servers' CPU — which every client meters alike (the daphne and
Celery processes of the database, PostgreSQL and Redis) — to the steps of all of them:

    python -m games.tools.loadtest.combine client0.json client0.csv client1.json client1.csv ...

It prints the lines ``manage.py loadtest`` prints (``applied steps N/s``, ``latency … p99 N ms``),
with the clients' count and their busiest one's CPU (past ~80 % of a core the client measures
itself, not the servers).
"""

from __future__ import annotations

import csv
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Combined:
    clients: int
    seconds: float
    actions: int
    steps: int
    latencies_ms: list[float]
    server_cpu: float  # percent of one core, the servers' processes
    services_cpu: float  # PostgreSQL and Redis, percent of one core
    busiest_client_cpu: float
    machine: float
    errors: int

    def percentile(self, p: float) -> float:
        ordered = sorted(self.latencies_ms)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]

    def lines(self) -> list[str]:
        ms_per_step = 10 * self.server_cpu * self.seconds / self.steps if self.steps else float("nan")
        with_services = 10 * (self.server_cpu + self.services_cpu) * self.seconds / self.steps if self.steps else 0
        return [
            f"clients {self.clients} over {self.seconds:.1f} s",
            f"  actions/s      {self.actions / self.seconds:.1f}  ({self.actions} actions measured, "
            f"{self.errors} socket errors)",
            f"  latency        p50 {self.percentile(50):.1f} ms  p95 {self.percentile(95):.1f} ms  "
            f"p99 {self.percentile(99):.1f} ms  max {max(self.latencies_ms, default=0):.1f} ms",
            f"  applied steps  {self.steps / self.seconds:.1f}/s  ({self.steps} steps: the hands' seq advance)",
            f"  server CPU     {self.server_cpu:.1f}% of one core; {ms_per_step:.3f} ms per applied step "
            f"({with_services:.3f} with PostgreSQL and Redis)",
            f"  client CPU     busiest client {self.busiest_client_cpu:.1f}% of one core; "
            f"machine {self.machine:.1f}% of all cores",
        ]


def combine(results: list[dict[str, Any]], timelines: list[list[float]]) -> Combined:
    cpus = [r["cpu_percent"] for r in results]
    return Combined(
        clients=len(results),
        seconds=statistics.fmean(r["seconds"] for r in results),
        actions=sum(r["actions"] for r in results),
        steps=sum(r["steps"] for r in results),
        latencies_ms=[ms for timeline in timelines for ms in timeline],
        server_cpu=statistics.fmean(c["server_total"] for c in cpus),
        services_cpu=statistics.fmean(c.get("postgres", 0.0) + c.get("redis", 0.0) for c in cpus),
        busiest_client_cpu=max(c["client"] for c in cpus),
        machine=statistics.fmean(c["machine"] for c in cpus),
        errors=sum(r["errors"] for r in results),
    )


def read_result(path: Path) -> dict[str, Any]:
    """The JSON line a ``--json`` run printed last."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("{")]
    if not lines:
        raise ValueError(f"{path}: no result (did the client fail? see its error output)")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def read_timeline(path: Path) -> list[float]:
    with path.open(encoding="utf-8") as f:
        return [float(row["latency_ms"]) for row in csv.DictReader(f)]


def main(argv: list[str]) -> int:
    if not argv or len(argv) % 2:
        print("usage: python -m games.tools.loadtest.combine RESULT.json TIMELINE.csv [...]", file=sys.stderr)
        return 2
    pairs = list(zip(argv[::2], argv[1::2], strict=True))
    combined = combine([read_result(Path(r)) for r, _ in pairs], [read_timeline(Path(t)) for _, t in pairs])
    print("\n".join(combined.lines()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
