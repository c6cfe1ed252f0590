"""The whole path in a real browser: sign up, create a table, fill it with bots, play a hand.

A 财神 table (wild and indicator in the centre), one hand.  The server, the browser and the
helpers are shared with the other browser tests (conftest.py, browser.py).
Screenshots go to var/test-artifacts/ (the waiting room, mid-hand, the hand end).
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from tests.e2e.browser import (
    ARTIFACTS,
    check_hand_end,
    create_table,
    new_page,
    play_until_hand_end,
    shot,
    sign_up,
    sit_fill_and_ready,
)

pytestmark = pytest.mark.e2e


def test_sign_up_create_fill_with_bots_and_play_a_hand(server: str, chromium: Any) -> None:
    from playwright.sync_api import expect

    started = time.monotonic()
    errors: list[str] = []
    for old in ARTIFACTS.glob("e2e-[0-9]-*.png"):
        old.unlink()
    page = new_page(chromium, errors)

    sign_up(page, server)
    create_table(page, server, "zhejiang_caishen")
    balance_before = sit_fill_and_ready(page, shot_name="e2e-1-waiting-room.png")

    # The hand: our tiles at the bottom, the centre panel with the indicator and the wild.
    expect(page.locator("#mj-hand .tile")).not_to_have_count(0, timeout=15_000)
    expect(page.locator("#mj-center")).to_be_visible()
    expect(page.locator("#mj-center .mark-indicator .tile")).to_have_count(1)
    expect(page.locator("#mj-center .mark-wild .tile.wild")).not_to_have_count(0)
    expect(page.locator("#mj-title")).to_have_text("财神麻将（前导牌）")
    expect(page.locator("#mj-seed-hash")).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
    discards = play_until_hand_end(page, mid_shot="e2e-2-mid-hand.png")

    delta = check_hand_end(page, balance_before)
    shot(page, "e2e-3-hand-end.png")
    print(f"e2e: {discards} discards, delta {delta:+d}, {time.monotonic() - started:.1f} s")
    assert not errors, f"JavaScript errors on the page: {errors}"
