"""The replay viewer shows the engine's analysis: at a step, its decision's judgement (distance
before → after, the best choices drawn as tiles, the mark on a clear mistake), and every seat's
summary for the hand, in zh-Hans and in English with proper plural forms.

Playwright drives Debian's chromium against pytest-django's live server, as
test_replay_browser.py does (and skips the same way where chromium or playwright is missing).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.engine.variants import get_variant
from games.models import Hand, Seat, Table
from games.records import replay
from tests.e2e.browser import CHROMIUM, require_browser
from tests.e2e.test_replay_browser import ARGS, ARTIFACTS

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SEED = "analysis-browser-49"  # a bot hand with a clear mistake in it (the test checks)

WORDS = {
    "en": {
        "mistake": "Clear mistake",
        "reason": {
            "passed_win": "a win was passed up",
            "higher_distance": "farther from ready than the best discard",
            "fewer_tiles": "at most half the best discard's useful tiles, and at least 4 fewer",
            "worsening_claim": "the claim leaves the hand farther from ready",
        },
        "title": "Engine's view",
        "summary": "Summary",
        "distance": "{before} → {after}",
    },
    "zh": {
        "mistake": "明显失误",
        "reason": {
            "passed_win": "放弃了可以和的牌",
            "higher_distance": "比最佳打法离听牌更远",
            "fewer_tiles": "有效牌不到最佳打法的一半，且少 4 张以上",
            "worsening_claim": "这次吃碰杠让手牌离听牌更远",
        },
        "title": "引擎分析",
        "summary": "本局总结",
        "distance": "{before} → {after}",
    },
}


def summary_text(s: dict[str, Any], lang: str) -> str:
    """What the viewer must say of a seat's hand (a mirror of replay.js summaryText)."""
    d, m, r = s["decisions"], s["clear_mistakes"], s["ready_turns"]
    if lang == "en":
        parts = [
            "1 decision" if d == 1 else f"{d} decisions",
            "no clear mistakes" if m == 0 else "1 clear mistake" if m == 1 else f"{m} clear mistakes",
            "never ready"
            if r is None
            else "ready only on the last turn"
            if r == 0
            else "ready 1 turn before the end"
            if r == 1
            else f"ready {r} turns before the end",
        ]
        return ", ".join(parts)
    parts = [
        f"{d} 次决策",
        "没有明显失误" if m == 0 else f"{m} 处明显失误",
        "未听牌" if r is None else "最后一巡才听牌" if r == 0 else f"终局前 {r} 巡已听牌",
    ]
    return "，".join(parts)


def distance(d: int | None, lang: str) -> str:
    """How far from ready, in the viewer's words (a mirror of replay.js distanceWord)."""
    if lang == "en":
        return "won" if d is None else "ready" if d == 0 else f"{d} from ready"
    return "和牌" if d is None else "听牌" if d == 0 else f"{'一二三四五六七八九十'[d - 1]}向听"


def test_the_replay_shows_each_judgement_and_the_summary_in_both_languages(
    live_server: Any, settings: Any, monkeypatch: Any
) -> None:
    require_browser()
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_CLAIM_PROTECTION = "pause"
    owner = get_user_model().objects.create_user("analyst", password="pw-123456")
    table = services.create_table(owner, "zhejiang_caishen", {}, hands_total=1)
    for s in table.seats.all():
        s.is_bot, s.ready, s.bot_level = True, True, Seat.EASY  # the greedy bot: the seed was chosen for its play
        s.save()
    services.start_match(table, first_hand=get_variant("zhejiang_caishen").new_hand(None, None, SEED))
    row = Hand.objects.get(table=table)
    assert row.status == Hand.FINISHED and Table.objects.get(pk=table.pk)
    data = replay.viewer_frames(replay.export_text(row), replay.analysis_json(row))
    at = next(i for i, f in enumerate(data["frames"]) if any(j["clear_mistake"] for j in f["judgements"]))
    judged = next(j for j in data["frames"][at]["judgements"] if j["clear_mistake"])
    summary = data["summary"]
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for lang, locale in (("zh", "zh-CN"), ("en", "en-US")):
            words = WORDS[lang]
            context = browser.new_context(viewport={"width": 1366, "height": 900}, locale=locale)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
            page.goto(f"{live_server.url}/hands/{row.pk}/replay/")
            page.locator("#rp-step").wait_for()
            assert page.locator("#rp-analysis h2").inner_text() == words["title"]
            # Step to the frame of the first clear mistake.
            for _ in range(at):
                page.keyboard.press("ArrowRight")
            assert page.locator("#rp-step").inner_text().startswith(f"{at} / ")
            item = page.locator(f".rp-an-item[data-n='{judged['n']}']")
            assert item.get_attribute("data-mistake") == "1"
            text = item.inner_text()
            assert words["mistake"] in text and words["reason"][judged["reason"]] in text
            want = words["distance"].format(
                before=distance(judged["before"], lang), after=distance(judged["after"], lang)
            )
            assert item.locator(".rp-an-distance").inner_text() == want
            # The best choices are drawn as tiles (a discard is its tile; a win is a word).
            best = item.locator(".rp-an-best > li")
            assert best.count() == len(judged["best"])
            drawn = [c for c in judged["best"] if c["action"]["do"] == "discard"]
            for k, c in enumerate(judged["best"]):
                if c["action"]["do"] == "discard":
                    assert best.nth(k).locator(f".rp-an-act .tile[data-tile='{c['action']['tile']}']").count() == 1
            assert item.locator(".rp-an-best .tile svg").count() >= len(drawn)
            # Every seat's summary, plural forms and all.
            assert page.locator("#rp-summary h2").inner_text() == words["summary"]
            for s in summary:
                line = page.locator(f".rp-an-summary li[data-seat='{s['seat']}'] .rp-an-summary-text")
                assert line.inner_text() == summary_text(s, lang)
            body = page.locator("#replay-app").inner_text()
            assert "{n}" not in body and "rp_an_" not in body
            # From another seat's view that seat's judgement is hidden (its hand is), the summary stays.
            other = next(x for x in "ESWN" if x != judged["seat"])
            page.select_option("#rp-view", other)
            assert page.locator(f".rp-an-item[data-n='{judged['n']}']").get_attribute("class").find("rp-an-hidden") >= 0
            assert page.locator(".rp-an-summary li").count() == 4
            page.select_option("#rp-view", "all")
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"replay-analysis-{lang}.png"), full_page=True)
            context.close()
            assert not errors, errors
        browser.close()
