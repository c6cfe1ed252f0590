"""The replay viewer in a real browser: open a finished bot hand's replay and step through it.

Playwright drives Debian's chromium (never a downloaded browser) against pytest-django's live
server; without chromium or Playwright it fails, saying what to install (tests/e2e/browser.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.models import Hand
from tests.e2e.browser import CHROMIUM, require_browser

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "var" / "test-artifacts"


def test_open_a_replay_and_step_through_it(live_server: Any, settings: Any, monkeypatch: Any) -> None:
    require_browser()
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_CLAIM_PROTECTION = "pause"  # quick windows (the uniform one: test_claim_protection.py)
    owner = get_user_model().objects.create_user("replayer", password="pw-123456")
    table = services.create_table(owner, "zhejiang_caishen", {}, hands_total=1)
    services.add_bots(table.pk, owner)
    row = Hand.objects.get(table=table)
    assert row.status == Hand.FINISHED
    # Playwright's sync API runs an event loop in this thread; the ORM work is done above.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{live_server.url}/hands/{row.pk}/replay/")
        step = page.locator("#rp-step")
        step.wait_for()
        assert step.inner_text().startswith("0 / ")
        last = int(step.inner_text().split("/")[1])
        assert last > 3
        # All hands open at the start: 14 + 13 × 3 concealed tiles drawn face up.
        assert page.locator(".rp-hand[data-concealed=open]").count() == 4
        page.click("#rp-forward")
        page.click("#rp-forward")
        assert step.inner_text() == f"2 / {last}"
        page.click("#rp-back")
        assert step.inner_text() == f"1 / {last}"
        page.keyboard.press("ArrowRight")
        assert step.inner_text() == f"2 / {last}"
        # From South's seat the other three hands are face down.
        page.select_option("#rp-view", "S")
        assert page.locator(".rp-hand[data-concealed=open]").count() == 1
        assert page.locator(".rp-seat[data-seat=S] .rp-hand[data-concealed=open]").count() == 1
        page.click("#rp-last")
        assert step.inner_text() == f"{last} / {last}"
        assert page.locator(".rp-result").count() == 1
        assert page.locator("#rp-board .tile svg").count() > 40
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "replay-end.png"), full_page=True)
        browser.close()
    assert not errors, errors
