"""No string of the other language on the newcomer's path.

One walk per language: sign up, home, create a table, the table page (waiting room, then a hand
played with bots to its end), the lobby, wallet, profile, rules index, the hand's replay (from
the table page's hand list) and the tournaments index.  Every page is scanned by
tests/e2e/i18n_scan.py at a desktop's size and, after the window is resized, at a phone's (the
table page lays itself out again for it), and each page at each size is its own test, so a
failure names the page and lists every offending string.
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
LAYOUTS = {"desktop": "desktop", "phone": "portrait"}  # the table page's layout at each size
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


def walk(browser: Any, base: str, lang: str) -> tuple[dict[str, Scan], dict[str, Any]]:
    from playwright.sync_api import expect

    width, height = SIZES["desktop"]
    context = browser.new_context(viewport={"width": width, "height": height}, locale=LOCALES[lang])
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    username = f"e2e{secrets.token_hex(3)}"
    # Names are not words to translate: the player's and the bots'.  The rule sets' names are
    # (games/rules/rule_set_names.py), so an English page must show their English names.
    # "Cup" is other tests' event name: user content, not a word to translate.
    names = [username, "小明", "Bot 2", "Bot 3", "Bot 4", "Cup"]
    scans = {size: Scan(lang, names=names) for size in SIZES}
    facts: dict[str, Any] = {"errors": errors}

    def check(name: str) -> None:
        """Scan the page at each size, ending at the desktop's."""
        for size in ("phone", "desktop"):
            w, h = SIZES[size]
            page.set_viewport_size({"width": w, "height": h})
            if name.startswith("table"):  # laid out again for the new size before it is read
                expect(page.locator("#mj-app")).to_have_attribute("data-layout", LAYOUTS[size])
            else:
                page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
            scans[size].check(page, name)

    page.goto(f"{base}/accounts/signup/")
    check("signup")
    sign_up(page, base, username)
    page.goto(f"{base}/")
    check("home")
    page.goto(f"{base}/tables/new/")
    check("create")
    create_table(page, base, hands=1)
    page.locator("#mj-room").wait_for()
    check("table-waiting")
    sit_fill_and_ready(page)
    play_until_hand_end(page, mid_shot=None)
    check("table-hand-end")
    shot(page, f"scan-{lang}-hand-end.png")
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
        check(name)
    context.close()
    return scans, facts


@pytest.fixture(scope="module", params=list(LOCALES))
def walked(request: pytest.FixtureRequest, server: str) -> Iterator[tuple[dict[str, Scan], dict[str, Any]]]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            result = walk(browser, server, request.param)
        finally:
            browser.close()
    yield result


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("name", PAGES)
def test_the_page_is_all_in_its_language(walked: tuple[dict[str, Scan], dict[str, Any]], name: str, size: str) -> None:
    scans, facts = walked
    scan = scans[size]
    offenders = scan.offenders(name)
    assert offenders == [], f"{name} ({scan.lang}, {size}) shows: {offenders}\nall: {scan.report()}"
    assert facts["errors"] == []


def test_the_table_page_lists_its_finished_hand_with_its_replay(walked: tuple[dict[str, Scan], dict[str, Any]]) -> None:
    """The hand that just ended appears in the table page's list, linking its replay."""
    _scans, facts = walked
    assert facts["hand_links"] == 1
    assert re.fullmatch(r"/hands/\d+/replay/", facts["replay_href"])
