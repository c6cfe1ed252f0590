"""No string of the other language on the newcomer's path.

One walk per language and screen size: sign up, home, create a table, the table page (waiting
room, then a hand played with bots to its end), the lobby, wallet, profile, rules index, the
hand's replay (from the table page's hand list) and the tournaments index.  Every page is
scanned by tests/e2e/i18n_scan.py and each page is its own test, so a failure names the page and
lists every offending string.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.browser import create_table, launch, play_until_hand_end, shot, sign_up, sit_fill_and_ready
from tests.e2e.i18n_scan import Scan

pytestmark = pytest.mark.e2e

SIZES = {"desktop": (1366, 768), "phone": (390, 844)}
LOCALES = {"zh": "zh-CN", "en": "en-US"}
# Every page of the newcomer's path, each its own test.
PAGES = [
    "signup",
    "home",
    "create",
    "table-waiting",
    "table-hand-end",
    "lobby",
    "wallet",
    "profile",
    "rules",
    "replay",
    "tournaments",
]


def walk(browser: Any, base: str, lang: str, size: str) -> tuple[Scan, dict[str, Any]]:
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, locale=LOCALES[lang])
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    username = f"e2e{secrets.token_hex(3)}"
    # Names are not words to translate: the player's and the bots'.  The rule sets' names are
    # (games/rules/rule_set_names.py), so an English page must show their English names.
    # "Cup" is other tests' event name: user content, not a word to translate.
    scan = Scan(lang, names=[username, "小明", "Bot 2", "Bot 3", "Bot 4", "Cup"])
    facts: dict[str, Any] = {"errors": errors}

    page.goto(f"{base}/accounts/signup/")
    scan.check(page, "signup")
    sign_up(page, base, username)
    page.goto(f"{base}/")
    scan.check(page, "home")
    page.goto(f"{base}/tables/new/")
    scan.check(page, "create")
    create_table(page, base, hands=1)
    page.locator("#mj-room").wait_for()
    scan.check(page, "table-waiting")
    sit_fill_and_ready(page)
    play_until_hand_end(page, mid_shot=None)
    scan.check(page, "table-hand-end")
    shot(page, f"scan-{lang}-{size}-hand-end.png")
    links = page.locator("#table-hand-list li a")
    links.first.wait_for()
    facts["hand_links"] = links.count()
    replay = links.first.get_attribute("href") or ""
    facts["replay_href"] = replay
    for name, path in (
        ("lobby", "/tables/"),
        ("wallet", "/accounts/wallet/"),
        ("profile", "/accounts/profile/"),
        ("rules", "/rules/"),
        ("replay", replay),
        ("tournaments", "/tournaments/"),
    ):
        page.goto(f"{base}{path}")
        scan.check(page, name)
    context.close()
    return scan, facts


@pytest.fixture(
    scope="module", params=[(lang, size) for lang in LOCALES for size in SIZES], ids=lambda p: f"{p[0]}-{p[1]}"
)
def walked(request: pytest.FixtureRequest, server: str) -> Iterator[tuple[Scan, dict[str, Any]]]:
    from playwright.sync_api import sync_playwright

    lang, size = request.param
    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            result = walk(browser, server, lang, size)
        finally:
            browser.close()
    yield result


@pytest.mark.parametrize("name", PAGES)
def test_the_page_is_all_in_its_language(walked: tuple[Scan, dict[str, Any]], name: str) -> None:
    scan, facts = walked
    assert scan.offenders(name) == [], f"{name} ({scan.lang}) shows: {scan.offenders(name)}\nall: {scan.report()}"
    assert facts["errors"] == []


def test_the_table_page_lists_its_finished_hand_with_its_replay(walked: tuple[Scan, dict[str, Any]]) -> None:
    """The hand that just ended appears in the table page's list, linking its replay."""
    _scan, facts = walked
    assert facts["hand_links"] == 1
    assert re.fullmatch(r"/hands/\d+/replay/", facts["replay_href"])
