"""Shared test configuration.

pytest-django reads DJANGO_SETTINGS_MODULE from pyproject.toml; engine tests need no database and
run without one.  Keep this file small: fixtures belong next to the tests that use them.
"""

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _fresh_process() -> Iterator[None]:
    """Each test starts in a fresh process (games.runtime.process): no remembered frames, engines,
    views or names — the database is emptied between tests and hand ids repeat, which never
    happens in a deployment — and not overloaded, serving no table (a socket test's event loop
    binds the real probe, and its table steps, slow on a busy test machine, would otherwise leak
    into the next tests)."""
    from games.runtime.process import runtime

    runtime().reset()
    yield
