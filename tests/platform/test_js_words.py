"""The table's words come from the djangojs gettext catalog (games/web/js_catalog.py): every
message the JavaScript asks for is translated in locale/zh_Hans/LC_MESSAGES/djangojs.po and
compiled, the usual tool (makemessages' xgettext) collects the same messages, the pages load the
catalog before their modules from a cacheable address, and i18n.js says its words in both
languages with it."""

from __future__ import annotations

import gettext
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games import services
from games.web.js_catalog import catalog_version
from tests.js_words import LOCALE, ROOT, js_files, messages, placeholders, run_in_node
from tests.platform.test_i18n import read_po

PO = LOCALE / "djangojs.po"
I18N_JS = ROOT / "static" / "js" / "i18n.js"
# Django's makemessages runs xgettext with these for the djangojs domain.
XGETTEXT_KEYWORDS = ["gettext_noop", "gettext_lazy", "ngettext_lazy:1,2", "pgettext:1c,2", "npgettext:1c,2,3"]


def test_every_message_the_javascript_uses_has_its_chinese() -> None:
    catalog = read_po(PO)
    used = messages()
    assert len(used) > 400
    missing = sorted({m.msgid for m in used if not catalog.get(m.key)})
    assert not missing, f"djangojs.po lacks the Chinese of: {missing}"
    for m in used:
        english = m.plural if m.plural is not None else m.msgid
        assert placeholders(catalog[m.key]) == placeholders(english), f"{m.msgid!r}: the {{names}} differ"


def test_the_catalog_holds_only_used_messages_and_is_compiled() -> None:
    catalog = read_po(PO)
    stale = set(catalog) - {m.key for m in messages()}
    assert not stale, f"djangojs.po has messages no JavaScript uses: {sorted(map(str, stale))}"
    with (LOCALE / "djangojs.mo").open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
    older = [key for key, value in catalog.items() if compiled.get(key) != value]
    assert not older, f"djangojs.mo is older than djangojs.po (run compilemessages): {older}"


def test_makemessages_collects_the_same_messages(tmp_path: Path) -> None:
    """A translator's `manage.py makemessages -d djangojs` finds exactly these messages."""
    xgettext = shutil.which("xgettext")
    if xgettext is None:
        pytest.skip("xgettext (gettext) is not installed")
    pot = tmp_path / "djangojs.pot"
    subprocess.run(
        [xgettext, "--language=JavaScript", "--from-code=UTF-8", f"--output={pot}"]
        + [f"--keyword={k}" for k in XGETTEXT_KEYWORDS]
        + [str(p) for p in js_files()],
        check=True,
        timeout=60,
    )
    collected = {key if not isinstance(key, tuple) else key for key in read_po_ids(pot)}
    assert collected == {m.key for m in messages()}


def read_po_ids(path: Path) -> set[str | tuple[str, int]]:
    """The keys of a .pot's messages (their translations are empty there)."""
    keys: set[str | tuple[str, int]] = set()
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        fields = dict(re.findall(r'^(msgctxt|msgid|msgid_plural) ((?:".*"\n?)+)', block + "\n", re.M))
        if not fields.get("msgid"):
            continue
        text = {k: "".join(json.loads(s) for s in v.split("\n") if s) for k, v in fields.items()}
        if not text["msgid"]:
            continue
        key = f"{text['msgctxt']}\x04{text['msgid']}" if "msgctxt" in text else text["msgid"]
        keys.add((key, 0) if "msgid_plural" in text else key)
    return keys


@pytest.mark.django_db
@pytest.mark.parametrize(("accept", "language", "word"), [("zh-CN", "zh-hans", "余 {n} 张"), ("en", "en", "")])
def test_the_table_page_loads_a_cacheable_catalog_before_its_modules(accept: str, language: str, word: str) -> None:
    owner = get_user_model().objects.create_user(f"jc-{language}", password="pw-123456")
    table = services.create_table(owner, "zhejiang_caishen", {}, stake=1, hands_total=1)
    client = Client(HTTP_ACCEPT_LANGUAGE=accept)
    html = client.get(f"/tables/{table.pk}/").content.decode()
    src = f"/jsi18n/{language}/{catalog_version()}.js"
    assert f'<script src="{src}"></script>' in html
    assert html.index(src) < html.index('type="module" src="/static/js/table.js"')
    res = client.get(src)
    assert res.status_code == 200 and res["Content-Type"].startswith("text/javascript")
    assert "immutable" in res["Cache-Control"] and "max-age=31536000" in res["Cache-Control"]
    body = res.content.decode()
    escaped = json.dumps(word)[1:-1]  # the catalog's JSON escapes what is not ASCII
    assert "django.catalog" in body and (escaped in body if word else "\\u4f59" not in body)
    # The address names the language: the reader's cookie or headers do not change the text.
    assert Client(HTTP_ACCEPT_LANGUAGE="en").get(src).content == res.content
    # A page from before new words (another version): today's words, not kept for long.
    old = client.get(f"/jsi18n/{language}/0123456789abcdef.js")
    assert old.content == res.content and "immutable" not in old["Cache-Control"]
    packed = client.get(src, HTTP_ACCEPT_ENCODING="gzip")
    assert packed["Content-Encoding"] == "gzip" and len(packed.content) < len(res.content) / 2
    assert client.get("/jsi18n/fr/0123456789abcdef.js").status_code == 404
    assert client.post(src).status_code == 405


def run_i18n(lang: str, calls: list[list[Any]], tmp: Path) -> list[str]:
    """``t``/``tn`` of i18n.js in node on a page in ``lang`` with the catalog the page loads."""
    body = (
        "const words = await import(process.argv[1]);"
        "console.log(JSON.stringify(JSON.parse(process.argv[2]).map(([f, ...a]) => words[f](...a))));"
    )
    return list(run_in_node(lang, I18N_JS, body, calls, tmp))


CALLS: list[list[Any]] = [
    ["t", "tiles_left", {"n": 82}],
    ["t", "ready"],
    ["t", "is_ready"],
    ["tn", "rp_an_decisions", 1, {"n": 1}],
    ["tn", "rp_an_decisions", 2, {"n": 2}],
    ["tn", "stake_line", 1, {"stake": 5, "hands": 1, "turn": 20, "claim": 8}],
    ["verbLabel", "win", True],
    ["t", "no_such_word"],
    ["playerName", {"position": 2, "name": "Bot 3", "is_bot": True}],  # the frames' one name for all
    ["playerName", {"position": 1, "name": "小明", "is_bot": False}],
]


def test_i18n_js_says_its_words_in_both_languages_from_the_catalog(tmp_path: Path) -> None:
    assert run_i18n("zh-hans", CALLS, tmp_path) == [
        "余 82 张",
        "准备",
        "已准备",  # the same English "Ready", told apart by the message's context
        "1 次决策",
        "2 次决策",
        "底分 5 · 共 1 局 · 出牌 20 秒 · 吃碰 8 秒",
        "自摸",
        "no_such_word",
        "机器人 3",
        "小明",
    ]
    assert run_i18n("en", CALLS, tmp_path) == [
        "82 tiles left",
        "Ready",
        "Ready",
        "1 decision",
        "2 decisions",
        "Stake 5 · 1 hand · 20 s per turn · 8 s per claim",
        "Self-draw",
        "no_such_word",
        "Bot 3",
        "小明",
    ]
