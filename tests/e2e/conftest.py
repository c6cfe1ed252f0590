"""Fixtures of the browser tests: one daphne for the session, one chromium for a run of tests.

A chromium and its Playwright driver cost about 1.3 CPU-seconds to start, so consecutive tests
that ask for `chromium` share one; each test gets a browser with no context left open.  The
browser is closed as soon as the next test on this worker does not ask for it: Playwright's sync
API keeps an event loop in the thread while it is open, and Django refuses ORM calls from a
thread with a running loop, so no other test ever runs beside it.
The helpers that drive the page are in tests/e2e/browser.py.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from tests.daphne_process import run_folder
from tests.e2e.browser import launch, require_browser, serve

# How long an expect() waits for the page to show what it asserts (Playwright's default: 5 s).  A
# server and browser sharing a saturated machine with the rest of the suite can take longer than
# that to answer a click; only a failure waits the whole time.
EXPECT_TIMEOUT_MS = 15_000
with contextlib.suppress(ImportError):  # without Playwright, require_browser() says what to install
    from playwright.sync_api import expect

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A daphne on a free port with its own SQLite database and a fast pace; yields its URL."""
    require_browser()
    with serve(tmp_path_factory.mktemp("e2e"), run_folder(tmp_path_factory.getbasetemp())) as base:
        yield base


class SharedBrowser:
    """The worker's open chromium, if any, with the Playwright driver that started it."""

    def __init__(self) -> None:
        self.playwright: Any = None
        self.browser: Any = None

    def get(self) -> Any:
        if self.browser is None or not self.browser.is_connected():
            self.close()
            from playwright.sync_api import sync_playwright

            self.playwright = sync_playwright().start()
            self.browser = launch(self.playwright)
        return self.browser

    def clear(self) -> None:
        """Close what the last test left open, so that each test starts from an empty browser."""
        if self.browser is not None and self.browser.is_connected():
            for context in self.browser.contexts:
                context.close()

    def close(self) -> None:
        if self.browser is not None:
            if self.browser.is_connected():
                self.browser.close()
            self.browser = None
        if self.playwright is not None:
            self.playwright.stop()
            self.playwright = None


SHARED = SharedBrowser()


@pytest.fixture
def chromium(server: str) -> Iterator[Any]:
    """Debian's chromium, headless, driven by Playwright (never `playwright install`)."""
    browser = SHARED.get()
    try:
        yield browser
    finally:
        SHARED.clear()


@pytest.hookimpl(trylast=True)  # after the test's own fixtures have closed their pages
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    if nextitem is None or "chromium" not in getattr(nextitem, "fixturenames", ()):
        SHARED.close()
