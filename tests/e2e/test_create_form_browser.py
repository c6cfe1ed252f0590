"""Creating a table builds the rule set the list shows, in a real browser.

Picking 东北麻将 shows its options at once (static/js/create_table.js) and Create makes a 东北
table, never one of the rule set the page opened with; without JavaScript the first Create
shows 东北's options and the second makes the table.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.browser import new_page, shot, sign_up

pytestmark = pytest.mark.e2e
TABLE_URL = re.compile(r".*/tables/\d+/$")


@pytest.mark.parametrize("lang", ["zh-CN", "en-US"])
def test_picking_dongbei_and_pressing_create_makes_a_dongbei_table(server: str, chromium: Any, lang: str) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    page = new_page(chromium, errors, lang=lang)
    sign_up(page, server)
    page.goto(f"{server}/tables/new/")
    options = page.locator("#create-options")
    expect(options).to_have_attribute("data-options-of", "zhejiang_caishen")

    dongbei = "东北麻将" if lang.startswith("zh") else "Northeast Mahjong"  # the reader's name
    page.select_option("select[name=variant]", label=dongbei)

    # Its options at once, with no other step.
    expect(options).to_have_attribute("data-options-of", "dongbei")
    expect(options.locator("legend")).to_contain_text(dongbei)
    expect(options.locator("[name=opt_piao_max]")).to_have_count(1)
    expect(options.locator("[name=opt_multiplier_heaven]")).to_have_count(0)
    page.fill("input[name=hands_total]", "1")
    shot(page, f"e2e-create-dongbei-{lang}.png")
    page.locator("main form[method=post] button[type=submit]").click()

    page.wait_for_url(TABLE_URL)
    expect(page.locator("#mj-title")).to_have_text(dongbei)
    # Back to the form and over to 温州 and back: each shows its own options.
    page.goto(f"{server}/tables/new/")
    page.select_option("select[name=variant]", "wenzhou")
    expect(options).to_have_attribute("data-options-of", "wenzhou")
    page.select_option("select[name=variant]", "zhejiang_caishen")
    expect(options.locator("[name=opt_multiplier_heaven]")).to_have_count(1)
    assert not errors, f"JavaScript errors on the page: {errors}"


def test_without_javascript_the_server_shows_the_picked_rule_sets_options(server: str, chromium: Any) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    page = new_page(chromium, errors)
    sign_up(page, server)
    context = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="zh-CN", java_script_enabled=False)
    context.add_cookies(page.context.cookies())
    bare = context.new_page()
    bare.goto(f"{server}/tables/new/")
    bare.select_option("select[name=variant]", label="东北麻将")
    submit = bare.locator("main form[method=post] button[type=submit]")
    submit.click()

    expect(bare.locator("[data-switched]")).to_contain_text("东北麻将")
    expect(bare.locator("#create-options legend")).to_contain_text("东北麻将")
    bare.fill("input[name=hands_total]", "1")
    bare.locator("main form[method=post] button[type=submit]").click()

    bare.wait_for_url(TABLE_URL)
    expect(bare.locator("#mj-title")).to_have_text("东北麻将")
    context.close()
