"""A score-only tournament table shows the hand's points, in a real browser.

Stake 0 moves no wallet unit, so the booked units are 0 for everyone, the winner included: the
hand-end dialog and the name plates show the hand's points and the match's score in points
instead.  The event (one player, bots fill the table) is made through the API.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.browser import new_page, play_until_hand_end, sign_up

pytestmark = pytest.mark.e2e

API = """async ([path, body]) => {
    const csrf = (document.cookie.match(/csrftoken=([^;]+)/) || [])[1] || "";
    const res = await fetch(path, {method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRFToken": csrf}, body: JSON.stringify(body)});
    return [res.status, await res.json()];
}"""
READ_HAND_END = """() => {
    const dialog = document.querySelector("#mj-handend .handend-dialog");
    if (!dialog) return null;
    const num = (text) => Number(String(text || "").replace(/[^\\d+-]/g, "") || "NaN");
    const rows = [...dialog.querySelectorAll(".he-hands tbody tr")];
    const winner = dialog.querySelector(".he-hands tbody tr.winner");
    return {
        deltas: rows.map((r) => Number(r.dataset.delta)),
        winner: winner ? Number(winner.dataset.delta) : null,
        winner_total: winner ? num(winner.querySelector(".he-total")?.textContent) : null,
        mine: num(document.getElementById("mj-my-delta")?.textContent),
        my_delta_attr: Number(dialog.dataset.myDelta),
        note: document.getElementById("mj-score-only")?.textContent || "",
        wallet_after: Boolean(document.getElementById("mj-wallet-after")),
        plates: [...document.querySelectorAll(".plate .plate-delta")].map((p) => p.textContent.trim()),
        replay: document.getElementById("mj-replay-link")?.getAttribute("href") || "",
        hand: Number(dialog.dataset.hand),
    };
}"""
# Each hand-end dialog read the moment it is drawn: at the tests' pace the next hand replaces it
# after a second, which a busy machine can spend before the test reads it.
KEEP_HAND_ENDS = (
    "() => { window.__handEnds = []; const read = "
    + READ_HAND_END
    + """;
    new MutationObserver(() => {
        const seen = read();
        if (seen && !window.__handEnds.some((s) => s.hand === seen.hand)) window.__handEnds.push(seen);
    }).observe(document.body, { childList: true, subtree: true });
}"""
)
NOTE = {"zh-CN": "比分赛", "en-US": "Score only"}


@pytest.mark.parametrize("lang", ["zh-CN", "en-US"])
def test_the_hand_end_and_the_plates_show_the_points(server: str, chromium: Any, lang: str) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    page = new_page(chromium, errors, lang=lang)
    sign_up(page, server)
    status, event = page.evaluate(
        API, ["/api/tournaments/", {"name": "Cup", "variant": "zhejiang_caishen", "rounds": 1, "hands_per_round": 4}]
    )
    assert status == 201, event
    assert event["stake"] == 0
    for path, body in (
        (f"/api/tournaments/{event['id']}/manage/", {"do": "open"}),
        (f"/api/tournaments/{event['id']}/register/", {}),
        (f"/api/tournaments/{event['id']}/manage/", {"do": "close"}),
        (f"/api/tournaments/{event['id']}/manage/", {"do": "start_round"}),
    ):
        status, answer = page.evaluate(API, [path, body])
        assert status in (200, 201), (path, answer)
    page.goto(f"{server}/tournaments/{event['id']}/")
    link = page.locator("main a[href^='/tables/']").first
    table_url = link.get_attribute("href")
    assert table_url is not None and re.match(r"^/tables/\d+/$", table_url)
    page.goto(f"{server}{table_url}")
    page.evaluate(KEEP_HAND_ENDS)

    dialog = page.locator("#mj-handend .handend-dialog")
    for played in range(1, 5):
        expect(page.locator("#mj-hand .tile")).not_to_have_count(0, timeout=15_000)
        play_until_hand_end(page, mid_shot=None)
        page.wait_for_function("(n) => window.__handEnds.length >= n", arg=played, timeout=15_000)
        seen = page.evaluate("(n) => window.__handEnds[n - 1]", played)
        assert NOTE[lang] in seen["note"]
        assert not seen["wallet_after"]  # no wallet moves: no balance line
        assert len(seen["deltas"]) == 4 and sum(seen["deltas"]) == 0, seen
        assert seen["mine"] == seen["my_delta_attr"], seen
        assert seen["replay"] == f"/hands/{seen['hand']}/replay/", seen  # the replay is one click away
        if seen["winner"] is None:  # a drawn hand scores nothing: play the next one
            expect(dialog).to_be_hidden(timeout=15_000)
            continue
        assert seen["winner"] > 0, f"the winner's row reads {seen['winner']}: {seen}"
        # The match score (points, kept by the server) and the winner's plate show it too.
        assert seen["winner_total"] > 0, seen
        assert f"+{seen['winner']}" in seen["plates"], seen
        break
    else:
        pytest.skip("four drawn hands in a row: nothing to score")
    assert not errors, f"JavaScript errors on the page: {errors}"
