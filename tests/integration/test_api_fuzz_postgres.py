"""The REST API fuzz (tests/platform/test_api_schemathesis.py) once more on PostgreSQL, every
request's transaction committed (CAISHEN_FUZZ_COMMITS=1): what runs on commit runs, and the
database is the scaled mode's.  Its budget is the module's: schemathesis's coverage cases plus 8
generated cases per operation and generation mode (CAISHEN_FUZZ_EXAMPLES), and 10 stateful
scenarios of 4 steps (CAISHEN_FUZZ_SCENARIOS)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import fresh_database

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.integration, pytest.mark.slow]
FUZZ = "tests/platform/test_api_schemathesis.py"


def test_the_api_fuzz_passes_on_postgresql_with_every_request_committed(services_up: None, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DATABASE_URL"))}
    with fresh_database() as url:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-n", "0", "-p", "no:cacheprovider", "--basetemp", str(tmp_path), FUZZ],
            cwd=ROOT,
            env={**env, "DATABASE_URL": url, "CAISHEN_FUZZ_COMMITS": "1"},
            capture_output=True,
            text=True,
            timeout=280,
        )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert re.search(r"\b3 passed\b", done.stdout), done.stdout[-2000:]
