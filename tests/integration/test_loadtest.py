"""The load benchmark: its measuring parts, and a short run against the real scaled topology."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from games.tools.loadtest.client import Stats, choose, percentile
from games.tools.loadtest.cpu import CpuMeter, Proc, cpu_seconds, main_thread_seconds

ROOT = Path(__file__).resolve().parents[2]


def test_latency_counts_only_when_all_four_seats_have_the_frame() -> None:
    stats = Stats(measure_from=0.0, measure_to=100.0)
    stats.acted(hand=1, seq=5, t0=10.0)
    for now in (10.01, 10.02, 10.03):
        stats.arrived(1, 6, now)
    assert stats.latencies == []
    stats.arrived(1, 6, 10.05)
    assert stats.latencies == [pytest.approx(0.05)]
    stats.arrived(1, 6, 10.06)  # a fifth frame (a second socket) changes nothing
    assert len(stats.latencies) == 1


def test_percentiles_and_choices() -> None:
    assert percentile([0.01 * i for i in range(1, 101)], 50) == pytest.approx(0.5, abs=0.011)
    assert percentile([0.01 * i for i in range(1, 101)], 99) == pytest.approx(0.99, abs=0.011)
    legal = [{"seat": "E", "do": "discard", "tile": "5m"}, {"seat": "E", "do": "win"}]
    assert choose(legal) == {"do": "win"}
    assert choose(legal[:1]) == {"do": "discard", "tile": "5m"}


def spin(cpu_seconds_wanted: float) -> None:
    """Burn this thread's CPU (thread time, not wall time: a loaded machine only makes it longer)."""
    start = time.thread_time()
    while time.thread_time() - start < cpu_seconds_wanted:
        pass


def test_the_cpu_meter_tells_the_event_loop_thread_from_the_others() -> None:
    pid = os.getpid()
    meter = CpuMeter([Proc(pid, "daphne")])
    meter.start()
    main_before, all_before = main_thread_seconds(pid), cpu_seconds(pid)
    worker = threading.Thread(target=spin, args=(0.4,))
    worker.start()
    worker.join()  # the main thread waits: no CPU of its own meanwhile
    main_mid, all_mid = main_thread_seconds(pid), cpu_seconds(pid)
    assert all_mid - all_before >= 0.3 and main_mid - main_before < 0.15
    spin(0.4)  # now the main thread itself
    assert main_thread_seconds(pid) - main_mid >= 0.3
    meter.stop()
    report = meter.report(1.0)
    assert 30 <= report["daphne_loop"] < report["daphne"] == report["server_total"]
    assert main_thread_seconds(2**22 + 7) == 0.0  # a process that is gone (pid above pid_max)


def test_the_load_test_talks_only_to_this_machine() -> None:
    with pytest.raises(CommandError, match="only talks to this machine"):
        call_command("loadtest", "--tables", "1", "--url", "http://example.com:8000")


@pytest.mark.integration
def test_a_short_load_run_against_the_scaled_topology(topology: Any) -> None:
    done = subprocess.run(
        [
            sys.executable, "manage.py", "loadtest", "--tables", "2", "--duration", "4", "--warmup", "1",
            "--think", "0.2", "--json", "--url", topology.url("web1"), "--url", topology.url("web2"),
        ],
        cwd=ROOT,
        env=topology.env,
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["actions"] > 0 and result["errors"] == 0 and result["gaps"] == 0
    assert result["p50_ms"] > 0 and "daphne" in result["cpu_percent"] and "celery" in result["cpu_percent"]
    # It stopped its matches: no deadline of its tables is left for the timers.
    left = topology.manage(
        "import json; from games.models import Hand, Table; "
        "t = Table.objects.filter(owner__username__startswith='lt'); "
        "print('RESULT ' + json.dumps([t.exclude(status='aborted').count(), "
        "Hand.objects.filter(table__in=t, deadline_at__isnull=False).count()]))"
    )
    assert left == [0, 0]


@pytest.mark.integration
def test_rabbitmq_answers_as_a_celery_broker(rabbitmq_up: str) -> None:
    from kombu import Connection

    with Connection(rabbitmq_up, connect_timeout=5) as conn:
        conn.ensure_connection(max_retries=2)
        with conn.SimpleQueue("caishen-integration-probe") as queue:
            queue.put({"ping": 1})
            message = queue.get(timeout=5)
            message.ack()
            assert message.payload == {"ping": 1}
