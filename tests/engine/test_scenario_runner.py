"""The scenario runner CONTRACT (spec/DESIGN.md §3) and the golden scenarios (spec/scenarios)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.engine.variants import all_variants
from tests.engine.rig import SCENARIOS, act, fill_hands, matches

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = sorted(SCENARIOS.glob("*.json"))
KNOWN = {v.key for v in all_variants()}
KEYS = {"status", "winner", "from", "self_drawn", "deltas", "wall_left", "breakdown", "error"}


def run_cli(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games.engine.scenario", str(path)], capture_output=True, text=True, cwd=ROOT, timeout=60
    )


def test_every_registered_rule_set_has_a_golden_scenario() -> None:
    # The goldens are read from spec/scenarios only; an empty or misplaced folder must not pass.
    assert {json.loads(p.read_text(encoding="utf-8"))["variant"] for p in GOLDEN} >= KNOWN


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_scenario(path: Path, tmp_path: Path) -> None:
    sc = json.loads(path.read_text(encoding="utf-8"))
    assert sc["variant"] in KNOWN, f"{path.name}: no rule set {sc['variant']!r} in the engine"
    want = sc.pop("expect")
    src = tmp_path / "sc.json"
    src.write_text(json.dumps(sc, ensure_ascii=False), encoding="utf-8")
    proc = run_cli(src)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert set(got) == KEYS
    assert matches(want, got), f"expected {want}\n     got {got}"
    assert sum(got["deltas"].values()) == 0


def write(tmp_path: Path, sc: Any) -> Path:
    p = tmp_path / "sc.json"
    p.write_text(json.dumps(sc, ensure_ascii=False) if not isinstance(sc, str) else sc, encoding="utf-8")
    return p


BASE = {
    "variant": "zhejiang_caishen",
    "flipped": "1p",
    "hands": fill_hands({"E": "1m 3m 5m 7m 9m 2p 4p 6p 8p 1s 3s E S P"}, flipped="1p"),
}


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        ("{not json", "not valid JSON"),
        ({**BASE, "variant": "nope"}, "unknown variant"),
        ({**BASE, "hands": {"E": "1m"}}, "hands"),
        ({**BASE, "hands": {**BASE["hands"], "E": "1m 2x"}}, "unexpected character"),
        ({**BASE, "flipped": None}, "flipped"),
        ({**BASE, "options": {"bogus": True}}, "unknown option"),
        ({**BASE, "hands": {**BASE["hands"], "S": "1m 1m 1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 9m"}}, "more 1m"),
        ({**BASE, "actions": [{"seat": "X", "do": "discard"}]}, "seat"),
        ({**BASE, "then": "later"}, "then"),
        ({**BASE, "surprise": 1}, "unknown key"),
    ],
)
def test_malformed_scenario_exits_2_with_one_line(tmp_path: Path, scenario: Any, message: str) -> None:
    proc = run_cli(write(tmp_path, scenario))
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr


def test_illegal_action_reports_index_and_reason(tmp_path: Path) -> None:
    hands = fill_hands({"E": "123m 456m 789p 234s 5s F"}, flipped="1p")
    sc = {
        **BASE,
        "hands": hands,
        "actions": [act("E", "discard", "F"), act("E", "discard", "5s"), act("S", "discard", "1m")],
    }
    proc = run_cli(write(tmp_path, sc))
    assert proc.returncode == 0
    got = json.loads(proc.stdout)
    assert got["status"] == "illegal"
    assert got["error"]["index"] == 1
    assert "turn" in got["error"]["reason"]
    assert got["deltas"] == {"E": 0, "S": 0, "W": 0, "N": 0}


def test_in_progress_keeps_every_key(tmp_path: Path) -> None:
    proc = run_cli(write(tmp_path, {**BASE, "actions": [act("E", "discard", "P")]}))
    got = json.loads(proc.stdout)
    assert set(got) == KEYS
    assert got["status"] == "in_progress" and got["winner"] is None and got["from"] is None
    assert got["wall_left"] == 82


def test_pass_from_a_seat_with_nothing_changes_nothing(tmp_path: Path) -> None:
    plain = json.loads(run_cli(write(tmp_path, {**BASE, "actions": [act("E", "discard", "P")]})).stdout)
    passed = json.loads(
        run_cli(write(tmp_path, {**BASE, "actions": [act("E", "discard", "P"), act("N", "pass")]})).stdout
    )
    assert passed == plain


def test_autoplay_ends_the_hand(tmp_path: Path) -> None:
    got = json.loads(run_cli(write(tmp_path, {**BASE, "then": "autoplay"})).stdout)
    assert got["status"] == "draw" and got["wall_left"] == 0
