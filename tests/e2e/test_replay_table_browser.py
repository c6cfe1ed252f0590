"""The replay looks like the table: the seats round a felt (the reader's own seat at the bottom),
auto-play at three speeds, a "my mistakes" filter that steps between the seat's clearly worse
decisions, and the analysis told in sentences, in both languages at 1366×768, 390×844 and 844×390.

Playwright drives Debian's chromium against pytest-django's live server, as
test_replay_analysis_browser.py does (and skips the same way where chromium or playwright is
missing)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.engine.variants import get_variant
from games.models import Hand, Seat
from games.records import replay
from tests.e2e.test_replay_analysis_browser import SEED
from tests.e2e.test_replay_browser import ARGS, ARTIFACTS, CHROMIUM, require_browser

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-123456"
SENTENCE = {
    "en": re.compile(r"^(East|South|West|North) (discarded|chose|passed|won)\b.*\.", re.S),
    "zh": re.compile(r"^[东南西北]家(打出|选择|和牌).*。", re.S),
}
WORDS: dict[str, dict[str, Any]] = {
    "en": {"mistakes": "My mistakes", "at": "Mistake 1 of {n}", "speeds": ["Slow", "Normal", "Fast"]},
    "zh": {"mistakes": "我的失误", "at": "失误 1/{n}", "speeds": ["慢", "中", "快"]},
}


def a_played_hand() -> tuple[Hand, str, list[int]]:
    """A finished bot hand at a table whose owner holds a chair (played by a bot); the owner's
    wind, and the replay's steps holding a clear mistake of that wind."""
    owner = get_user_model().objects.create_user("replayer", password=PASSWORD)
    table = services.create_table(owner, "zhejiang_caishen", {}, hands_total=1)
    seats = list(table.seats.order_by("position"))
    for s in seats:
        s.is_bot, s.ready, s.bot_level = True, True, Seat.EASY  # the greedy bot: the seed was chosen for its play
        if s.position == 0:
            s.user = owner
        s.save()
    services.start_match(table, first_hand=get_variant("zhejiang_caishen").new_hand(None, None, SEED))
    row = Hand.objects.get(table=table)
    wind = "ESWN"[row.engine_seat(0)]
    data = replay.viewer_frames(replay.export_text(row), replay.analysis_json(row))
    mistakes = [
        i
        for i, f in enumerate(data["frames"])
        if any(j["clear_mistake"] and j["seat"] == wind for j in f["judgements"])
    ]
    return row, wind, mistakes


def test_the_replay_is_a_table_with_auto_play_and_my_mistakes(
    live_server: Any, settings: Any, monkeypatch: Any
) -> None:
    require_browser()
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_CLAIM_PROTECTION = "pause"
    row, wind, mistakes = a_played_hand()
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for lang, locale in (("zh", "zh-CN"), ("en", "en-US")):
            for width, height in ((1366, 768), (390, 844), (844, 390)):
                words = WORDS[lang]
                context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
                page = context.new_page()
                errors: list[str] = []
                page.on("pageerror", lambda exc: errors.append(str(exc)))  # noqa: B023 - this page's list
                page.goto(f"{live_server.url}/accounts/login/")
                page.fill("input[name=username]", "replayer")
                page.fill("input[name=password]", PASSWORD)
                page.locator("main form button[type=submit]").click()
                page.wait_for_load_state()
                page.goto(f"{live_server.url}/hands/{row.pk}/replay/")
                switch = page.locator(f".lang-switch button[value='{'en' if lang == 'en' else 'zh-hans'}']")
                if switch.is_enabled():  # the account keeps the language it last chose
                    switch.click()
                    page.wait_for_load_state()
                page.locator("#rp-step").wait_for()
                # The seats round the felt, the reader's own at the bottom.
                felt = page.locator("#rp-felt")
                expect(felt.locator(".rp-seat")).to_have_count(4)
                expect(felt.locator(f".rp-seat[data-seat='{wind}']")).to_have_attribute("data-side", "bottom")
                box: dict[str, Any] = {
                    side: page.locator(f"#rp-felt .rp-side-{side}").bounding_box()
                    for side in ("top", "bottom", "left", "right")
                }
                centre: Any = page.locator("#rp-felt .rp-centre").bounding_box()
                assert box["top"]["y"] < centre["y"] < box["bottom"]["y"], (box, centre)
                if width > 800:  # side by side on a desktop; stacked on a phone
                    assert box["left"]["x"] < centre["x"] < box["right"]["x"], (box, centre)
                assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page scrolls sideways"
                # Auto-play, three speeds: fast steps on by itself, pause stops it.
                speeds = page.locator("#rp-speed option")
                assert [speeds.nth(i).inner_text() for i in range(speeds.count())] == words["speeds"]
                page.select_option("#rp-speed", "fast")
                page.locator("#rp-play").click()
                page.wait_for_function(
                    "() => parseInt(document.getElementById('rp-step').textContent) >= 3", timeout=5000
                )
                page.locator("#rp-play").click()
                stopped = page.locator("#rp-step").inner_text()
                page.wait_for_timeout(800)
                assert page.locator("#rp-step").inner_text() == stopped
                # My mistakes: the filter jumps to the seat's first clearly worse decision.
                toggle = page.locator("#rp-mistakes")
                expect(toggle).to_have_text(f"{words['mistakes']} ({len(mistakes)})")
                assert mistakes, "the seeded hand has a clear mistake of the owner's seat"
                page.locator("#rp-first").click()
                toggle.click()
                expect(toggle).to_have_attribute("aria-pressed", "true")
                expect(page.locator("#rp-step")).to_have_text(words["at"].format(n=len(mistakes)))
                item = page.locator(f".rp-an-item[data-seat='{wind}'][data-mistake='1']")
                expect(item.first).to_be_visible()
                if len(mistakes) > 1:
                    page.locator("#rp-forward").click()
                    expect(page.locator(f".rp-an-item[data-seat='{wind}'][data-mistake='1']").first).to_be_visible()
                else:
                    expect(page.locator("#rp-forward")).to_be_disabled()
                # The analysis reads as sentences.
                heads = page.locator(".rp-an-item:not(.rp-an-hidden) .rp-an-head")
                for i in range(heads.count()):
                    assert SENTENCE[lang].match(heads.nth(i).inner_text().strip()), heads.nth(i).inner_text()
                choices = page.locator(".rp-an-choice")
                for i in range(choices.count()):
                    text = choices.nth(i).inner_text().strip()
                    assert text.endswith("." if lang == "en" else "。"), text
                    assert "win win" not in text.lower() and "{" not in text, text
                ARTIFACTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / f"e2e-replay-{width}x{height}-{lang}.png"), full_page=True)
                context.close()
                assert not errors, errors
        browser.close()
