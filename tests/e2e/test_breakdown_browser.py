"""The hand-end dialog's score breakdown in the reader's language, in the browser.

Finished hands of every rule set (simulated bot hands, wins and draws) are handed to the table
page's own renderHandEnd (static/js/dialogs.js) as the table page receives them, in a page of the
site in Chinese and in English, at desktop and phone sizes.  Checked on each:
- an English breakdown line holds no Chinese character outside the tiles drawn as tiles, a
  Chinese one no English word (a line never shows the engine's label/detail text);
- no line worth nothing that moves nothing ("自摸 0 0番") is shown, unless it explains the hand;
- every line's value says its unit, never a bare number with a letter (K, R);
- the winning tile is marked in the winner's revealed hand;
- the dialog fits the screen's width.
Screenshots: var/test-artifacts/e2e-breakdown-<rule set>-<lang>-<size>.png.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import pytest

from games.engine.bots import make_bot
from games.engine.simulate import hand_seed, play_hand
from games.engine.variants import all_variants
from games.web.js_catalog import catalog_url
from tests.e2e.browser import new_page, shot

pytestmark = pytest.mark.e2e

SIZES = {"desktop": (1366, 768), "phone": (390, 844), "phone-landscape": (844, 390)}
LANGS = {"zh": "zh-CN", "en": "en-US"}
CJK = re.compile(r"[\u3400-\u9fff]")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
EXPLAINS = {"exhaustive_draw", "dealer", "contract", "false_win"}  # breakdown.js EXPLAINS


# Hand numbers of the seed "breakdown-browser", found once by playing them: three wins by greedy
# bots, and a draw by random bots (greedy bots with wild tiles hardly ever draw: none in 3,000
# hands of 浙江财神 or 浙东得).  test_the_kept_hands_end_as_kept says when a change to the deal
# or the bots moves them.
WINS = (0, 1, 2)
DRAWS = {"dongbei": 1, "wenzhou": 2, "zhangzhou": 0, "zhedong_de": 0, "zhejiang_caishen": 0}


@functools.cache
def finished_hands(variant_key: str) -> tuple[dict[str, Any], ...]:
    """The kept finished hands of the rule set as the table page's frame (the public view of the
    ended hand: revealed hands, the result), wins first, then the draw."""
    variant = next(v for v in all_variants() if v.key == variant_key)
    kept = [(i, "greedy") for i in WINS] + [(DRAWS[variant_key], "random")]
    found: list[dict[str, Any]] = []
    for i, bot in kept:
        hand = play_hand(variant, hand_seed("breakdown-browser", i), [make_bot(bot) for _ in range(4)]).hand
        assert hand.result is not None
        found.append(
            {
                "hand": {
                    "id": len(found) + 1,
                    "number": 1,
                    "status": "finished",
                    "winds": {"0": "E", "1": "S", "2": "W", "3": "N"},
                    "view": hand.public_view(),
                    "seed_hash": hand.seed_hash,
                    "deltas": None,
                },
                "seats": [{"name": f"P{n}"} for n in range(4)],
                "table": {"stake": 1, "hands_total": 1, "hands_played": 1, "status": "finished", "scores": {}},
                "you": 0,
            }
        )
    return tuple(found)


@pytest.mark.parametrize("variant", sorted(v.key for v in all_variants()))
def test_the_kept_hands_end_as_kept(variant: str) -> None:
    """Every rule set's breakdown is shown for wins and for a draw."""
    assert variant in DRAWS, f"{variant}: keep a hand number that draws"
    statuses = [frame["hand"]["view"]["result"]["status"] for frame in finished_hands(variant)]
    assert statuses == ["win"] * len(WINS) + ["draw"], f"{variant}: find new hand numbers ({statuses})"


RENDER = """async ([frame, catalog]) => {
  if (!document.querySelector("script[data-brk]")) {
    // The table's words, as the table page loads them before its modules.
    const words = document.createElement("script");
    words.src = catalog; words.dataset.brk = "1";
    document.head.append(words);
    await new Promise((ok) => { words.onload = ok; words.onerror = ok; });
  }
  if (!document.querySelector("link[data-brk]")) {
    const css = document.createElement("link");
    css.rel = "stylesheet"; css.href = "/static/css/table.css"; css.dataset.brk = "1";
    document.head.append(css);
    await new Promise((ok) => { css.onload = ok; css.onerror = ok; });
  }
  let el = document.getElementById("mj-handend");
  if (!el) {
    el = document.createElement("div"); el.id = "mj-handend"; el.className = "overlay"; document.body.append(el);
  }
  const m = await import("/static/js/dialogs.js");
  m.renderHandEnd(el, frame, { wallet: null, onClose() {} });
  // Each breakdown line's text without the tiles drawn as tiles (their faces are pictures).
  return [...el.querySelectorAll("#mj-breakdown tbody tr")].map((tr) => {
    const copy = tr.cloneNode(true);
    copy.querySelectorAll(".tile").forEach((t) => t.remove());
    return { code: tr.dataset.code, text: copy.textContent, value: tr.querySelector(".bd-value").textContent,
             payments: tr.querySelectorAll(".bd-pay .pay:not(.zero)").length,
             tiles: tr.querySelectorAll(".tile").length };
  });
}"""


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("variant", sorted(v.key for v in all_variants()))
def test_hand_end_breakdown_in_the_readers_language(
    server: str, chromium: Any, variant: str, lang: str, size: str
) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    page = new_page(chromium, errors, lang=LANGS[lang])
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{server}/")
    html_lang = page.get_attribute("html", "lang") or ""
    assert html_lang.lower().startswith("en" if lang == "en" else "zh"), html_lang
    for n, frame in enumerate(finished_hands(variant)):
        lines = page.evaluate(RENDER, [frame, catalog_url("en" if lang == "en" else "zh-hans")])
        result = frame["hand"]["view"]["result"]
        assert lines, f"{variant}: no breakdown line shown"
        for line in lines:
            text = line["text"]
            where = f"{variant} {lang} {line['code']}: {text!r}"
            if lang == "en":
                assert not CJK.search(text), where
            else:
                assert not LATIN_WORD.search(text), where
            assert not re.search(r"(?<![A-Za-z])[KRW](?![A-Za-z])", text), f"bare letter in {where}"
            zero = re.fullmatch(r"\s*(×0|0番|0 fan|0分|0 pts|0)?\s*", line["value"]) is not None
            if zero and not line["payments"]:
                assert line["code"] in EXPLAINS, f"a line worth nothing is shown: {where}"
        # The dialog leaves out exactly the engine's empty lines (worth nothing, moving nothing).
        kept = [
            b["code"]
            for b in result["breakdown"]
            if b["value"] or any(b.get("payments", {}).values()) or b["code"] in EXPLAINS
        ]
        assert [line["code"] for line in lines] == kept, variant
        dialog = page.locator("#mj-handend .handend-dialog")
        expect(dialog).to_be_visible()
        box = dialog.bounding_box()
        assert box is not None and box["x"] >= -1 and box["x"] + box["width"] <= width + 1, box
        marked = page.locator("#mj-handend .he-tiles .tile.win-tile")
        if result["status"] == "win" and result.get("win_tile"):
            winner_row = page.locator("#mj-handend .he-hands tr.winner")
            expect(winner_row.locator(".tile.win-tile")).to_have_count(1)
            expect(marked).to_have_count(1)
            assert marked.get_attribute("data-tile") == result["win_tile"]
        else:
            expect(marked).to_have_count(0)
        if n == 0:
            shot(page, f"e2e-breakdown-{variant}-{lang}-{size}.png")
    assert not errors, errors
