"""Shared test configuration.

pytest-django reads DJANGO_SETTINGS_MODULE from pyproject.toml; engine tests need no database and
run without one.  Keep this file small: fixtures belong next to the tests that use them.
"""

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _forget_frames() -> Iterator[None]:
    """Each test starts with no remembered frame states or history (games.wire.frame_cache): the
    database is emptied between tests and hand ids repeat, which never happens in a deployment."""
    from games.wire.frame_cache import HISTORY, LAST_STATES

    LAST_STATES.clear()
    HISTORY.clear()
    yield


@pytest.fixture(autouse=True)
def _calm_process() -> Iterator[None]:
    """Each test starts in a process that is not overloaded and serves no table (games.services.overload):
    a socket test's event loop binds the real probe, and its table steps — slow on a busy test
    machine — would otherwise leak into the next tests."""
    from games.services import overload

    monitor = overload.MONITOR
    monitor.overloaded, monitor.since, monitor.running = False, None, False
    monitor.step_ms = monitor.lag_ms = monitor.cpu = 0.0
    monitor.depth = 0
    monitor.steps.clear()
    yield
