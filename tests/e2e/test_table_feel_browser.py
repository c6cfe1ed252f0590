"""How the table feels, measured in the browser: a desktop felt that fills the window (1366×768
and 1920×1080: the height under the table's header, discards at least 24 px wide); call-outs on
the felt by the seat that acted (吃 碰 杠 和 自摸 and the rule sets' own), in both languages, still
under prefers-reduced-motion; the win's call-out before the result screen; sounds on by default
and one tap to mute, remembered on the account; with auto-pass on no claim button ever shows."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from tests.e2e.browser import ARTIFACTS, moved_on, play_until_hand_end
from tests.e2e.test_players_table_browser import boxes_together, open_page, quick_play_with_bots, unhurried_server

__all__ = ["unhurried_server"]  # the fixture, shared with the players' table tests

pytestmark = pytest.mark.e2e

# Records what the page did: every frame's events and legal actions, every call-out and claim
# button added, every sound played (data-last-sound on <html>).
PROBE = """
window.__events = [];
window.__offers = 0;
window.__callouts = [];
window.__buttons = [];
window.__sounds = [];
window.__handend = null;
const NativeWS = window.WebSocket;
window.WebSocket = class extends NativeWS {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (ev) => {
      let msg = null;
      try { msg = JSON.parse(ev.data); } catch { return; }
      for (const e of msg.events || []) window.__events.push({kind: e.kind, seat: e.seat, at: performance.now()});
      const legal = (msg.view || msg.hand?.view || {}).legal_actions || [];
      if (legal.some((a) => ["chow", "pung"].includes(a.do))) window.__offers += 1;
    });
  }
};
new MutationObserver((records) => {
  for (const r of records) {
    if (r.type === "attributes" && r.attributeName === "data-last-sound") {
      window.__sounds.push(document.documentElement.dataset.lastSound);
      continue;
    }
    for (const n of r.addedNodes) {
      if (!(n instanceof Element)) continue;
      if (n.classList.contains("callout")) {
        window.__callouts.push({key: n.dataset.key, chair: n.dataset.chair, text: n.textContent,
                                win: n.classList.contains("callout-win"), at: performance.now()});
      }
      for (const b of [n, ...n.querySelectorAll("button[data-do]")]) {
        if (b.matches && b.matches("#mj-actions button[data-do]")) window.__buttons.push(b.dataset.do);
      }
      if (!window.__handend && (n.matches?.(".handend-dialog") || n.querySelector?.(".handend-dialog"))) {
        window.__handend = performance.now();
      }
    }
  }
}).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-last-sound"] });
"""

CALLOUT_WORDS = {
    "zh-CN": {"pung": "碰", "self": "自摸", "ready": "报听", "you2": "双游", "rob_gold": "抢金", "piao": "飘×2"},
    "en": {"pung": "Pung!", "self": "Self-drawn!", "ready": "Ready!", "you2": "Double tour!",
           "rob_gold": "Robs the gold!", "piao": "Piao ×2!"},
}  # fmt: skip


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))


@pytest.mark.parametrize(("size", "hints"), [((1366, 768), False), ((1920, 1080), False), ((1366, 768), True)], ids=str)
def test_the_desktop_felt_fills_the_window(chromium: Any, server: str, size: tuple[int, int], hints: bool) -> None:
    """A table with 听牌 hints keeps the hints panel's room under the felt, in the window too."""
    from playwright.sync_api import expect

    width, height = size
    errors: list[str] = []
    context = chromium.new_context(viewport={"width": width, "height": height}, locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    if hints:
        from tests.e2e.browser import sign_up, sit_fill_and_ready
        from tests.e2e.test_hints_browser import create_table_form

        sign_up(page, server)
        create_table_form(page, server, hints=True)
        sit_fill_and_ready(page)
    else:
        quick_play_with_bots(page, server, "zhejiang_caishen")
    expect(page.locator("#mj-hand .tile").first).to_be_visible(timeout=20_000)
    # Our first discard: the bottom pond's tiles lie flat (unrotated), their width as drawn.
    playable = page.locator("#mj-hand .tile.playable")
    expect(playable.first).to_be_visible(timeout=20_000)
    end = time.monotonic() + 20
    while not page.locator("#mj-stage .pond-bottom .tile").count() and time.monotonic() < end:
        try:
            if playable.count():
                playable.last.click(timeout=1500)
            if page.locator("#mj-actions button[data-do=pass]").count():
                page.locator("#mj-actions button[data-do=pass]").first.click(timeout=1500)
        except moved_on():
            pass
        page.wait_for_timeout(100)
    boxes_together(page, "#mj-stage-wrap", "#mj-head", "#mj-hand")  # the header brought to the window's top
    seen = page.evaluate(
        """() => {
        const box = (sel) => { const r = document.querySelector(sel).getBoundingClientRect();
                               return {x: r.x, y: r.y, w: r.width, h: r.height}; };
        const pond = document.querySelector("#mj-stage .pond-bottom .tile");
        return {felt: box("#mj-stage-wrap"), head: box("#mj-head"), pond: pond ? pond.getBoundingClientRect().width : 0,
                hand: box("#mj-hand"), hints: box("#mj-hints"), innerHeight};
    }"""
    )
    felt, head = seen["felt"], seen["head"]
    shot(page, f"e2e-felt-{width}x{height}{'-hints' if hints else ''}.png")
    # The table's header (its controls) in the window, the felt under it down to the window's
    # bottom: the height available, less the wooden rim (12 px) and a few pixels.
    assert head["y"] >= -0.5, head
    assert felt["y"] + felt["h"] <= height + 0.5, (felt, height)
    room = height - (head["y"] + head["h"])
    hints_room = 92 if hints else 0  # table.js HINTS_ROOM
    assert felt["h"] >= room - hints_room - 48, f"the felt uses {felt['h']:.0f} of {room:.0f} px at {size}"
    if hints:
        panel = seen["hints"]
        assert felt["y"] + felt["h"] <= panel["y"] and panel["y"] + panel["h"] <= height + 0.5, (felt, panel)
    assert felt["x"] >= 0 and felt["x"] + felt["w"] <= width, felt
    assert seen["hand"]["y"] + seen["hand"]["h"] <= height + 0.5, seen["hand"]
    if size == (1366, 768):
        assert seen["pond"] >= 24, f"discards {seen['pond']:.1f} px wide"
    assert errors == []
    context.close()


@pytest.mark.parametrize(("lang", "size"), [("zh-CN", "desktop"), ("en", "portrait"), ("en", "desktop")])
@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_call_outs_say_who_did_what_by_their_seat(
    chromium: Any, server: str, lang: str, size: str, motion: str
) -> None:
    """The call-outs of fixed frames (as the socket brings them), in the page's language, placed
    by the acting seat; moving only without prefers-reduced-motion."""
    from tests.e2e.test_players_table_browser import SIZES

    width, height = SIZES[size]
    errors: list[str] = []
    touch = size != "desktop"
    context = chromium.new_context(
        viewport={"width": width, "height": height}, locale=lang, has_touch=touch, is_mobile=touch,
        reduced_motion=motion,
    )  # fmt: skip
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    quick_play_with_bots(page, server, "zhejiang_caishen")
    words = CALLOUT_WORDS[lang]
    found = page.evaluate(
        """async () => {
        const m = await import("/static/js/callouts.js");
        const winds = {"0": "E", "1": "S", "2": "W", "3": "N"};
        const frame = (events, extra = {}) =>
            ({type: "update", you: 0, table: {}, hand: {id: 1, winds, view: {}}, events, ...extra});
        const say = (f, prev = null) =>
            m.calloutsOf(prev, f).map((c) => ({chair: c.chair, key: c.key, text: c.text, win: c.win}));
        const piaoBefore = {table: {pre_hand: {key: "piao", answers: {"0": 0}}}};
        const piaoAfter = {type: "update", you: 0, events: [],
                           table: {pre_hand: {key: "piao", answers: {"0": 0, "2": 2}}}};
        const out = {
          pung: say(frame([{kind: "discard", seat: "E", tile: "5m"}, {kind: "pung", seat: "S", tile: "5m"}])),
          self: say(frame([{kind: "win", seat: "W", source: "self_draw"}, {kind: "hand_end"}],
                          {hand: {id: 1, winds, view: {result: {status: "win"}}}})),
          you: say(frame([{kind: "you", seat: "N", level: 2}])),
          ready: say(frame([{kind: "ready", seat: "S"}, {kind: "discard", seat: "S", tile: "1p"}])),
          robGold: say(frame([{kind: "rob_gold", seat: "E"}, {kind: "win", seat: "E", source: "rob_gold"}])),
          piao: say(piaoAfter, piaoBefore),
          snapshot: say({...frame([{kind: "pung", seat: "S"}]), type: "snapshot"}),
          quiet: say(frame([{kind: "discard", seat: "E", tile: "5m"}, {kind: "draw", seat: "S"}])),
        };
        // On the felt: the 下家's (chair 1: the right) pung, our own win (the bottom).
        const stage = document.getElementById("mj-stage");
        m.showCallouts(stage, {you: 0}, [...out.pung, {chair: 0, key: "callout_win", text: "和", win: true}]);
        const s = stage.getBoundingClientRect();
        const right = stage.querySelector(".callout[data-chair='1']");
        const mine = stage.querySelector(".callout[data-chair='0']");
        const mid = (el) => {
            const r = el.getBoundingClientRect();
            return {x: r.x + r.width / 2 - s.x, y: r.y + r.height / 2 - s.y};
        };
        out.placed = {stage: {w: s.width, h: s.height}, right: mid(right), mine: mid(mine),
                      anim: getComputedStyle(right).animationName,
                      winBurst: Boolean(mine.querySelector(".callout-burst"))};
        return out;
    }"""
    )
    assert [(c["chair"], c["text"]) for c in found["pung"]] == [(1, words["pung"])]
    assert [(c["chair"], c["text"], c["win"]) for c in found["self"]] == [(2, words["self"], True)]
    assert [(c["chair"], c["text"]) for c in found["you"]] == [(3, words["you2"])]
    assert [(c["chair"], c["text"]) for c in found["ready"]] == [(1, words["ready"])]
    assert [(c["chair"], c["text"], c["win"]) for c in found["robGold"]] == [(0, words["rob_gold"], True)]
    assert [(c["chair"], c["text"]) for c in found["piao"]] == [(2, words["piao"])]
    assert found["snapshot"] == [] and found["quiet"] == []
    placed = found["placed"]
    assert placed["right"]["x"] > placed["stage"]["w"] * 0.6, placed  # by the right-hand seat
    assert placed["mine"]["y"] > placed["stage"]["h"] * 0.55, placed  # by our own seat, below the centre
    assert placed["winBurst"]
    assert placed["anim"] == ("none" if motion == "reduce" else "mj-callout"), placed
    page.wait_for_timeout(100)
    shot(page, f"e2e-callouts-{size}-{lang}-{motion}.png")
    page.wait_for_timeout(1600)
    assert page.locator(".callout").count() == 0  # gone after a moment
    assert errors == []
    context.close()


@pytest.mark.parametrize(("lang", "size"), [("zh-CN", "desktop"), ("en", "portrait")])
def test_a_played_hand_calls_out_its_claims_and_win_with_sounds_on_by_default(
    chromium: Any, unhurried_server: str, lang: str, size: str
) -> None:
    """On a server that leaves a finished hand on screen (the fast pace deals the next hand after
    one second: the result screen then shows at once, over the call-out)."""
    from playwright.sync_api import expect

    server = unhurried_server
    errors: list[str] = []
    page = open_page(chromium, lang, size, errors)
    page.add_init_script(PROBE)
    quick_play_with_bots(page, server, "zhejiang_caishen")
    sound = page.locator("#mj-sound")
    expect(sound).to_have_attribute("aria-pressed", "false")  # sounds on by default
    play_until_hand_end(page, mid_shot=None, tap=size != "desktop")
    got = page.evaluate(
        "({events: window.__events, callouts: window.__callouts, sounds: window.__sounds, handend: window.__handend})"
    )
    claims = [e for e in got["events"] if e["kind"] in ("chow", "pung", "kong", "add_kong")]
    called = [c for c in got["callouts"] if not c["win"]]
    assert len(called) == len(claims), (claims, called)
    assert "turn" in got["sounds"], got["sounds"]
    if claims:
        assert "claim" in got["sounds"]
    wins = [e for e in got["events"] if e["kind"] == "win"]
    win_callouts = [c for c in got["callouts"] if c["win"]]
    assert len(win_callouts) == len(wins)
    if wins:
        assert "win" in got["sounds"]
        # The win is called out on the felt before the result screen covers it.
        assert got["handend"] is not None and got["handend"] - win_callouts[0]["at"] >= 1000, got
    shot(page, f"e2e-feel-hand-end-{size}-{lang}.png")
    # One tap mutes, on the account too.
    page.locator("#mj-handend .dialog-close").click()
    page.evaluate("window.scrollTo(0, 0)")
    sound.click()
    expect(sound).to_have_attribute("aria-pressed", "true")
    page.wait_for_function("() => fetch('/api/table-settings/').then((r) => r.json()).then((s) => s.sound === false)")
    assert page.evaluate("fetch('/api/table-settings/').then((r) => r.json())")["sound"] is False
    page.reload()
    expect(page.locator("#mj-sound")).to_have_attribute("aria-pressed", "true")
    assert errors == []


def test_with_auto_pass_no_claim_button_ever_shows(chromium: Any, server: str) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(chromium, "zh-CN", "desktop", errors)
    page.add_init_script(PROBE)
    from tests.e2e.browser import create_table, sign_up, sit_fill_and_ready

    sign_up(page, server)
    status = page.evaluate(
        """() => fetch("/api/table-settings/", {method: "PATCH", credentials: "same-origin",
              headers: {"Content-Type": "application/json",
                        "X-CSRFToken": (document.cookie.match(/csrftoken=([^;]+)/) || [])[1] || ""},
              body: JSON.stringify({auto_pass_claims: true})}).then((r) => r.status)"""
    )
    assert status == 200
    offered = 0
    for _hand in range(6):  # until a hand has offered us a chow or a pung
        create_table(page, server, "zhejiang_caishen", hands=1)
        sit_fill_and_ready(page)
        expect(page.locator("#mj-hand .tile").first).to_be_visible(timeout=20_000)
        play_until_hand_end(page, mid_shot=None)
        offered = page.evaluate("window.__offers")
        buttons = page.evaluate("window.__buttons")
        assert not [b for b in buttons if b in ("chow", "pung", "pass")], buttons
        if offered:
            break
    assert offered >= 1, "no hand offered a claim to pass"
    assert errors == []
    shot(page, "e2e-feel-auto-pass.png")
    assert re.search(r"\d", page.text_content("#mj-handend") or "")
