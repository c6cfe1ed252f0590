"""Fixtures of the browser tests: one daphne for the session, a chromium per test.

Playwright's sync API keeps an event loop in the thread while it is open, and Django refuses
ORM calls from a thread with a running loop: so the browser never outlives its test.
The helpers that drive the page are in tests/e2e/browser.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.browser import launch, require_browser, serve


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A daphne on a free port with its own SQLite database and a fast pace; yields its URL."""
    require_browser()
    with serve(tmp_path_factory.mktemp("e2e")) as base:
        yield base


@pytest.fixture
def chromium(server: str) -> Iterator[Any]:
    """Debian's chromium, headless, driven by Playwright (never `playwright install`)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            yield browser
        finally:
            browser.close()
