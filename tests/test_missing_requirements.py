"""A run without the browser or the services fails, saying what to install or start; it skips
them only when the runner asks for it (README.md, "Test it")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests import node_runtime
from tests.e2e import browser
from tests.integration import conftest as integration


@pytest.fixture
def no_chromium(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(browser, "CHROMIUM", str(tmp_path / "chromium"))


def test_a_missing_chromium_fails_the_browser_tests_naming_the_package(
    no_chromium: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CAISHEN_SKIP_BROWSER", raising=False)
    with pytest.raises(pytest.fail.Exception, match=r"apt-get install chromium fonts-noto-cjk.*CAISHEN_SKIP_BROWSER=1"):
        browser.require_browser()


def test_a_missing_playwright_fails_the_browser_tests_naming_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CAISHEN_SKIP_BROWSER", raising=False)
    monkeypatch.setattr(browser, "CHROMIUM", sys.executable)  # a file that exists
    monkeypatch.setitem(sys.modules, "playwright.sync_api", None)  # import raises ImportError
    with pytest.raises(pytest.fail.Exception, match=r"Playwright is not installed: .*pip install -e '\.\[dev\]'"):
        browser.require_browser()


@pytest.mark.parametrize("value", ["", "0", "true", "yes"])
def test_only_caishen_skip_browser_1_skips_them(no_chromium: None, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CAISHEN_SKIP_BROWSER", value)
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.fail.Exception):
        browser.require_browser()
    monkeypatch.setenv("CAISHEN_SKIP_BROWSER", "1")
    with pytest.raises(pytest.skip.Exception, match="is missing"):
        browser.require_browser()


def test_a_service_down_fails_the_integration_tests_unless_asked_to_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CAISHEN_SKIP_SERVICES", raising=False)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.fail.Exception, match=r"scripts/services\.sh starts it.*CAISHEN_SKIP_SERVICES=1"):
        integration._unavailable("Redis")
    monkeypatch.setenv("CAISHEN_SKIP_SERVICES", "1")
    with pytest.raises(pytest.skip.Exception, match="Redis does not answer"):
        integration._unavailable("Redis")


def test_a_missing_node_fails_the_javascript_word_tests_unless_asked_to_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(node_runtime.shutil, "which", lambda name: None)
    monkeypatch.delenv("CAISHEN_SKIP_BROWSER", raising=False)
    with pytest.raises(pytest.fail.Exception, match=r"apt-get install nodejs.*CAISHEN_SKIP_BROWSER=1"):
        node_runtime.require_node()
    monkeypatch.setenv("CAISHEN_SKIP_BROWSER", "1")
    with pytest.raises(pytest.skip.Exception, match="node is not installed"):
        node_runtime.require_node()
