"""听牌 hints in a real browser (the table page's hints panel, static/js/hints.js), in both
languages at desktop and phone sizes: a table created with the form's hints checkbox shows,
once it is the player's turn to discard, the panel under the hand with the distance to ready and
the discard rows with their tiles; the panel is all in the page's language; a hand tile lights
its row.  A table created without hints shows no panel."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from tests.e2e.browser import ARTIFACTS, create_table, moved_on, server_log_tail, sign_up, sit_fill_and_ready
from tests.e2e.i18n_scan import untranslated

pytestmark = pytest.mark.e2e

LOCALES = {"zh": "zh-CN", "en": "en-US"}
SIZES = {"desktop": (1366, 768), "phone": (390, 844), "landscape": (844, 390)}
# Every size and both languages, paired rather than crossed (English on the upright phone, the
# tighter fit); tests/e2e/test_untranslated_scan.py reads every page in each language at each size.
PAIRS = (("zh", "desktop"), ("en", "phone"), ("zh", "landscape"))
CASES = [pytest.param(lang, size, id=f"{lang}-{size}") for lang, size in PAIRS]
DISTANCE = {
    "zh": re.compile(r"^(听牌|[一二三四五六七八]向听|\d+ 向听)$"),
    "en": re.compile(r"^(Ready|\d+ from ready)$"),
}
TURN_TIMEOUT_S = 40
VERDICT_WORDS = {"zh": ["和", "改善", "持平", "变差"], "en": ["wins", "improves", "keeps", "worsens"]}
CLAIMS = "#mj-actions button.act:not([data-do=pass]):not([data-do=discard-selected])"
CLAIM_VERDICTS = "els => els.map(e => e.querySelector('.act-hint')?.textContent || '')"
BOXES = """els => els.map(e => {
    const r = e.getBoundingClientRect();
    return {x: r.x, y: r.y, width: r.width, height: r.height};
})"""


def new_page(chromium: Any, lang: str, size: str, errors: list[str]) -> Any:
    width, height = SIZES[size]
    context = chromium.new_context(viewport={"width": width, "height": height}, locale=LOCALES[lang])
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page


def create_table_form(page: Any, base: str, hints: bool) -> None:
    """A one-hand 浙江财神 table at stake 1 through the lobby's form, hints on or off."""
    page.goto(f"{base}/tables/new/?variant=zhejiang_caishen")
    page.fill("input[name=hands_total]", "1")
    page.fill("input[name=stake]", "1")
    box = page.locator("input[name=hints]")
    if hints:
        box.check()
    elif box.count():
        box.uncheck()
    page.locator("main form[method=post] button[type=submit]").click()
    page.wait_for_url(re.compile(r".*/tables/\d+/$"))


def wait_for_my_discard(page: Any, verdicts: list[str] | None = None) -> None:
    """Pass every claim offer until the hand asks us to discard; ``verdicts`` collects the
    verdict words shown on the claim buttons on the way."""
    playable = page.locator("#mj-hand .tile.playable")
    passes = page.locator("#mj-actions button[data-do=pass]")
    end = time.monotonic() + TURN_TIMEOUT_S
    while time.monotonic() < end:
        if playable.count():
            return
        try:
            if passes.count():
                if verdicts is not None:  # every claim button, with its verdict ("" when none)
                    verdicts += page.eval_on_selector_all(CLAIMS, CLAIM_VERDICTS)
                passes.first.click(timeout=1500)
                continue
        except moved_on():  # the window closed under the click: look again
            page.wait_for_timeout(40)
            continue
        page.wait_for_timeout(40)
    page.screenshot(path=str(ARTIFACTS / "e2e-hints-timeout.png"))
    raise AssertionError(
        f"never our turn to discard within {TURN_TIMEOUT_S} s; the server's log ends:\n{server_log_tail()}"
    )


def play_out_collecting_verdicts(page: Any, verdicts: list[str]) -> None:
    """Play the hand to its end (discard the drawn tile, pass every claim), collecting the claim
    buttons' verdicts on the way."""
    handend = page.locator("#mj-handend .handend-dialog")
    passes = page.locator("#mj-actions button[data-do=pass]")
    drawn = page.locator("#mj-hand .tile.drawn.playable")
    playable = page.locator("#mj-hand .tile.playable")
    end = time.monotonic() + 60
    while time.monotonic() < end:
        if handend.count() and handend.is_visible():
            return
        try:
            if passes.count():
                seen = page.eval_on_selector_all(CLAIMS, CLAIM_VERDICTS)
                if seen and not verdicts:
                    page.locator("#mj-actions").screenshot(path=str(ARTIFACTS / "e2e-hints-claim.png"))
                verdicts += seen
                passes.first.click(timeout=1500)
                continue
            if playable.count():
                (drawn if drawn.count() else playable.last).click(timeout=1500)
                page.wait_for_selector("#mj-hand .tile.playable", state="detached", timeout=3000)
                continue
        except moved_on():  # the table moved on under the click: look again
            page.wait_for_timeout(40)
            continue
        page.wait_for_timeout(40)
    raise AssertionError(f"the hand did not end; the server's log ends:\n{server_log_tail()}")


def inside_viewport(page: Any, box: dict[str, float] | None, what: str) -> None:
    size = page.viewport_size
    assert box is not None, f"{what} has no box"
    assert box["x"] >= -1 and box["y"] >= -1, f"{what} starts outside the viewport: {box}"
    assert box["x"] + box["width"] <= size["width"] + 1, f"{what} ends right of the viewport: {box}"
    assert box["y"] + box["height"] <= size["height"] + 1, f"{what} ends below the viewport: {box}"


@pytest.mark.parametrize(("lang", "size"), CASES)
def test_hints_table_shows_the_panel_on_our_discard(server: str, chromium: Any, lang: str, size: str) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    page = new_page(chromium, lang, size, errors)
    sign_up(page, server)
    create_table_form(page, server, hints=True)
    sit_fill_and_ready(page)
    verdicts: list[str] = []
    wait_for_my_discard(page, verdicts)

    panel = page.locator("#mj-hints")
    expect(panel).to_be_visible()
    expect(panel.locator(".hints-title")).to_have_text("听牌提示" if lang == "zh" else "Hints")
    distance = panel.locator("#mj-hints-distance")
    expect(distance).to_have_text(DISTANCE[lang])
    assert re.fullmatch(r"\d+", distance.get_attribute("data-distance") or ""), "the distance as a number"
    rows = panel.locator(".hint-row.hint-discard")
    assert rows.count() >= 1, "at least one discard row"
    first = rows.first
    chips = first.locator(".hint-tile[data-tile]")
    assert chips.count() >= 1, "the row's discard drawn as a tile"
    expect(chips.first.locator(".tile")).to_have_count(1)
    code = chips.first.get_attribute("data-tile")
    assert code, "the row names its tile"
    # Every discard shown is a tile we may discard now.
    legal = set(page.eval_on_selector_all("#mj-hand .tile.playable", "els => els.map(e => e.dataset.tile)"))
    for tile in page.eval_on_selector_all("#mj-hints .hint-tile[data-tile]", "els => els.map(e => e.dataset.tile)"):
        assert tile in legal, f"a hint for {tile}, not a legal discard ({sorted(legal)})"
    if int(distance.get_attribute("data-distance") or "9") == 0:
        # Ready: the rows show the waits, each tile with its unseen count (or 任意牌 / any tile).
        assert first.locator(".hint-wait .tile, .hint-any").count() >= 1
        hand_marks = page.locator("#mj-hand .tile.hint-ready")
        assert hand_marks.count() >= 1, "a hand tile whose discard keeps us ready carries a mark"
    else:
        expect(first.locator(".hint-after")).to_have_text(DISTANCE[lang])
    # Under the hand, and in the viewport (the phone dock: the hand and the panel both).
    hand_box = page.locator("#mj-hand").bounding_box()
    panel_box = panel.bounding_box()
    assert hand_box is not None and panel_box is not None
    assert panel_box["y"] >= hand_box["y"] + hand_box["height"] - 2, (
        f"the panel is under the hand: {panel_box} vs {hand_box}"
    )
    if size != "desktop":
        for tile_box in page.eval_on_selector_all("#mj-hand .tile", BOXES):
            inside_viewport(page, tile_box, "an own tile")
        inside_viewport(page, panel.bounding_box(), "the hints panel")
    # A hand tile of a row's kind lights that row (hover on a desktop).
    if size == "desktop":
        page.locator(f"#mj-hand .tile.playable[data-tile='{code}']").first.hover()
        expect(panel.locator(f".hint-tile[data-tile='{code}']")).to_have_class(re.compile(r"\blit\b"))
        # ... and a discard in the panel lights the hand's tiles of its kind.
        panel.locator(f".hint-tile[data-tile='{code}']").hover()
        expect(page.locator(f"#mj-hand .tile.hint-lit[data-tile='{code}']").first).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / f"e2e-hints-{lang}-{size}.png"))
    # All in the page's language.
    offenders = [s for s in untranslated(page, lang) if any(s in t for t in panel.all_inner_texts())]
    assert offenders == [], offenders
    if size == "desktop":  # play on to the end: every claim offered carries its verdict
        play_out_collecting_verdicts(page, verdicts)
    assert all(v in VERDICT_WORDS[lang] for v in verdicts), verdicts
    assert errors == []


@pytest.mark.parametrize("lang", list(LOCALES))
def test_table_without_hints_shows_no_panel(server: str, chromium: Any, lang: str) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    page = new_page(chromium, lang, "desktop", errors)
    sign_up(page, server)
    create_table_form(page, server, hints=False)
    sit_fill_and_ready(page)
    wait_for_my_discard(page)
    expect(page.locator("#mj-hand .tile.playable").first).to_be_visible()
    expect(page.locator("#mj-hints")).to_be_hidden()
    expect(page.locator("#mj-hints .hint-row")).to_have_count(0)
    expect(page.locator("#mj-hand .tile.hint-ready")).to_have_count(0)
    expect(page.locator("#mj-actions .act-hint")).to_have_count(0)
    assert errors == []


# A hand ready after two of its discards, one of them waiting on any tile (wilds), and a claim
# offer of each verdict: the shapes of games/engine/insight/hints.py HintSet.to_json().
READY_HINTS = {
    "distance": 0,
    "discards": [
        {
            "tile": "5m",
            "distance": 0,
            "ready": True,
            "improves": True,
            "best": True,
            "waits": {
                "any_tile": False,
                "tiles": [{"tile": "3s", "unseen": 4}, {"tile": "6s", "unseen": 0}],
                "unseen": 4,
            },
            "useful": None,
        },
        {
            "tile": "E",
            "distance": 0,
            "ready": True,
            "improves": True,
            "best": False,
            "waits": {"any_tile": True, "tiles": [{"tile": "1m", "unseen": 3}], "unseen": 3},
            "useful": None,
        },
        {"tile": "9p", "distance": 1, "ready": False, "improves": False, "best": False, "waits": None, "useful": None},
    ],
    "claims": [],
    "waits": None,
}
DRAW_JS = """async (hints) => {
    const m = await import("/static/js/hints.js");
    const tiles = await import("/static/js/tiles.js");
    const el = document.createElement("div");
    el.className = "hints";
    el.id = "mj-hints-probe";
    document.querySelector("#mj-app").append(el);
    m.renderHints(el, hints, {tileOf: (code, w) => tiles.tileEl(code, {w}), onHover: () => {}});
    const verdicts = ["wins", "improves", "keeps", "worsens"].map((v) => m.verdictTag(v).textContent);
    const matched = m.claimVerdict({claims: [{action: {seat: "S", do: "pung"}, verdict: "keeps", distance: 1}]},
                                   {seat: "S", do: "pung", tile: "5m"});
    return {verdicts, matched, distances: [0, 1, 2].map((d) => m.distanceText(d)),
            ready: [...m.readyTiles(hints)].sort()};
}"""
DISTANCE_WORDS = {"zh": ["听牌", "一向听", "二向听"], "en": ["Ready", "1 from ready", "2 from ready"]}


@pytest.mark.parametrize("lang", list(LOCALES))
def test_ready_rows_show_waits_counts_and_any_tile(server: str, chromium: Any, lang: str) -> None:
    """The panel's drawing of a ready hand (the module the table page loads, fed a fixed hints
    object: a real hand is rarely ready on its first discard)."""
    from playwright.sync_api import expect

    errors: list[str] = []
    page = new_page(chromium, lang, "desktop", errors)
    sign_up(page, server)
    create_table_form(page, server, hints=False)
    out = page.evaluate(DRAW_JS, READY_HINTS)
    assert out["verdicts"] == VERDICT_WORDS[lang]
    assert out["matched"] == "keeps"
    assert out["distances"] == DISTANCE_WORDS[lang]
    assert out["ready"] == ["5m", "E"]
    probe = page.locator("#mj-hints-probe")
    expect(probe).to_be_visible()
    expect(probe.locator("#mj-hints-distance")).to_have_text(DISTANCE_WORDS[lang][0])
    rows = probe.locator(".hint-row.hint-discard")
    expect(rows).to_have_count(2)  # the ready discards only
    five = probe.locator(".hint-row[data-tile='5m']")
    expect(five).to_have_class(re.compile(r"\bbest\b"))
    expect(five.locator(".hint-wait")).to_have_count(2)
    expect(five.locator(".hint-wait[data-tile='3s'] .hint-count")).to_have_text("×4")
    expect(five.locator(".hint-wait[data-tile='6s']")).to_have_class(re.compile(r"\bdead\b"))
    expect(five.locator(".hint-total")).to_have_text("共 4 张" if lang == "zh" else "4 left")
    expect(probe.locator(".hint-row[data-tile='E'] .hint-any")).to_have_text("任意牌" if lang == "zh" else "any tile")
    expect(probe.locator(".hint-row[data-tile='E'] .hint-wait")).to_have_count(0)
    probe.screenshot(path=str(ARTIFACTS / f"e2e-hints-ready-{lang}.png"))
    offenders = [s for s in untranslated(page, lang) if any(s in t for t in probe.all_inner_texts())]
    assert offenders == [], offenders
    assert errors == []


def far(tile: str, distance: int, unseen: int, rank: int, improves: bool = False) -> dict[str, Any]:
    useful = {"any_tile": False, "tiles": [{"tile": "5p", "unseen": unseen}], "unseen": unseen}
    return {
        "tile": tile,
        "distance": distance,
        "ready": False,
        "improves": improves,
        "best": rank == 1,
        "waits": None,
        "useful": useful,
        "rank": rank,
    }


# Three from ready: 1m and 9m leave it there with 24 tiles that improve, N with 20, 5s farther.
FAR_HINTS = {
    "distance": 3,
    "discards": [far("N", 3, 20, 3), far("1m", 3, 24, 1, True), far("5s", 4, 30, 4), far("9m", 3, 24, 1, True)],
    "claims": [],
    "waits": None,
}
KEEP_JS = """async ([hints, step]) => {
    const m = await import("/static/js/hints.js");
    const tiles = await import("/static/js/tiles.js");
    let el = document.querySelector("#mj-hints-probe");
    if (!el) {
        el = document.createElement("div");
        el.className = "hints";
        el.id = "mj-hints-probe";
        document.querySelector("#mj-app").append(el);
    }
    const opts = {tileOf: (code, w) => tiles.tileEl(code, {w}), onHover: () => {}, hand: step === "over" ? null : 7};
    m.renderHints(el, step === "turn" ? hints : null, opts);
    return el.hidden;
}"""


@pytest.mark.parametrize("lang", list(LOCALES))
def test_far_discards_are_ranked_and_the_panel_keeps_the_last_hints(server: str, chromium: Any, lang: str) -> None:
    """Far from ready: a row per rank, best first and marked, each with the tiles that improve
    after it; between decisions of the hand the last hints stay, marked as the last turn's; once
    the hand is over the panel goes."""
    from playwright.sync_api import expect

    errors: list[str] = []
    page = new_page(chromium, lang, "desktop", errors)
    sign_up(page, server)
    create_table_form(page, server, hints=False)
    assert page.evaluate(KEEP_JS, [FAR_HINTS, "turn"]) is False
    probe = page.locator("#mj-hints-probe")
    rows = probe.locator(".hint-row.hint-discard")
    expect(rows).to_have_count(3)  # rank 1 (1m, 9m), rank 3 (N), rank 4 (5s)
    assert [rows.nth(i).get_attribute("data-rank") for i in range(3)] == ["1", "3", "4"]
    first = rows.first
    expect(first).to_have_class(re.compile(r"\bbest\b"))
    expect(first.locator(".hint-tag.best")).to_have_count(1)
    expect(first.locator(".hint-tile[data-tile]")).to_have_count(2)
    expect(first.locator(".hint-total")).to_have_text("进张 24 张" if lang == "zh" else "24 tiles improve")
    expect(rows.nth(1).locator(".hint-total")).to_have_text("进张 20 张" if lang == "zh" else "20 tiles improve")
    expect(rows.nth(1).locator(".hint-tag.best")).to_have_count(0)
    expect(rows.nth(2).locator(".hint-after")).to_have_text("四向听" if lang == "zh" else "4 from ready")
    expect(probe.locator("#mj-hints-last")).to_have_count(0)
    probe.screenshot(path=str(ARTIFACTS / f"e2e-hints-ranked-{lang}.png"))
    offenders = [s for s in untranslated(page, lang) if any(s in t for t in probe.all_inner_texts())]
    assert offenders == [], offenders
    # Someone else's turn (no hints in the frame), same hand: the last hints stay, marked.
    assert page.evaluate(KEEP_JS, [FAR_HINTS, "between"]) is False
    expect(probe.locator("#mj-hints-last")).to_have_text("上一手" if lang == "zh" else "last turn")
    expect(probe).to_have_class(re.compile(r"\bstale\b"))
    expect(probe.locator(".hint-row.hint-discard")).to_have_count(3)
    # The hand is over: nothing.
    assert page.evaluate(KEEP_JS, [FAR_HINTS, "over"]) is True
    assert errors == []


def test_a_dimmed_tile_says_why(server: str, chromium: Any) -> None:
    """温州 holds single honours back (they go first): the other tiles are dimmed on our turn,
    each with the reason as its title, and a tap on one says it."""
    from playwright.sync_api import expect

    errors: list[str] = []
    page = new_page(chromium, "zh", "desktop", errors)
    sign_up(page, server)
    create_table(page, server, "wenzhou", hands=1)
    sit_fill_and_ready(page)
    dimmed = page.locator("#mj-hand .tile.dimmed[data-why]")
    end = time.monotonic() + TURN_TIMEOUT_S * 2
    while time.monotonic() < end and not dimmed.count():
        if page.locator("#mj-handend .handend-dialog").count():
            pytest.skip("this deal held no honour back on any of our turns")
        try:
            passes = page.locator("#mj-actions button[data-do=pass]")
            if passes.count():
                passes.first.click(timeout=1500)
            elif page.locator("#mj-hand .tile.playable").count():
                page.locator("#mj-hand .tile.playable").last.click(timeout=1500)
        except moved_on():
            pass
        page.wait_for_timeout(100)
    assert dimmed.count(), f"no dimmed tile with a reason; the server's log ends:\n{server_log_tail()}"
    title = dimmed.first.get_attribute("title") or ""
    assert re.search(r"[\u4e00-\u9fff]", title) and "_" not in title, title
    assert dimmed.first.get_attribute("data-why") in {
        "wenzhou_single_honours_first",
        "wenzhou_follow_single_honour",
        "wenzhou_caishen_no_discard",
    }
    playable = page.locator("#mj-hand .tile.playable").count()
    dimmed.first.click()
    expect(page.locator("#mj-toasts .toast").filter(has_text=title)).to_have_count(1)
    assert page.locator("#mj-hand .tile.playable").count() == playable  # the tap discarded nothing
    page.screenshot(path=str(ARTIFACTS / "e2e-hints-dimmed-why.png"))
    assert errors == []
