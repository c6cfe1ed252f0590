"""The table page's per-account settings, quick phrases, leave control and discard confirmation,
in both languages at desktop and phone sizes."""

from __future__ import annotations

import re
import secrets
from typing import Any

import pytest

from tests.e2e.browser import create_table, sign_up

pytestmark = pytest.mark.e2e
# Every size and both languages, paired rather than crossed (the English words on an upright phone
# are the tightest fit); tests/e2e/test_untranslated_scan.py reads every page in each language at
# each size.
SIZES = [("zh-CN", 1366, 768), ("en-US", 390, 844), ("en-US", 844, 390)]
WORDS = {
    "zh-CN": {"leave_rule": "机器人托管", "discard_q": "打出", "hello": "你好", "prefs": "牌桌设置"},
    "en-US": {
        "leave_rule": "a bot (托管) plays it",
        "discard_q": "Discard",
        "hello": "Hello",
        "prefs": "Table settings",
    },
}


def new_page(chromium: Any, lang: str, width: int, height: int, errors: list[str]) -> Any:
    context = chromium.new_context(viewport={"width": width, "height": height}, locale=lang)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page


def log_in(page: Any, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "Fa1r-Play-2026")
    page.locator("main form button[type=submit]").click()
    page.wait_for_selector("#wallet-balance")


def open_prefs(page: Any) -> Any:
    page.evaluate("window.scrollTo(0, 0)")
    page.locator("#mj-gear").click()
    panel = page.locator("#mj-prefs")
    from playwright.sync_api import expect

    expect(panel).to_be_visible()
    return panel


@pytest.mark.parametrize(("lang", "width", "height"), SIZES, ids=str)
def test_settings_are_saved_remembered_and_used(server: str, chromium: Any, lang: str, width: int, height: int) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    words = WORDS[lang]
    page = new_page(chromium, lang, width, height, errors)
    username = f"pref{secrets.token_hex(3)}"
    sign_up(page, server, username)
    create_table(page, server, "zhejiang_caishen", hands=1)
    url = page.url
    panel = open_prefs(page)
    expect(panel.locator("h2")).to_have_text(words["prefs"])
    expect(panel.locator("[name=sound]")).to_be_checked()  # the sounds on by default
    for name in ("auto_pass_claims", "auto_win", "tsumogiri", "confirm_discard", "one_tap_discard"):
        expect(panel.locator(f"[name={name}]")).not_to_be_checked()  # the rest off
    panel.locator("[name=sound]").uncheck()
    panel.locator("[name=confirm_discard]").check()
    panel.locator("#mj-prefs-save").click()
    expect(panel).to_be_hidden()
    # Remembered after a reload, and in a new browser context of the same account.
    page.reload()
    panel = open_prefs(page)
    expect(panel.locator("[name=sound]")).not_to_be_checked()
    expect(panel.locator("[name=confirm_discard]")).to_be_checked()
    expect(panel.locator("[name=auto_win]")).not_to_be_checked()
    panel.locator("button.secondary").click()
    other = new_page(chromium, lang, width, height, errors)
    log_in(other, server, username)
    other.goto(url)
    other_panel = open_prefs(other)
    expect(other_panel.locator("[name=sound]")).not_to_be_checked()
    expect(other_panel.locator("[name=confirm_discard]")).to_be_checked()
    other.context.close()

    # Play: a discard asks first ("打出 X？"); cancelling keeps the tile.
    room = page.locator("#mj-room")
    expect(room.locator(".chair.you")).to_have_count(1)  # the creator sits at once
    room.locator("[data-cmd=bots]").click()
    room.locator("[data-cmd=ready]").click()
    page.locator("#mj-confirm [data-cmd=confirm-ready]").click()
    playable = page.locator("#mj-hand .tile.playable")
    expect(playable.first).to_be_visible(timeout=20_000)
    count = page.locator("#mj-hand .tile").count()
    playable.last.click()
    if page.locator("#mj-hand[data-select-first='1']").count():
        page.locator("#mj-hand .tile.selected").click()
    ask = page.locator("#mj-confirm-discard")
    expect(ask).to_be_visible()
    expect(ask.locator("h2")).to_contain_text(words["discard_q"])
    ask.locator("[data-cmd=ask-no]").click()
    expect(ask).to_have_count(0)
    assert page.locator("#mj-hand .tile").count() == count

    # Leave: the escape rule is said before confirming; confirmed, the seat has left.
    page.evaluate("window.scrollTo(0, 0)")
    page.locator("#mj-leave").click()
    leave = page.locator("#mj-confirm-leave")
    expect(leave.locator(".ask-text")).to_contain_text(words["leave_rule"])
    leave.locator("[data-cmd=ask-yes]").click()
    expect(page.locator("#mj-leave")).to_be_hidden(timeout=10_000)
    assert not errors, errors


def test_the_panel_opens_on_the_accounts_settings_when_they_come_back_late(server: str, chromium: Any) -> None:
    """The account's settings are read when the page opens; a player who opens the panel before
    that read comes back sees the account's settings, not the defaults (saving those would
    overwrite the account's)."""
    from playwright.sync_api import expect

    errors: list[str] = []
    page = new_page(chromium, "en-US", 1366, 768, errors)
    sign_up(page, server, f"late{secrets.token_hex(3)}")
    create_table(page, server, "zhejiang_caishen", hands=1)
    panel = open_prefs(page)
    panel.locator("[name=sound]").uncheck()  # on by default: the account's "off" differs from the page's default
    panel.locator("#mj-prefs-save").click()
    expect(panel).to_be_hidden()

    held: list[Any] = []  # the page's read of the account's settings, held back

    def hold_the_read(route: Any) -> None:
        if route.request.method == "GET":
            held.append(route)
        else:
            route.continue_()

    page.route("**/api/table-settings/", hold_the_read)
    page.reload(wait_until="domcontentloaded")
    while not held:
        page.wait_for_timeout(50)
    page.locator("#mj-gear").click()  # before the read has come back
    page.wait_for_timeout(300)
    held[0].continue_()
    expect(page.locator("#mj-prefs [name=sound]")).not_to_be_checked()
    assert not errors, errors


@pytest.mark.parametrize(("lang", "width", "height"), SIZES, ids=str)
def test_an_emote_shows_at_another_seats_page_and_a_watchers(
    server: str, chromium: Any, lang: str, width: int, height: int
) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    words = WORDS[lang]
    first = new_page(chromium, "zh-CN", 1366, 768, errors)
    sign_up(first, server)
    create_table(first, server, "zhejiang_caishen", hands=1)
    url = first.url
    expect(first.locator("#mj-room .chair.you")).to_have_count(1)  # the creator sits at once
    second = new_page(chromium, lang, width, height, errors)
    sign_up(second, server)
    second.goto(url)
    second.locator("#mj-room .room-actions [data-cmd=sit]").click()
    expect(second.locator("#mj-room .chair.you")).to_have_count(1)
    watcher = new_page(chromium, lang, width, height, errors)
    watcher.goto(url)
    expect(watcher.locator("#mj-emote")).to_be_hidden()  # watchers cannot send one
    expect(first.locator("#mj-emote")).to_be_visible()
    first.wait_for_timeout(500)  # the sockets follow the new seats
    first.locator("#mj-emote").click()
    first.locator("[data-emote=hello]").click()
    for page in (second, watcher):
        bubble = page.locator(".emote-bubble[data-emote=hello]")
        expect(bubble).to_have_text(words["hello"])
    expect(second.locator(".emote-bubble")).to_have_count(0, timeout=8_000)  # gone after a few seconds
    assert not [e for e in errors if not re.search("WebSocket", e)], errors
