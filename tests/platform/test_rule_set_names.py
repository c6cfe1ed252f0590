"""Every rule set has a name in both languages, and the pages use the reader's."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from games.engine.variants import all_variants
from games.rules.rule_set_names import NAMES, rule_set_name


@pytest.mark.parametrize("key", [v.key for v in all_variants()])
def test_every_rule_set_has_a_name_in_both_languages(key: str) -> None:
    assert key in NAMES
    with translation.override("zh-hans"):
        zh = rule_set_name(key)
    with translation.override("en"):
        en = rule_set_name(key)
    assert zh and en and zh != en
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in en), en
    assert any("\u4e00" <= ch <= "\u9fff" for ch in zh), zh


def test_an_unknown_key_is_shown_as_it_is() -> None:
    assert rule_set_name("no_such_rules") == "no_such_rules"


@pytest.mark.parametrize(
    ("lang", "want", "unwanted"), [("en", "Wenzhou Mahjong", "温州麻将"), ("zh-hans", "温州麻将", "Wenzhou Mahjong")]
)
def test_the_rules_index_and_the_create_form_name_the_rule_sets_in_the_readers_language(
    client: Any, db: Any, lang: str, want: str, unwanted: str
) -> None:
    client.cookies["django_language"] = lang
    for url in ("/rules/", "/rules/wenzhou/"):
        html = client.get(url, HTTP_ACCEPT_LANGUAGE=lang).content.decode()
        assert want in html, url
        assert unwanted not in html, url
