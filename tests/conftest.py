"""Shared test configuration.

pytest-django reads DJANGO_SETTINGS_MODULE from pyproject.toml; engine tests need no database and
run without one.  Keep this file small: fixtures belong next to the tests that use them.
"""

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _forget_frames() -> Iterator[None]:
    """Each test starts with no remembered frame states or history (games.frame_cache): the
    database is emptied between tests and hand ids repeat, which never happens in a deployment."""
    from games.frame_cache import HISTORY, LAST_STATES

    LAST_STATES.clear()
    HISTORY.clear()
    yield


@pytest.fixture(autouse=True)
def _calm_process() -> Iterator[None]:
    """Each test starts in a process that is not overloaded (games.overload): a socket test's
    event loop binds the real probe, and a test process runs at a full core, which the CPU sign
    reads as saturation — a state that would otherwise leak into the next tests."""
    from games import overload

    overload.MONITOR.overloaded, overload.MONITOR.since = False, None
    overload.MONITOR.lag_ms = overload.MONITOR.depth = overload.MONITOR.cpu = 0.0
    yield
