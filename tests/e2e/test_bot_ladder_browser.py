"""A solo newcomer's progress in a real browser: sign up, play one hand against three bots by
clicking, open one's own page: the vs-bots ladder shows the match, and the vs-bots leaderboard
lists the player, in both languages (a daphne of its own: tests/e2e/conftest.py)."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from tests.e2e.browser import ARTIFACTS, create_table, new_page, play_until_hand_end, sign_up, sit_fill_and_ready

pytestmark = pytest.mark.e2e

LANGS = {
    "zh": ("zh-CN", ("人机对战", "人机等级分", "1 场对局")),
    "en": ("en-US", ("Against bots", "Rating against bots", "1 match")),
}


@pytest.mark.parametrize("lang", LANGS)
def test_a_newcomers_page_shows_their_first_match_against_bots(server: str, chromium: Any, lang: str) -> None:
    """Sign up, play one hand against three bots by clicking, open one's own page: the vs-bots
    ladder shows the match; the vs-bots leaderboard lists the player."""
    from playwright.sync_api import expect

    locale, words = LANGS[lang]
    errors: list[str] = []
    page = new_page(chromium, errors, lang=locale)
    username = f"solo{lang}{secrets.token_hex(2)}"
    sign_up(page, server, username)
    create_table(page, server, "zhejiang_caishen", hands=1)
    sit_fill_and_ready(page)
    play_until_hand_end(page, mid_shot=None)
    page.goto(f"{server}/ratings/players/{username}/")
    panel = page.locator("#bot-ladder-panels .bot-ladder-panel[data-variant=zhejiang_caishen]")
    for _ in range(50):  # the match is booked as its last hand ends: a moment at most
        if panel.count():
            break
        page.wait_for_timeout(200)
        page.reload()
    expect(panel).to_be_visible()
    assert words[0] in page.locator("#player-page").inner_text()
    text = panel.inner_text()
    assert words[1] in text and words[2] in text and panel.locator(".last-result").count() == 1
    page.screenshot(path=str(ARTIFACTS / f"bot-ladder-player-{lang}.png"), full_page=True)
    panel.locator("a").click()
    page.wait_for_url("**/ratings/zhejiang_caishen/vs-bots/")
    expect(page.locator(f"#bot-leaderboard tr[data-player='{username}']")).to_have_count(1)
    assert not errors, errors
