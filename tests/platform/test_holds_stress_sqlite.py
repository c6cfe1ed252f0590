"""Readying at many tables at once on SQLite, the embedded mode's database.

The same script and checks as tests/integration/test_holds_stress.py (PostgreSQL), against a
fresh SQLite file in WAL mode, where ``BEGIN IMMEDIATE`` serialises the writers.  Smaller.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_holds_stress import check_holds, run_holds_stress


@pytest.mark.slow
def test_concurrent_readying_across_tables_never_overcommits_on_sqlite(tmp_path: Path) -> None:
    result = run_holds_stress(f"sqlite:///{tmp_path / 'holds.sqlite3'}", tmp_path, shared=2, tables=6, threads=6)
    assert result["vendor"] == "sqlite"
    check_holds(result)
