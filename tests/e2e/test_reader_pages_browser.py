"""The replay viewer and the tournament pages in the reader's language, in a real browser.

A finished bot hand's replay and a tournament's list and page are opened in Chinese and in
English, at desktop and phone sizes.  Neither shows a raw key (``hand_end``, ``zhejiang_caishen``)
or an English status word on the Chinese page; the replay's last step marks the winning tile
and draws its breakdown lines in words.  Tiles drawn as tiles are left out of the text checked.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.models import Hand
from tests.e2e.browser import launch, require_browser, shot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SIZES = {"desktop": (1366, 768), "phone": (390, 844)}
LANGS = {"zh": "zh-CN", "en": "en-US"}
RAW = re.compile(r"hand_end|zhejiang_caishen|exhaustive_draw|self_draw|\bwall \d")
CJK = re.compile(r"[\u3400-\u9fff]")
STATUS_WORDS = re.compile(r"\b(draft|registration|closed|running|finished|waiting|playing|registered)\b")
# The text of an element without its tiles (a tile's face is drawn, its SVG text is not prose).
TEXT = """(sel) => { const el = document.querySelector(sel); if (!el) return "";
  const copy = el.cloneNode(true); copy.querySelectorAll(".tile, code, select").forEach((t) => t.remove());
  return copy.textContent; }"""


def open_page(pw: Any, lang: str, size: str) -> tuple[Any, Any, list[str]]:
    browser = launch(pw)
    width, height = SIZES[size]
    page = browser.new_context(viewport={"width": width, "height": height}, locale=LANGS[lang]).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(30_000)  # a loaded CI machine: the replay builds every step first
    return browser, page, errors


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", list(LANGS))
def test_replay_viewer_speaks_the_readers_language(
    live_server: Any, settings: Any, monkeypatch: Any, lang: str, size: str
) -> None:
    require_browser()
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_CLAIM_PROTECTION = "pause"
    owner = get_user_model().objects.create_user(f"rp-{lang}-{size}", password="pw-123456")
    table = services.create_table(owner, "zhejiang_caishen", {}, hands_total=1)
    services.add_bots(table.pk, owner)
    row = Hand.objects.get(table=table)
    assert row.status == Hand.FINISHED
    result = row.result
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser, page, errors = open_page(pw, lang, size)
        page.goto(f"{live_server.url}/hands/{row.pk}/replay/")
        page.locator("#rp-step").wait_for()
        for step in (None, "forward", "forward", "last"):
            if step:
                page.click(f"#rp-{step}")
            # The rule set's name is in the reader's language too (games/rules/rule_set_names.py).
            text = page.evaluate(TEXT, "#replay-app")
            assert not RAW.search(text), RAW.search(text)
            if lang == "en":
                assert not CJK.search(text), CJK.findall(text)[:5]
            else:
                assert not re.search(r"\b(wall|wins|draw|discards|hand)\b", text), text[:300]
        # The last step: the hand over in words, the breakdown drawn, the winning tile marked.
        assert page.locator("#rp-events li[data-kind=hand_end]").count() == 1
        assert page.locator(".rp-breakdown tbody tr").count() >= 1
        if result["status"] == "win" and result.get("win_tile"):
            marked = page.locator(f".rp-seat[data-seat={result['winner']}] .tile.win-tile")
            assert marked.count() == 1 and marked.get_attribute("data-tile") == result["win_tile"]
        info = page.evaluate(TEXT, "#rp-info")
        assert ("tiles left" in info) if lang == "en" else ("余" in info), info
        shot(page, f"e2e-replay-{lang}-{size}.png")
        browser.close()
    assert not errors, errors


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", list(LANGS))
def test_tournament_pages_name_rule_sets_and_statuses_in_words(
    live_server: Any, monkeypatch: Any, lang: str, size: str
) -> None:
    require_browser()
    from tournaments import services as events

    organiser = get_user_model().objects.create_user(f"org-{lang}-{size}", password="pw-123456")
    cup = events.create_tournament(organiser, "Cup", "zhejiang_caishen", {}, rounds=1, hands_per_round=1)
    events.open_registration(cup.pk, organiser)
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser, page, errors = open_page(pw, lang, size)
        for path in ("/tournaments/", f"/tournaments/{cup.pk}/"):
            page.goto(f"{live_server.url}{path}")
            text = page.evaluate(TEXT, "main").replace("Cup", "")
            assert "zhejiang_caishen" not in text
            # the rule set's name in the reader's language
            assert ("财神麻将" if lang == "zh" else "Caishen Mahjong") in text
            if lang == "zh":
                assert not STATUS_WORDS.search(text), STATUS_WORDS.search(text)
                assert "报名中" in text
            else:
                assert "Registration open" in text
            shot(page, f"e2e-tournament-{path.count('/')}-{lang}-{size}.png")
        browser.close()
    assert not errors, errors
