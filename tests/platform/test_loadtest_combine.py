"""Several load clients' results as one (games/tools/loadtest/combine.py): actions and steps add
up, the latency percentiles are over every client's actions together, and the servers' CPU (which
each client meters alike) is charged to all the steps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.tools.loadtest.combine import combine, main


def result(actions: int, steps: int, server: float, client: float) -> dict[str, Any]:
    return {
        "seconds": 30.0,
        "actions": actions,
        "steps": steps,
        "errors": 0,
        "cpu_percent": {"server_total": server, "postgres": 10.0, "redis": 2.0, "client": client, "machine": 50.0},
    }


def test_two_clients_add_up_and_share_the_servers_cpu() -> None:
    fast = [float(ms) for ms in range(1, 101)]  # 1..100 ms
    slow = [1000.0] * 10
    c = combine([result(100, 300, 60.0, 20.0), result(10, 30, 62.0, 70.0)], [fast, slow])
    assert (c.clients, c.actions, c.steps) == (2, 110, 330)
    assert c.percentile(50) == pytest.approx(56.0)  # over the 110 latencies together
    assert c.percentile(99) == 1000.0  # the slow client's tail is not averaged away
    assert c.server_cpu == pytest.approx(61.0) and c.busiest_client_cpu == 70.0
    lines = "\n".join(c.lines())
    # 61 % of a core for 30 s over 330 steps: 10 × 61 × 30 / 330 ms a step.
    assert f"{10 * 61 * 30 / 330:.3f} ms per applied step" in lines
    assert f"({10 * 73 * 30 / 330:.3f} with PostgreSQL and Redis)" in lines
    assert "applied steps  11.0/s" in lines and "p99 1000.0 ms" in lines


def test_the_command_reads_the_files_the_clients_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = []
    for i, (actions, latency) in enumerate([(2, 5.0), (3, 7.0)]):
        out, timeline = tmp_path / f"c{i}.json", tmp_path / f"c{i}.csv"
        out.write_text("preparing ...\n" + json.dumps(result(actions, 2 * actions, 40.0, 5.0)) + "\n")
        timeline.write_text("seconds,latency_ms\n" + "".join(f"{s}.0,{latency}\n" for s in range(actions)))
        files += [str(out), str(timeline)]
    assert main(files) == 0
    printed = capsys.readouterr().out
    assert "clients 2 over 30.0 s" in printed and "(5 actions measured" in printed and "p50 7.0 ms" in printed
    assert main(files[:3]) == 2  # a result without its timeline
