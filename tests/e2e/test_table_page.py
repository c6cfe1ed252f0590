"""The table page without a browser: the template wires the snapshot, the socket and the modules.

The browser test (test_browser_play.py) plays through this page; these checks run everywhere,
also where chromium is missing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games import services

JS = Path(__file__).resolve().parents[2] / "static" / "js"


@pytest.fixture
def table_and_owner(db: Any) -> tuple[Any, Any]:
    owner = get_user_model().objects.create_user("owner", password="pw-123456")
    table = services.create_table(owner, "zhejiang_caishen", {}, stake=3, hands_total=1)
    return table, owner


def test_the_page_embeds_the_snapshot_and_loads_the_table_module(client: Any, table_and_owner: Any) -> None:
    table, owner = table_and_owner
    client.force_login(owner)
    res = client.get(f"/tables/{table.pk}/")
    assert res.status_code == 200
    html = res.content.decode()
    assert f'data-ws-path="/ws/table/{table.pk}/"' in html
    assert f'data-user-id="{owner.pk}"' in html
    assert re.search(r'<script type="module" src="[^"]*js/table\.js"', html)
    embedded = re.search(r'<script id="initial-state" type="application/json">(.*?)</script>', html, re.S)
    assert embedded
    state = json.loads(embedded[1])
    assert state["table"]["id"] == table.pk
    assert state["table"]["stake"] == 3
    assert len(state["seats"]) == 4
    assert 'id="mj-stage"' in html


def test_a_watcher_gets_the_page_without_a_user(client: Any, table_and_owner: Any) -> None:
    table, _ = table_and_owner
    html = client.get(f"/tables/{table.pk}/").content.decode()
    assert 'data-user-id=""' in html


def test_every_module_import_resolves() -> None:
    """No build step: a wrong relative import would only show in the browser, so check them here."""
    modules = sorted(JS.glob("*.js"))
    assert {"table.js", "tiles.js", "net.js", "board.js"} <= {m.name for m in modules}
    for module in modules:
        for name in re.findall(r'^import .* from "(\./[^"]+)";', module.read_text(), re.M):
            assert (module.parent / name).is_file(), f"{module.name} imports missing {name}"


def test_tiles_are_drawn_not_unicode_glyphs() -> None:
    source = (JS / "tiles.js").read_text()
    assert not re.search(r"[\U0001F000-\U0001F02B]", source), "Unicode mahjong glyphs render as boxes"
    for face in ["萬", "東", "南", "西", "北", "中", "發", "春", "菊"]:
        assert face in source


# ------------------------------------------------------------------------------ every rule set
def words(lang: str = "zh") -> set[str]:
    """The keys of i18n.js's word list (one list: English messages, translated by the djangojs
    catalog; tests/platform/test_js_words.py checks every one has its Chinese)."""
    source = (JS / "i18n.js").read_text()
    block = re.search(r"^const WORDS = \{\n(.*?)^\};", source, re.S | re.M)
    assert block, "no WORDS in i18n.js"
    return set(re.findall(r"^  (\w+):", block[1], re.M))


def test_every_word_has_its_chinese() -> None:
    from tests.js_words import LOCALE, messages
    from tests.platform.test_i18n import read_po

    catalog = read_po(LOCALE / "djangojs.po")
    used = [m for m in messages() if m.path.endswith("i18n.js")]
    assert len(used) == len(words()), "one message per word"
    assert all(catalog.get(m.key) for m in used), [m.msgid for m in used if not catalog.get(m.key)]


@pytest.mark.parametrize("variant", ["zhejiang_caishen", "zhedong_de", "wenzhou", "dongbei", "zhangzhou"])
def test_the_page_names_the_rule_set_in_its_header(client: Any, db: Any, variant: str) -> None:
    from games.engine.variants import get_variant

    rules = get_variant(variant)  # a misspelt key raises here
    owner = get_user_model().objects.create_user(f"o-{variant}", password="pw-123456")
    table = services.create_table(owner, variant, {}, stake=1, hands_total=1)
    html = client.get(f"/tables/{table.pk}/").content.decode()
    assert re.search(rf'<h1 class="mj-title" id="mj-title">{re.escape(rules.display_name)}</h1>', html)
    assert f'href="/rules/{variant}/"' in html


def test_every_variant_verb_and_pre_hand_question_has_words() -> None:
    """The page labels a rule set's extra verbs (报听, 抢金, 抢暗杠) and explains its pre-hand
    questions (买底, 顶底, 飘); anything new still shows, by name, but should get words here."""
    from games.engine.variants import all_variants

    zh = words("zh")
    for verb in ("ready", "rob_gold", "rob_concealed_kong"):
        assert verb in zh or f"{verb}_decl" in zh
    for variant in all_variants():
        options = variant.validate_options({})
        for question in variant.pre_hand_questions(options, {}):
            assert f"pre_hand_explain_{question.key}" in zh, f"{variant.key}: explain {question.key}"
            for choice in question.choices:
                if isinstance(choice, bool):
                    assert f"choice_{question.key}_{str(choice).lower()}" in zh, f"{question.key}: {choice}"


def test_every_public_table_entry_has_a_label() -> None:
    """Every key a rule set puts in `view.table` gets a readable label (unknown ones show by name)."""
    from games.engine.variants import all_variants

    zh = words("zh")
    variant_js = (JS / "variant.js").read_text()
    centre = re.search(r"CENTRE_KEYS = new Set\(\[(.*?)\]\)", variant_js)
    assert centre, "variant.js names the keys the centre shows in CENTRE_KEYS"
    shown_in_centre = set(re.findall(r'"(\w+)"', centre[1]))
    for variant in all_variants():
        hand = variant.new_hand({}, {}, seed=f"labels-{variant.key}")
        for key in hand.view(0)["table"]:
            assert key in shown_in_centre or f"info_{key}" in zh, f"{variant.key}: no label for view.table[{key!r}]"
