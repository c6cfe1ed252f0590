"""Rules pages and create-form options read as player text, in the reader's language.

Each rule set has player rules in zh-Hans and English with a worked example, and every option,
help and choice is in words: a page shows none of spec/rules/SPEC.md's wording ("SPEC D2.3.4",
"DECIDED", the source file's name) nor the options' raw values (`one`, `first_tier`,
`symmetric`), and a Chinese reader gets no English.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

import pytest

from games.engine.variants import all_variants
from tests.e2e.browser import new_page, shot, sign_up
from tests.e2e.i18n_scan import Scan

pytestmark = pytest.mark.e2e
SIZES = {"desktop": (1366, 768), "phone": (390, 844), "landscape": (844, 390)}
LANGS = {"zh-CN": "zh", "en-US": "en"}
JARGON = re.compile(r"SPEC|DECIDED|§|\bD[0-4]\.\d|\.txt\b|first_tier|one_sided|symmetric|[Ss]ource text")
KEYS = [v.key for v in all_variants()]


def _page(chromium: Any, errors: list[str], lang: str, size: str) -> Any:
    page = new_page(chromium, errors, lang=lang)
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    return page


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("lang", LANGS)
def test_rules_index_and_every_rule_set_read_as_player_text(server: str, chromium: Any, lang: str, size: str) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    page = _page(chromium, errors, lang, size)
    english = LANGS[lang] == "en"
    page.goto(f"{server}/rules/")
    expect(page.locator("html")).to_have_attribute("lang", "en" if english else re.compile(r"^zh"))
    body = page.locator("main").inner_text()
    assert not JARGON.search(body), JARGON.search(body)
    for key in KEYS:
        page.goto(f"{server}/rules/{key}/")
        prose = page.locator("article.rules-player-text")
        expect(prose).to_be_visible()
        expect(prose.locator("h3")).to_have_text("Worked example" if english else "算例")
        text = page.locator("main").inner_text()
        assert not JARGON.search(text), (key, JARGON.search(text))
        assert ("How scoring works" in text) == english and ("怎么算分" in text) != english
        # Nothing runs off a phone's screen sideways.
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, (key, overflow)
        shot(page, f"e2e-rules-{key}-{LANGS[lang]}-{size}.png")
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("lang", LANGS)
def test_create_form_shows_plain_option_labels(server: str, chromium: Any, lang: str, size: str) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    page = _page(chromium, errors, lang, size)
    english = LANGS[lang] == "en"
    sign_up(page, server)
    page.goto(f"{server}/tables/new/")
    page.select_option("select[name=variant]", "wenzhou")
    options = page.locator("#create-options")
    expect(options).to_have_attribute("data-options-of", "wenzhou")
    bets = options.locator("select[name=opt_base_bets]")
    # The values posted stay the engine's; the words shown are the player's.
    assert bets.locator("option").evaluate_all("os => os.map(o => o.value)") == ["symmetric", "one_sided"]
    shown = bets.locator("option").all_inner_texts()
    assert shown == (
        ["Whoever wins between dealer and player", "Only when the player who bet wins"]
        if english
        else ["庄闲之间无论谁赢都算", "只有下注的人赢时才算"]
    )
    text = options.inner_text()
    assert not JARGON.search(text), JARGON.search(text)
    assert ("Base between two non-dealers" in text) == english
    shot(page, f"e2e-create-options-{LANGS[lang]}-{size}.png")
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("lang", LANGS)
def test_rules_pages_and_every_rule_sets_options_are_all_in_the_readers_language(
    server: str, chromium: Any, lang: str, size: str
) -> None:
    """The untranslated-string scan (tests/e2e/i18n_scan.py) over the rules index, every rule
    set's page and the create form with every rule set's options: an English page shows no
    Chinese beyond the wild families' names (财神/得/金), a Chinese page no English words.
    The rule sets' own names are names, not words to translate."""
    errors: list[str] = []
    page = _page(chromium, errors, lang, size)
    scan = Scan(LANGS[lang], names=[v.display_name for v in all_variants()])
    page.goto(f"{server}/rules/")
    scan.check(page, "rules")
    for key in KEYS:
        page.goto(f"{server}/rules/{key}/")
        scan.check(page, key)
    username = f"e2e{secrets.token_hex(3)}"
    scan.names += [username, "小明"]  # the account's names are names too
    sign_up(page, server, username)
    page.goto(f"{server}/tables/new/")
    for key in KEYS:
        page.select_option("select[name=variant]", key)
        page.locator(f'#create-options[data-options-of="{key}"]').wait_for()
        scan.check(page, f"create-{key}")
    assert not any(scan.found.values()), scan.report()
    assert not errors, f"JavaScript errors on the page: {errors}"
