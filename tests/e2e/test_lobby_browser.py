"""The lobby and what surrounds a table, in a real browser, in both languages at desktop and
phone sizes: the invite link and the page asking for a private table's code, the live lobby and
"your tables", every form error at once, the stake bound, "1 hand", the countdown's unseating
note, the account's language kept across sign-ins, and the API token."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from games.engine.variants import all_variants
from tests.e2e.browser import create_table, sign_up
from tests.e2e.i18n_scan import untranslated

pytestmark = pytest.mark.e2e

SIZES = {"desktop": (1366, 768), "phone": (390, 844)}
LOCALES = {"zh": "zh-CN", "en": "en-US"}
# Each language at one size (English on the phone, the tighter fit), paired rather than crossed;
# tests/e2e/test_untranslated_scan.py reads every page in each language at each size.
CASES = [pytest.param(lang, size, id=f"{lang}-{size}") for lang, size in (("zh", "desktop"), ("en", "phone"))]


class Pages:
    """Browser contexts of one test (each its own cookies: its own visitor)."""

    def __init__(self, browser: Any, lang: str, size: str) -> None:
        self.browser, self.lang, self.size = browser, lang, size
        self.contexts: list[Any] = []
        self.errors: list[str] = []

    def new(self, lang: str | None = None) -> Any:
        width, height = SIZES[self.size]
        context = self.browser.new_context(
            viewport={"width": width, "height": height}, locale=LOCALES[lang or self.lang]
        )
        self.contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        return page

    def close(self) -> None:
        for c in self.contexts:
            c.close()


@pytest.fixture
def pages(chromium: Any, request: pytest.FixtureRequest) -> Iterator[Pages]:
    lang, size = request.node.callspec.params["lang"], request.node.callspec.params["size"]
    p = Pages(chromium, lang, size)
    yield p
    p.close()
    assert p.errors == []


def words(lang: str, zh: str, en: str) -> str:
    return zh if lang == "zh" else en


def in_language(page: Any, lang: str) -> None:
    """No string of the other language (names aside: players', bots', the rule sets')."""
    names = ["小明", *(v.display_name for v in all_variants())]
    main = [s for s in untranslated(page, lang, names) if not re.search(r"e2e[0-9a-f]{6}", s)]
    assert main == [], main


@pytest.mark.parametrize(("lang", "size"), CASES)
def test_a_private_table_asks_for_its_code_and_the_invite_link_opens_it(
    pages: Pages, server: str, lang: str, size: str
) -> None:
    from playwright.sync_api import expect

    owner = pages.new()
    sign_up(owner, server)
    owner.goto(f"{server}/tables/new/")
    owner.fill("input[name=hands_total]", "1")
    owner.check("input[name=is_private]")
    owner.locator("main form[method=post] button[type=submit]").click()
    owner.wait_for_url(re.compile(r".*/tables/\d+/$"))
    table_url = owner.url
    invite = owner.locator("#mj-invite-url")
    expect(invite).to_be_visible()
    link = invite.input_value()
    assert re.fullmatch(re.escape(table_url) + r"\?code=[A-Z0-9]+", link), link
    owner.locator("#mj-invite-copy").click()
    expect(owner.locator("#mj-invite-said")).not_to_be_empty()

    guest = pages.new()
    response = guest.goto(table_url)
    assert response is not None and response.status == 404
    expect(guest.locator("#table-code h1")).to_have_text(words(lang, "需要房间号", "Room code needed"))
    expect(guest.locator("#table-code input[name=room_code]")).to_be_visible()
    in_language(guest, lang)
    guest.goto(link)  # the invite link: straight to the table, the code remembered
    guest.wait_for_url(table_url)
    expect(guest.locator("#mj-app")).to_be_visible()
    guest.goto(table_url)
    expect(guest.locator("#mj-app")).to_be_visible()


@pytest.mark.parametrize(("lang", "size"), CASES)
def test_the_lobby_updates_itself_and_home_lists_my_tables(pages: Pages, server: str, lang: str, size: str) -> None:
    from playwright.sync_api import expect

    watcher = pages.new()
    watcher.goto(f"{server}/tables/")
    maker = pages.new()
    sign_up(maker, server)
    create_table(maker, server, hands=1)
    pk = re.search(r"/tables/(\d+)/", maker.url)[1]  # type: ignore[index]
    # No reload: the lobby's own poll brings the new table in.
    expect(watcher.locator(f"[data-live=public-tables] tr[data-table='{pk}']")).to_be_visible(timeout=15_000)
    maker.goto(f"{server}/")
    row = maker.locator(f"#home-my-tables tr[data-table='{pk}']")
    expect(row).to_be_visible()
    expect(maker.locator("#home-my-tables h2")).to_have_text(words(lang, "我的牌桌", "Your tables"))
    in_language(maker, lang)


@pytest.mark.parametrize(("lang", "size"), CASES)
def test_the_create_form_shows_every_error_at_once_and_bounds_the_stake(
    pages: Pages, server: str, lang: str, size: str
) -> None:
    from playwright.sync_api import expect

    page = pages.new()
    sign_up(page, server)
    page.goto(f"{server}/tables/new/")
    page.fill("input[name=hands_total]", "0")
    page.fill("input[name=turn_seconds]", "1")
    page.fill("input[name=claim_seconds]", "999")
    page.locator("main form[method=post] button[type=submit]").click()
    errors = page.locator(".field-invalid .field-errors")
    expect(errors).to_have_count(3)  # all three at once, not the browser's one bubble
    for text in errors.all_inner_texts():
        assert untranslated_text(text, lang) == [], text
    page.fill("input[name=hands_total]", "1")
    page.fill("input[name=turn_seconds]", "20")
    page.fill("input[name=claim_seconds]", "8")
    page.fill("input[name=stake]", "1000")  # 1000 x 20 per seat: no wallet holds that
    page.locator("main form[method=post] button[type=submit]").click()
    refused = page.locator("[data-refused]")
    expect(refused).to_contain_text("1000")
    expect(refused).to_contain_text(words(lang, "无人能坐", "nobody could sit"))
    assert "/tables/new/" in page.url


def untranslated_text(text: str, lang: str) -> list[str]:
    from tests.e2e.i18n_scan import offending

    return [text] if offending(text, lang) else []


@pytest.mark.parametrize(("lang", "size"), CASES)
def test_one_hand_is_one_hand_and_the_countdown_says_it_unseated_you(
    pages: Pages, server: str, lang: str, size: str
) -> None:
    from playwright.sync_api import expect

    page = pages.new()
    sign_up(page, server)
    create_table(page, server, hands=1)
    room = page.locator("#mj-room")
    expect(room).to_be_visible()
    assert "1 hands" not in room.inner_text()
    if lang == "en":
        expect(room).to_contain_text("1 hand ")
    expect(room.locator(".chair.you")).to_have_count(1)  # the creator sits at once
    room.locator("[data-cmd=bots]").click()
    expect(room.locator(".chair[data-bot='1']")).to_have_count(3)
    room.locator("[data-cmd=ready]").click()
    confirm = page.locator("#mj-confirm")
    expect(confirm).to_be_visible()
    assert "1 hands" not in confirm.inner_text()
    # Not confirmed: three ready bots and the owner not ready start the countdown (8 s here).
    confirm.locator("[data-cmd=cancel-ready]").click()
    notice = page.locator("#mj-notice")
    expect(notice).to_be_visible(timeout=20_000)
    expect(notice).to_contain_text(words(lang, "离开座位", "unseated"))
    expect(room.locator(".chair.you")).to_have_count(0)


@pytest.mark.parametrize(("lang", "size"), CASES)
def test_the_language_switch_is_kept_on_the_account(pages: Pages, server: str, lang: str, size: str) -> None:
    other = "en" if lang == "zh" else "zh"
    code = "en" if other == "en" else "zh-hans"
    page = pages.new()
    username = f"e2e{secrets.token_hex(3)}"
    sign_up(page, server, username)
    page.locator(f".lang-switch button[value='{code}']").click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang").lower().startswith(other[:2])
    # Another browser, reading the first language: signing in brings the account's choice.
    fresh = pages.new()
    fresh.goto(f"{server}/accounts/login/")
    fresh.fill("input[name=username]", username)
    fresh.fill("input[name=password]", "Fa1r-Play-2026")
    fresh.locator("main form button[type=submit]").click()
    fresh.wait_for_selector("#wallet-balance")
    assert fresh.locator("html").get_attribute("lang").lower().startswith(other[:2])


@pytest.mark.parametrize(("lang", "size"), CASES)
def test_a_token_made_on_the_profile_page_reads_the_api(pages: Pages, server: str, lang: str, size: str) -> None:
    from playwright.sync_api import expect

    page = pages.new()
    username = f"e2e{secrets.token_hex(3)}"
    sign_up(page, server, username)
    page.goto(f"{server}/accounts/profile/")
    expect(page.locator("#api-token-none")).to_be_visible()
    in_language(page, lang)
    page.locator("#api-token-make").click()
    key = page.locator("#api-token-key").input_value()
    assert re.fullmatch(r"csn_[A-Za-z0-9_-]{40}", key), key  # shown once; the database keeps its digest
    script = pages.new()  # no session: only the header
    answer = script.request.get(f"{server}/api/account/", headers={"Authorization": f"Token {key}"})
    assert answer.status == 200 and answer.json()["username"] == username
    page.goto(f"{server}/accounts/profile/")  # named by its prefix, with when it was last used
    expect(page.locator("#api-token-exists code")).to_have_text(key[:10] + "…")
    expect(page.locator("#api-token-last-used")).to_contain_text(words(lang, "上次使用于", "Last used"))
    refused = script.request.post(
        f"{server}/api/tables/1/stand/", headers={"Authorization": f"Token {key}", "Accept-Language": LOCALES[lang]}
    )
    assert refused.status in (400, 404)
    page.goto(f"{server}/accounts/profile/")
    page.locator("#api-token-revoke").click()
    expect(page.locator("#api-token-none")).to_be_visible()
    gone = script.request.get(f"{server}/api/account/", headers={"Authorization": f"Token {key}"})
    assert gone.status in (401, 403)


@pytest.mark.parametrize(("lang", "size"), CASES)
def test_the_waiting_room_says_whether_the_match_is_rated_and_the_owner_may_rate_it_with_bots(
    pages: Pages, server: str, lang: str, size: str
) -> None:
    from playwright.sync_api import expect

    page = pages.new()
    sign_up(page, server)
    create_table(page, server, hands=1)
    room = page.locator("#mj-room")
    expect(room.locator(".chair.you")).to_have_count(1)  # the creator sits at once
    room.locator("[data-cmd=bots]").click()
    expect(room.locator(".chair[data-bot='1']")).to_have_count(3)
    note = room.locator(".room-rating")
    expect(note).to_have_attribute("data-rated", "0")
    expect(note).to_contain_text(words(lang, "有机器人的牌局不计等级分", "A match with bots does not count"))
    box = room.locator("#mj-rated-with-bots")
    expect(box).not_to_be_checked()
    box.check()
    expect(note).to_have_attribute("data-rated", "1")
    expect(note).to_contain_text(words(lang, "本场计入等级分", "This match counts for ratings"))
    page.reload()  # the option is the server's, not the page's
    expect(page.locator("#mj-rated-with-bots")).to_be_checked()
    in_language(page, lang)

    # A table with hints says it is not rated, and offers no such box.
    page.goto(f"{server}/tables/new/")
    page.fill("input[name=hands_total]", "1")
    page.check("input[name=hints]")
    page.locator("main form[method=post] button[type=submit]").click()
    page.wait_for_url(re.compile(r".*/tables/\d+/$"))
    expect(page.locator("#mj-room .room-rating")).to_contain_text(words(lang, "听牌提示", "Hints are on"))
    expect(page.locator("#mj-rated-with-bots")).to_have_count(0)


@pytest.mark.parametrize(("lang", "size"), CASES)
def test_a_room_button_pressed_while_someone_sits_down_still_answers(
    pages: Pages, server: str, lang: str, size: str
) -> None:
    """The room redraws what a frame changed, not the buttons under the owner's pointer: a press
    on "Fill with bots" held while a guest takes a chair (the chairs redrawn between the press
    and its release) still fills the chairs left, at the level chosen before."""
    from playwright.sync_api import expect

    owner = pages.new()
    sign_up(owner, server)
    create_table(owner, server, hands=1)
    room = owner.locator("#mj-room")
    expect(room.locator(".chair.you")).to_have_count(1)
    room.locator("#mj-bot-level").select_option("easy")
    fill = room.locator("[data-cmd=bots]")
    box = fill.bounding_box()
    assert box is not None
    owner.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    owner.mouse.down()

    guest = pages.new()
    sign_up(guest, server)
    guest.goto(owner.url)
    guest.locator("#mj-room [data-cmd=sit]").first.click()
    expect(guest.locator("#mj-room .chair.you")).to_have_count(1)
    # The owner's room has drawn the guest's chair while the button is still held down.
    expect(room.locator(".chair:not(.empty)")).to_have_count(2)
    expect(room.locator("#mj-bot-level")).to_have_value("easy")

    owner.mouse.up()
    bots = room.locator(".chair[data-bot='1']")
    expect(bots).to_have_count(2)
    expect(bots.first).to_contain_text(words(lang, "机器人 · 简单", "Bot · easy"))
