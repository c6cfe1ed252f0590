"""托管 can be left from the table page, at desktop and phone sizes.

A seat on 托管 plays itself a bot's delay into each turn, so the player's clicks often come too
late; the header holds a 托管 switch, and while the seat is on 托管 a banner with "取消托管 / Stop
auto-play" shows; after it the player's own discards are applied (the seat's 托管 badge is gone).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.browser import create_table, play_until_hand_end, shot, sign_up, sit_fill_and_ready

pytestmark = pytest.mark.e2e

WORDS = {
    "zh-CN": {"start": "托管", "stop": "取消托管", "on": "托管中"},
    "en-US": {"start": "Auto-play", "stop": "Stop auto-play", "on": "Auto-play is on"},
}


def inside_viewport(page: Any, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not rendered"
    size = page.viewport_size
    assert box["x"] >= 0 and box["y"] >= 0, box
    assert box["x"] + box["width"] <= size["width"] and box["y"] + box["height"] <= size["height"], (box, size)
    return box


@pytest.mark.parametrize(
    ("lang", "width", "height"), [("zh-CN", 1366, 900), ("en-US", 1366, 900), ("zh-CN", 390, 844)], ids=str
)
def test_autoplay_on_and_off_from_the_table_page(
    server: str, chromium: Any, lang: str, width: int, height: int
) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    context = chromium.new_context(viewport={"width": width, "height": height}, locale=lang)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    words = WORDS[lang]
    sign_up(page, server)
    # Four hands: 托管 plays a hand out in seconds at the tests' pace, and the switch must still be
    # there between hands and in the next one; on a loaded machine two hands were over before the
    # test could press "stop" (the control goes when the match ends).
    create_table(page, server, "zhejiang_caishen", hands=4)
    sit_fill_and_ready(page)
    control = page.locator("#mj-autoplay")
    expect(page.locator("#mj-hand .tile")).not_to_have_count(0, timeout=15_000)

    start = control.locator("[data-cmd=autoplay-on]")
    expect(start).to_have_text(words["start"])
    page.evaluate("window.scrollTo(0, 0)")
    start.click()

    stop = control.locator("[data-cmd=autoplay-off]")
    expect(stop).to_be_visible()
    expect(stop).to_have_text(words["stop"])
    expect(control).to_contain_text(words["on"])
    expect(page.locator(".plate .plate-inner.you .badge.auto")).to_have_count(1)
    page.evaluate("window.scrollTo(0, 0)")
    box = inside_viewport(page, "#mj-autoplay [data-cmd=autoplay-off]")
    assert box["height"] >= 40 and box["width"] >= 44, box  # a thumb's target

    stop.click()

    expect(control.locator("[data-cmd=autoplay-on]")).to_be_visible()
    expect(page.locator(".plate .plate-inner.you .badge.auto")).to_have_count(0)
    shot(page, f"e2e-autoplay-{lang}-{width}.png")
    # The player's own moves count again: wait for our turn (in this hand or the next) and play
    # that hand out by hand, 托管 staying off.
    expect(page.locator("#mj-hand .tile.playable").first).to_be_visible(timeout=20_000)
    discards = play_until_hand_end(page, mid_shot=None)
    assert discards >= 1
    assert control.get_attribute("data-on") != "1"
    assert not errors, f"JavaScript errors on the page: {errors}"
    context.close()
