"""After a restart, in-process timers run before any request.

Were they bound to daphne's event loop by the first request, a bots-only hand would stay frozen
after a restart (its deadline long overdue) until something asked for /healthz.  This starts a real
daphne on a database holding a running bots-only hand and never sends it a request: the hand
must move on by itself.
"""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.daphne_process import free_port, isolated_env, running_daphne

ROOT = Path(__file__).resolve().parents[2]

SETUP = """
from django.contrib.auth import get_user_model
from games import services
from games.models import Hand
owner = get_user_model().objects.create_user("restart-owner", password="pw-123456")
table = services.create_table(owner, "zhejiang_caishen", {}, stake=1, hands_total=8)
services.add_bots(table.pk, owner)  # four ready bots: the match starts; the first move is due
hand = Hand.objects.get(table=table)
print("RESULT", hand.pk, hand.seq)
"""


def listening(port: int) -> bool:
    """A bare TCP connect: daphne's HTTP protocol sees no request, so no ASGI call is made."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@pytest.mark.slow
def test_a_bots_table_moves_on_after_a_restart_without_any_request(tmp_path: Path) -> None:
    db = tmp_path / "restart.sqlite3"
    env = isolated_env(
        db,
        tmp_path,
        CAISHEN_TIMERS="inprocess",
        CAISHEN_SWEEP_SECONDS="0.5",
        CAISHEN_BOT_DELAY="0.05",
        CAISHEN_BETWEEN_HANDS_SECONDS="0.2",
    )
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True, timeout=180)
    done = subprocess.run(
        [python, "manage.py", "shell", "-c", SETUP], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr
    hand_id, seq = done.stdout.split("RESULT", 1)[1].split()
    time.sleep(0.5)  # the first bot's deadline passes while no server runs (as across a restart)

    port = free_port()
    log = tmp_path / "daphne.log"
    with running_daphne(env, port, log) as proc:
        deadline = time.monotonic() + 60
        while not listening(port):
            assert proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, "daphne did not start"
            time.sleep(0.2)
        moved = None
        end = time.monotonic() + 20
        while time.monotonic() < end:
            with sqlite3.connect(db, timeout=5) as conn:
                row = conn.execute("SELECT seq FROM games_hand WHERE id = ?", (int(hand_id),)).fetchone()
            if row[0] > int(seq):
                moved = row[0]
                break
            time.sleep(0.3)
        assert moved is not None, f"the hand stayed at seq {seq} with no request made:\n{log.read_text()[-3000:]}"
