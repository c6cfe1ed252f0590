"""mahjong_platform.gc_tuning: what the server processes set up for the garbage collector.

Each case runs in a fresh interpreter: the collector's state is process-wide and this test
process must keep its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import gc, json, sys
before = gc.get_threshold()
{setup}
print(json.dumps({{"before": before, "after": gc.get_threshold(), "frozen": gc.get_freeze_count()}}))
"""


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter, the collector variables only those given."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("CAISHEN_GC_")} | env
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120
    )


def probe(setup: str, **env: str) -> dict[str, object]:
    done = run_python(PROBE.format(setup=setup), **env)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_by_default_the_start_up_heap_is_frozen_and_the_young_threshold_raised() -> None:
    got = probe("from mahjong_platform.gc_tuning import tune_for_latency; tune_for_latency()")
    assert got["before"] == [700, 10, 10]  # CPython's, so the change below is the module's doing
    assert got["after"] == [20_000, 50, 10]
    assert isinstance(got["frozen"], int) and got["frozen"] > 1000  # modules, classes, functions


def test_the_environment_sets_the_thresholds_or_keeps_cpythons_and_can_skip_the_freeze() -> None:
    tune = "from mahjong_platform.gc_tuning import tune_for_latency; tune_for_latency()"
    assert probe(tune, CAISHEN_GC_THRESHOLD="5000, 20, 5")["after"] == [5000, 20, 5]
    kept = probe(tune, CAISHEN_GC_THRESHOLD="default", CAISHEN_GC_FREEZE="0")
    assert kept["after"] == [700, 10, 10]
    assert kept["frozen"] == 0


@pytest.mark.parametrize("value", ["0,10,10", "700,10", "a,b,c", "-1,10,10", "700;10;10"])
def test_a_malformed_threshold_is_refused_at_start_up(value: str) -> None:
    done = run_python(
        "from mahjong_platform.gc_tuning import tune_for_latency; tune_for_latency()", CAISHEN_GC_THRESHOLD=value
    )
    assert done.returncode != 0
    assert "CAISHEN_GC_THRESHOLD" in done.stderr


@pytest.mark.slow
def test_the_asgi_application_applies_it_when_daphne_loads_it() -> None:
    got = probe(
        "import os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'mahjong_platform.settings')\n"
        "import mahjong_platform.asgi",
        DATABASE_URL="sqlite:///:memory:",
    )
    assert got["after"] == [20_000, 50, 10]
    assert isinstance(got["frozen"], int) and got["frozen"] > 10_000  # Django, Channels, the apps
