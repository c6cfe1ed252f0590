"""Snapshots stored before the typed rule-set state still load and play on unchanged.

``snapshots/old_extra.json`` was written by the engine of commit dbe23fe, when a hand kept its
rule-set state in an untyped ``extra`` dict: two mid-hand snapshots of each rule set, the
actions that followed and the result they led to.  Live databases hold such snapshots, so
:func:`~games.engine.variants.load_hand` must read them, and the rest of the hand must end
exactly as it did then (the same itemised breakdown, the same deltas).  That engine opened a claim window only when
someone could claim, so each snapshot says ``open_empty_windows: false`` (one without the key
is a platform hand, played with claim protection on: :func:`games.engine.variants.current_snapshot`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.engine.state import Action
from games.engine.variants import all_variants, load_hand
from tests.engine.rig import matches

FIXTURE = Path(__file__).parent / "snapshots" / "old_extra.json"
CASES: list[dict[str, Any]] = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]


def test_every_rule_set_has_an_old_snapshot() -> None:
    assert {c["variant"] for c in CASES} == {v.key for v in all_variants()}


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['variant']}-{c['seed'][:8]}")
def test_old_snapshot_loads_and_ends_as_before(case: dict[str, Any]) -> None:
    hand = load_hand(case["snapshot"])
    for a in case["actions"]:
        hand.apply(Action.from_json(a))
    assert hand.ended
    assert hand.result is not None
    # The result then had fewer fields (no win_tile; breakdown lines without code/unit/params):
    # every field it had must be what it was, line for line.
    assert matches(case["result"], hand.result.to_json())


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['variant']}-{c['seed'][:8]}")
def test_old_snapshot_round_trips(case: dict[str, Any]) -> None:
    """Loaded and saved again, then loaded once more, the hand plays to the same end."""
    again = load_hand(json.loads(json.dumps(load_hand(case["snapshot"]).to_json())))
    for a in case["actions"]:
        again.apply(Action.from_json(a))
    assert again.result is not None
    assert matches(case["result"], again.result.to_json())


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['variant']}-{c['seed'][:8]}")
def test_old_extra_becomes_the_typed_state(case: dict[str, Any]) -> None:
    """Every value the old ``extra`` held is the same-named field of the rule set's state, and
    a snapshot written now keeps it under ``state`` only."""
    hand = load_hand(case["snapshot"])
    assert type(hand.state) is hand.variant.state_type
    saved = hand.to_json()
    assert "extra" not in saved
    old = case["snapshot"]["extra"]
    assert {k: saved["state"][k] for k in old} == old
    assert hand.wild_set == frozenset(old.get("wilds", ()))


def test_an_unknown_state_field_is_refused() -> None:
    snapshot = json.loads(json.dumps(CASES[0]["snapshot"]))
    snapshot["extra"]["no_such_field"] = 1
    with pytest.raises(ValueError, match="no_such_field"):
        load_hand(snapshot)
