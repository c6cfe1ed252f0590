"""Concurrent settlement on SQLite, the embedded mode's database.

The same script and checks as tests/integration/test_settlement_stress.py (PostgreSQL), against
a fresh SQLite file in WAL mode: there ``BEGIN IMMEDIATE`` (not row locks) serialises the
writers, and the same invariants must hold.  Smaller, to keep the suite quick.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_settlement_stress import check, run_stress


@pytest.mark.slow
def test_concurrent_settlements_on_sqlite_keep_the_ledger_straight(tmp_path: Path) -> None:
    result = run_stress(f"sqlite:///{tmp_path / 'stress.sqlite3'}", tmp_path, hands=16, direct=8, threads=6)
    assert result["vendor"] == "sqlite"
    check(result)
