"""A 东北 table in the browser: answer the 飘 question before the deal, then play the hand.

One hand, three bots.  The bots answer 飘 at once (不飘); we bet 飘 ×1 in the dialog, see the
bet on our name plate and in the table-info panel, then discard whenever allowed (never
declaring 听) and pass every claim until the hand end, whose breakdown lists the 飘 payment
when somebody won.  Screenshots: e2e-dongbei-1-piao.png (the question), -2-mid-hand.png,
-3-hand-end.png in var/test-artifacts/.
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


def test_dongbei_answer_piao_and_play_a_hand(server: str, chromium: Any) -> None:
    from playwright.sync_api import expect

    started = time.monotonic()
    errors: list[str] = []
    for old in ARTIFACTS.glob("e2e-dongbei-*.png"):
        old.unlink()
    page = new_page(chromium, errors)

    sign_up(page, server)
    create_table(page, server, "dongbei")
    expect(page.locator("#mj-title")).to_have_text("东北麻将")
    balance_before = sit_fill_and_ready(page)

    # Before the deal: the 飘 question, one button per amount, the clock, everyone's answers.
    dialog = page.locator("#mj-prehand .prehand-dialog")
    expect(dialog).to_be_visible(timeout=15_000)
    expect(dialog.locator("h2")).to_have_text("飘")
    expect(dialog.locator(".ph-explain")).to_contain_text("飘")
    expect(dialog.locator(".ph-choice[data-value='0']")).to_have_text("不飘")
    expect(dialog.locator(".ph-choice[data-value='1']")).to_have_text("飘 ×1")
    expect(dialog.locator("#mj-prehand-clock")).to_have_text(re.compile(r"\d+"))
    # The bots answered the default at once; we have not answered yet.
    expect(dialog.locator(".ph-answers li.answered")).to_have_count(3)
    expect(page.locator(".plate-inner.you .badge.answer.pending")).to_have_count(1)
    expect(page.locator(".plate .badge.answer:not(.pending)")).to_have_count(3)
    shot(page, "e2e-dongbei-1-piao.png")
    dialog.locator(".ph-choice[data-value='1']").click()

    # Dealt: the bet on our plate and in the table-info panel, no wild, the drawable count.
    expect(page.locator("#mj-prehand")).to_be_hidden()
    expect(page.locator("#mj-hand .tile")).not_to_have_count(0, timeout=15_000)
    expect(page.locator(".plate-inner.you .badge.bet[data-bet=piao]")).to_have_text("飘×1")
    expect(page.locator("#mj-table-info .info-row[data-key=piao] .info-value")).to_contain_text("×1")
    expect(page.locator("#mj-center .mark-wild")).to_have_count(0)
    expect(page.locator("#mj-wall-left")).to_have_text(re.compile(r"\d+"))
    discards = play_until_hand_end(page, mid_shot="e2e-dongbei-2-mid-hand.png")

    delta = check_hand_end(page, balance_before)
    if "流局" not in (page.text_content("#mj-result") or ""):
        # Somebody won: every 飘 is settled, ours among them, with its per-seat payments.
        expect(page.locator("#mj-breakdown tr[data-name=piao]")).not_to_have_count(0)
        expect(page.locator("#mj-breakdown tr[data-name=piao] .bd-payments .pay").first).to_be_visible()
    shot(page, "e2e-dongbei-3-hand-end.png")
    print(f"e2e dongbei: {discards} discards, delta {delta:+d}, {time.monotonic() - started:.1f} s")
    assert not errors, f"JavaScript errors on the page: {errors}"
