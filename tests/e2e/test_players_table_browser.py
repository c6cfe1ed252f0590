"""A table a player would choose, measured in the browser at 1366×768, 390×844 and 844×390, in
both languages: quick play from the home page to a running match in one tap; the header's
controls (the mute button, 💬, Leave, ⚙) at WCAG AA contrast against what is behind them and
nothing drawn over another; the result screen at a hand's end, outside the felt at full size; the own name plate
above the phone dock; the waiting room's text at AA contrast."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.daphne_process import run_folder
from tests.e2e.browser import ARTIFACTS, play_until_hand_end, serve, sign_up
from tests.e2e.contrast import measure, overlaps, text_contrasts
from tests.e2e.test_phone_layout import small_text

SIZES = {"desktop": (1366, 768), "portrait": (390, 844), "landscape": (844, 390)}
CASES = [(lang, size) for lang in ("zh-CN", "en") for size in SIZES]
CONTROLS = ["#mj-sound", "#mj-emote", "#mj-leave", "#mj-gear"]
HEADER = [".mj-title", ".mj-rules", "#mj-head-info", *CONTROLS]


@pytest.fixture(scope="module")
def unhurried_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The fast pace, except that a finished hand's result stays until the test is done with it:
    at one second between hands a loaded machine dealt the next hand under the measurement."""
    with serve(
        tmp_path_factory.mktemp("e2e-unhurried"),
        run_folder(tmp_path_factory.getbasetemp()),
        CAISHEN_BETWEEN_HANDS_SECONDS="120",
    ) as base:
        yield base


# Each box: getBoundingClientRect's, as Playwright's bounding_box() gives it for the top frame.
# The boxes of the selectors once every one is drawn and none has moved for SETTLED_FRAMES
# animation frames in a row (Playwright polls this once a frame): the table redraws its plates on
# every update, and as a hand starts it fits the felt and scrolls it up a frame later, later still
# on a loaded machine; measured one by one, or too soon, a plate is caught between two drawings.
SETTLED_FRAMES = 5
BOXES_JS = """([selectors, frames]) => {
  const boxes = selectors.map((sel) => {
    const el = document.querySelector(sel);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? { x: r.x, y: r.y, width: r.width, height: r.height } : null;
  });
  const key = JSON.stringify(boxes);
  const last = window.__boxesSeen;
  window.__boxesSeen = { key, frames: last && last.key === key ? last.frames + 1 : 1 };
  return boxes.every((b) => b) && window.__boxesSeen.frames >= frames ? boxes : null;
}"""


def boxes_together(page: Any, *selectors: str) -> list[dict[str, float]]:
    """The boxes of ``selectors``, measured in one frame once all are drawn and have stopped
    moving (BOXES_JS)."""
    page.evaluate("() => { window.__boxesSeen = null; }")
    found = page.wait_for_function(BOXES_JS, arg=[list(selectors), SETTLED_FRAMES]).json_value()
    return list(found)


def open_page(chromium: Any, lang: str, size: str, errors: list[str]) -> Any:
    width, height = SIZES[size]
    touch = size != "desktop"
    context = chromium.new_context(
        viewport={"width": width, "height": height}, locale=lang, has_touch=touch, is_mobile=touch
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page


def quick_play_with_bots(page: Any, server: str, variant: str | None = None) -> None:
    """Sign up, then one tap on the home page: a running match against bots (of the rule set
    first in the list unless ``variant`` is picked first)."""
    from playwright.sync_api import expect

    sign_up(page, server)
    page.goto(f"{server}/")
    if variant:
        page.select_option("#quick-play-variant", variant)
    page.locator("#quick-play-bots").click()
    page.wait_for_url(re.compile(r".*/tables/\d+/$"))
    expect(page.locator("#mj-leave")).to_be_visible()


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))


@pytest.mark.parametrize(("lang", "size"), CASES)
def test_quick_play_then_visible_controls_that_do_not_overlap(chromium: Any, server: str, lang: str, size: str) -> None:
    errors: list[str] = []
    page = open_page(chromium, lang, size, errors)
    quick_play_with_bots(page, server)
    page.evaluate("window.scrollTo(0, 0)")
    boxes_together(page, "#mj-head", "#mj-stage")  # the layout settles (fit() after the first frames)
    shot(page, f"e2e-controls-{size}-{lang}.png")
    seen = measure(page, HEADER)
    for sel in CONTROLS:
        m = seen[sel]
        assert m is not None, f"{sel} is not shown"
        # Text (Leave, ⚙ as a text glyph) 4.5:1; the control itself (💬's button) 3:1.
        if sel != "#mj-emote":
            assert m["text"] >= 4.5, f"{sel}: text contrast {m['text']:.2f} at {size}"
        assert m["surface"] >= 3, f"{sel}: the control against the page {m['surface']:.2f} at {size}"
        box = m["box"]
        assert box["x"] >= 0 and box["x"] + box["w"] <= SIZES[size][0], f"{sel} leaves the window at {size}"
    shown = [(sel, seen[sel]["box"]) for sel in HEADER if seen[sel] is not None]
    for i, (a, box_a) in enumerate(shown):
        for b, box_b in shown[i + 1 :]:
            assert not overlaps(box_a, box_b), f"{a} and {b} overlap at {size}: {box_a} {box_b}"
    assert errors == []


@pytest.mark.parametrize(("lang", "size"), CASES)
def test_the_result_screen_is_full_size_outside_the_felt(
    chromium: Any, unhurried_server: str, lang: str, size: str
) -> None:
    from playwright.sync_api import expect

    server = unhurried_server
    errors: list[str] = []
    page = open_page(chromium, lang, size, errors)
    quick_play_with_bots(page, server, "zhejiang_caishen")
    play_until_hand_end(page, mid_shot=None, tap=size != "desktop")
    dialog = page.locator("#mj-handend .handend-dialog")
    expect(dialog).to_be_visible()
    page.wait_for_timeout(300)
    width, height = SIZES[size]
    geometry = page.evaluate(
        """() => {
        const d = document.querySelector("#mj-handend .handend-dialog");
        const r = d.getBoundingClientRect();
        return {inFelt: Boolean(d.closest("#mj-stage")), scale: r.width / d.offsetWidth,
                x: r.x, y: r.y, w: r.width, h: r.height};
    }"""
    )
    assert not geometry["inFelt"] and abs(geometry["scale"] - 1) < 0.01, geometry
    assert geometry["x"] >= 0 and geometry["x"] + geometry["w"] <= width + 0.5, geometry
    assert geometry["y"] >= 0 and geometry["y"] + geometry["h"] <= height + 0.5, geometry
    assert (page.text_content("#mj-result") or "").strip()
    if page.locator("#mj-winning-hand").count():
        # Who won, how, the winning hand large, the patterns with their values.
        tiles = page.locator("#mj-winning-hand .tile")
        assert tiles.count() >= 2
        assert (tiles.first.bounding_box() or {"width": 0})["width"] >= 26
        expect(page.locator("#mj-winning-hand .win-tile")).to_have_count(1)
        patterns = page.locator("#mj-patterns li")
        assert patterns.count() >= 1
        for i in range(patterns.count()):
            assert (patterns.nth(i).locator(".pat-name").text_content() or "").strip()
            assert (patterns.nth(i).locator(".pat-value").text_content() or "").strip()
    # Each player's gain or loss; mine and my balance after.
    deltas = page.locator("#mj-handend .he-hands tbody .he-delta")
    expect(deltas).to_have_count(4)
    for i in range(4):
        assert re.fullmatch(r"[+-]?\d+", (deltas.nth(i).text_content() or "").strip())
    expect(page.locator("#mj-wallet-after")).to_be_visible()
    # The formulas behind "details".
    rows = page.locator("#mj-breakdown tbody tr")
    if rows.count():
        expect(rows.first).to_be_hidden()
        page.locator("#mj-details summary").click()
        expect(rows.first).to_be_visible()
    assert small_text(page) == []
    shot(page, f"e2e-result-{size}-{lang}.png")
    assert errors == []


@pytest.mark.parametrize(("lang", "size"), CASES)
def test_the_waiting_room_reads_at_aa_contrast(chromium: Any, server: str, lang: str, size: str) -> None:
    """ "Find players": a quick-play table waiting for people; every text of the room 4.5:1."""
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(chromium, lang, size, errors)
    sign_up(page, server)
    page.goto(f"{server}/")
    page.select_option("#quick-play-stake", "5")  # a table of its own: other tests wait at stake 1
    page.locator("#quick-play-people").click()
    page.wait_for_url(re.compile(r".*/tables/\d+/$"))
    room = page.locator("#mj-room")
    try:
        expect(room.locator(".chair.you")).to_have_count(1)
        expect(page.locator("#mj-ready-countdown[data-quick='1']")).to_be_visible()
        page.wait_for_timeout(200)
        shot(page, f"e2e-waiting-{size}-{lang}.png")
        low = [t for t in text_contrasts(page, "#mj-room") if t["ratio"] < 4.5]
        assert low == [], f"waiting room text under 4.5:1 at {size}: {low}"
    finally:  # "Cancel" (stand up): the next case finds the table without this player
        room.locator("[data-cmd=stand]").click()
    expect(room.locator(".chair.you")).to_have_count(0)
    assert errors == []


@pytest.mark.parametrize("size", ["portrait", "landscape"])
def test_the_own_name_plate_is_above_the_dock(chromium: Any, server: str, size: str) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(chromium, "zh-CN", size, errors)
    quick_play_with_bots(page, server, "zhejiang_caishen")
    # The second hand: the plate carries the match's score as well.
    play_until_hand_end(page, mid_shot=None, tap=True)
    expect(page.locator("#mj-head-info")).to_contain_text(re.compile(r"[2-4]/4"), timeout=20_000)
    expect(page.locator("#mj-hand .tile").first).to_be_visible()
    plate = page.locator(".plate-inner.you")
    expect(plate.locator(".plate-score")).to_be_visible()
    expect(plate).to_be_visible()
    # The felt clips what lies outside it.
    box, dock, felt = boxes_together(page, ".plate-inner.you", "#mj-dock", "#mj-stage")
    assert box["y"] + box["height"] <= felt["y"] + felt["height"] + 0.5, f"the own plate {box} leaves the felt {felt}"
    shot(page, f"e2e-own-plate-{size}.png")
    width, _height = SIZES[size]
    assert box["y"] >= 0 and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert box["y"] + box["height"] <= dock["y"] + 0.5, f"the own plate {box} runs under the dock {dock} ({size})"
    assert errors == []


@pytest.mark.parametrize("size", ["portrait", "landscape"])
def test_the_own_name_plate_with_its_bet_is_above_the_dock(chromium: Any, server: str, size: str) -> None:
    """东北: we bet 飘 ×1 before the deal; our plate carries the bet's badge, whole above the dock."""
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(chromium, "zh-CN", size, errors)
    quick_play_with_bots(page, server, "dongbei")
    page.locator("#mj-prehand .ph-choice[data-value='1']").tap()
    expect(page.locator("#mj-hand .tile").first).to_be_visible(timeout=20_000)
    plate = page.locator(".plate-inner.you")
    expect(plate.locator(".badge.bet")).to_be_visible()
    box, dock, felt = boxes_together(page, ".plate-inner.you", "#mj-dock", "#mj-stage")
    shot(page, f"e2e-own-plate-bet-{size}.png")
    width, _height = SIZES[size]
    assert box["y"] >= 0 and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert box["y"] + box["height"] <= felt["y"] + felt["height"] + 0.5, f"the own plate {box} leaves the felt {felt}"
    assert box["y"] + box["height"] <= dock["y"] + 0.5, f"the own plate {box} runs under the dock {dock} ({size})"
    assert errors == []
