"""A step's after-commit work: registered once, run after the commit only, each part robust."""

from __future__ import annotations

import logging

import pytest
from django.db import transaction

from games.runtime.after_commit import on_commit_each

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_work_runs_in_order_after_the_commit_and_one_failure_does_not_skip_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ran: list[str] = []

    def broken() -> None:
        ran.append("broken")
        raise RuntimeError("the layer is down")

    with transaction.atomic():
        on_commit_each([lambda: ran.append("frames"), broken, lambda: ran.append("timer")])
        assert ran == []  # nothing before the commit
    assert ran == ["frames", "broken", "timer"]
    assert any(r.levelno == logging.ERROR and "after-commit work failed" in r.getMessage() for r in caplog.records)


def test_a_rolled_back_step_runs_none_of_it() -> None:
    ran: list[str] = []
    with pytest.raises(ValueError), transaction.atomic():
        on_commit_each([lambda: ran.append("frames")])
        raise ValueError("refused")
    assert ran == []
