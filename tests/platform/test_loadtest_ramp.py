"""``loadtest --ramp``: matches start through the server's API, and a saturated server's
refusals are counted with its message (games/tools/loadtest/ramp.py); ``loadtest --flood``: an
anonymous client's flood is limited and refuses nobody else (games/tools/loadtest/flood.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.daphne_process import free_port, isolated_env, running_daphne, wait_http

ROOT = Path(__file__).resolve().parents[2]


def ramp_run(tmp_path: Path, ramp: float = 1.5, **server_env: str) -> dict[str, Any]:
    """A real daphne on a fresh SQLite database, and a 3-table ramp of ``ramp`` seconds against it."""
    return load_run(tmp_path, ["--tables", "3", "--ramp", str(ramp), "--warmup", "1", "--duration", "2"], **server_env)


def load_run(tmp_path: Path, client_args: list[str], **server_env: str) -> dict[str, Any]:
    """A real daphne on a fresh SQLite database, and ``manage.py loadtest`` with these options against it."""
    db = tmp_path / "ramp.sqlite3"
    env = isolated_env(db, tmp_path, CAISHEN_CLAIM_PROTECTION="pause")
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with running_daphne(env | server_env, port, tmp_path / "daphne.log") as proc:
        wait_http(f"{url}/healthz", proc, tmp_path / "daphne.log")
        done = subprocess.run(
            [
                sys.executable, "manage.py", "loadtest", *client_args, "--think", "0.2", "--json", "--url", url,
            ],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=180,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.slow
def test_a_server_with_room_starts_every_match_of_the_ramp(tmp_path: Path) -> None:
    # Room by construction: the step-latency and utilisation signs off, so that the rest of the
    # suite slowing this server's steps on a shared machine does not make it refuse (the queue
    # sign stays on).
    result = ramp_run(tmp_path, CAISHEN_OVERLOAD_STEP_MS="0", CAISHEN_OVERLOAD_BUSY="0")
    arrivals = result["arrivals"]
    assert arrivals["tables_offered"] == 3 and arrivals["tables_started"] == 3
    assert arrivals["refusals"] == 0 and arrivals["failures"] == 0
    assert result["actions"] > 0 and result["errors"] == 0


@pytest.mark.slow
def test_a_saturated_server_refuses_the_ramps_matches_with_its_message(tmp_path: Path) -> None:
    """The step-latency threshold set so low that any running table is saturation: the first
    match starts (no table runs yet: nothing to protect), and once its steps run every later
    match start is refused (503, Retry-After) and counted, with the translated message.  The
    matches arrive 2 s apart: on a busy machine the first match's first steps can take longer
    than the quick ramp's 0.5 s, and a match that arrives before then is rightly admitted."""
    result = ramp_run(tmp_path, ramp=6, CAISHEN_OVERLOAD_STEP_MS="0.001", CAISHEN_OVERLOAD_WINDOW="5")
    arrivals = result["arrivals"]
    assert 1 <= arrivals["tables_started"] < 3 and arrivals["failures"] == 0
    assert arrivals["refusals"] >= 1 and arrivals["tables_refused_at_least_once"] >= 1
    assert arrivals["tables_started"] + arrivals["tables_refused_at_least_once"] == 3
    assert arrivals["refusal_message"].startswith("The server is busy")
    assert result["actions"] > 0  # the admitted match is played


@pytest.mark.slow
def test_an_anonymous_flood_is_limited_and_refuses_nobody_else(tmp_path: Path) -> None:
    """Both phases of the flood against a real server: the flood's threads are answered 429 once
    over their bucket (mahjong_platform/heavy_read_gate.py), the other user's new tables are
    created, and the tables keep playing."""
    # The step-latency sign off, as for the server with room above: the rest of the suite slowing
    # this server's one table must not be taken for the flood's doing (the flood's own cost is
    # measured by the benchmark, docs/performance.md).
    result = load_run(
        tmp_path,
        ["--tables", "1", "--warmup", "1", "--duration", "4.5", "--flood", "2"],
        CAISHEN_OVERLOAD_STEP_MS="0",
        CAISHEN_OVERLOAD_BUSY="0",
    )
    phases = {f["phase"]: f for f in result["flood"]}
    assert set(phases) == {"replay check", "table page"}
    for name, phase in phases.items():
        # Over the bucket (bursts of 20, shared by both phases: one client) a request is held
        # until a token would be free, then answered 429: the threads are paced, not served.
        assert phase["limited_429"] > 0 and phase["requests"] - phase["limited_429"] <= 24, (name, phase)
        assert phase["flood_errors"] == 0, (name, phase)
        assert phase["victim_created"] >= 1 and phase["victim_refused_503"] == 0, (name, phase)
        assert phase["victim_other"] == 0, (name, phase)
    assert result["actions"] > 0 and result["errors"] == 0
