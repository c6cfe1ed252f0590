"""The load benchmark meters its own servers only (games/tools/loadtest/cpu.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from games.tools.loadtest.cpu import CpuMeter, Proc, backend_database, server_processes
from tests.polling import wait_until


def test_a_backend_title_names_its_database() -> None:
    assert backend_database("postgres: 15/main: postgres caishen_load 127.0.0.1(50312) idle") == "caishen_load"
    assert backend_database("postgres: app shop [local] idle in transaction") == "shop"
    assert backend_database("postgres: 15/main: checkpointer") is None
    assert backend_database("postgres: walwriter") is None


def test_only_the_servers_of_this_database_are_metered() -> None:
    """Two stand-ins for daphne processes of this project (their command lines carry the markers)
    with different DATABASE_URLs: with a database given, only that one's process counts; without,
    both (the old behaviour, which metered other people's servers on the machine too)."""
    ours, theirs = "sqlite:////tmp/ours-meter.sqlite3", "sqlite:////tmp/theirs-meter.sqlite3"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(30)", "daphne", "mahjong_platform.asgi:application"],
            env={**os.environ, "DATABASE_URL": url},
        )
        for url in (ours, theirs)
    ]
    pids = {p.pid for p in procs}
    try:
        wait_until(lambda: {p.pid for p in server_processes()} & pids == pids)  # both have started
        mine = {p.pid for p in server_processes(database_url=ours)} & pids
        every = {p.pid for p in server_processes()} & pids
        assert mine == {procs[0].pid}
        assert every == pids
    finally:
        for p in procs:
            p.kill()
            p.wait()


def test_a_process_that_appears_during_the_run_is_counted() -> None:
    """The meter reads the list again at stop: a server (or a PostgreSQL backend) started after
    the start counts with all its time."""
    spinner: list[subprocess.Popen[str]] = []

    def scan() -> list[Proc]:
        return [Proc(p.pid, "daphne") for p in spinner]

    meter = CpuMeter(scan(), rescan=scan)
    meter.start()
    # It burns 0.4 s of CPU (its own clock, not the wall's: on a busy machine the wall runs
    # ahead), says so, and waits to be stopped, still counted.
    burn = "import sys, time\nwhile time.process_time() < 0.4: pass\nprint('burnt', flush=True)\ntime.sleep(30)"
    spinner.append(subprocess.Popen([sys.executable, "-c", burn], stdout=subprocess.PIPE, text=True))
    try:
        assert spinner[0].stdout is not None and spinner[0].stdout.readline() == "burnt\n"
        meter.stop()
    finally:
        spinner[0].kill()
        spinner[0].wait(timeout=10)
    assert meter.report(1.0)["daphne"] > 30  # 0.4 s of a core over the second (the kernel counts in ticks)
