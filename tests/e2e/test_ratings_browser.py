"""Ratings in a real browser: the leaderboard, the player's page with its rating history graph
and statistics, in both languages at desktop and phone sizes.

Playwright drives Debian's chromium (never a downloaded browser) against pytest-django's live
server; the matches are played through the real services first (tests/platform/rating_helpers.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.browser import CHROMIUM, require_browser
from tests.e2e.test_replay_browser import ARGS, ARTIFACTS
from tests.platform.rating_helpers import golden_match, heaven_match, users

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SIZES = {"desktop": (1366, 768), "phone": (390, 844), "phone-landscape": (844, 390)}
LANGS = {
    "zh": ("zh-CN", {"board": "排行榜", "stats": "已打局数", "axis": "评级对局"}),
    "en": ("en-US", {"board": "Leaderboard", "stats": "Hands played", "axis": "Rated matches"}),
}


@pytest.fixture
def played(settings: Any) -> list[Any]:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_CLAIM_PROTECTION = "pause"
    people = users("br")
    golden_match(people)
    heaven_match(people)
    return people


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES)
def test_leaderboard_and_players_page(
    live_server: Any, played: list[Any], monkeypatch: Any, lang: str, size: str
) -> None:
    require_browser()
    locale, words = LANGS[lang]
    width, height = SIZES[size]
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        # The header links the leaderboards (the first rule set's opens); a tab opens another's.
        page.goto(f"{live_server.url}/")
        page.click("header a[href='/ratings/']")
        page.wait_for_url("**/ratings/dongbei/")
        assert page.locator("#leaderboard tr[data-player]").count() == 0
        page.click(".rule-set-tabs a[href='/ratings/zhejiang_caishen/']")
        page.wait_for_url("**/ratings/zhejiang_caishen/")
        board = page.locator("#leaderboard")
        assert words["board"] in board.locator("h1").inner_text()
        rows = board.locator("tr[data-player]")
        assert rows.count() == 4
        # South won the first match and lost least in the second: top; North and West last.
        assert rows.first.get_attribute("data-player") == played[1].username
        assert {rows.nth(i).get_attribute("data-player") for i in (2, 3)} == {played[2].username, played[3].username}
        assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
        page.screenshot(path=str(ARTIFACTS / f"ratings-board-{lang}-{size}.png"), full_page=True)
        # The player's page: the graph with its axes, the statistics.
        board.locator(f"tr[data-player='{played[0].username}'] a").click()
        chart = page.locator("#rating-panels svg.rating-chart")
        chart.wait_for()
        assert chart.get_attribute("data-points") == "3"
        assert words["axis"] in chart.locator(".x-title").text_content()
        box = chart.bounding_box()
        assert box is not None and 0 < box["width"] <= width and box["height"] > 50
        stats = page.locator("#player-stats")
        assert words["stats"] in stats.inner_text()
        assert stats.locator("[data-stat=hands] dd").inner_text() == "2"
        assert stats.locator(".biggest-hands a.replay-link").count() == 1
        assert stats.locator("[data-special='天和']").count() == 1
        assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
        page.screenshot(path=str(ARTIFACTS / f"ratings-player-{lang}-{size}.png"), full_page=True)
        browser.close()
    assert not errors, errors
