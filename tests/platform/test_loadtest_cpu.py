"""The load benchmark meters its own servers only (games/loadtest/cpu.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from games.loadtest.cpu import backend_database, server_processes


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
    try:
        time.sleep(0.3)
        pids = {p.pid for p in procs}
        mine = {p.pid for p in server_processes(database_url=ours)} & pids
        every = {p.pid for p in server_processes()} & pids
        assert mine == {procs[0].pid}
        assert every == pids
    finally:
        for p in procs:
            p.kill()
            p.wait()
