"""Every house option of every rule set has player words in zh-Hans and English.

The option keys and values stay the engine's (``pair_base = "one"``); what a player reads, on
the rules page and in the create-table form, comes from ``games.rules.option_text``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games.engine.variants import all_variants
from games.rules import option_text
from games.web.forms import form_options

CJK = re.compile(r"[\u4e00-\u9fff]")
OPTIONS = [(v.key, o) for v in all_variants() for o in v.options_schema.all()]


def _choices(option: Any) -> tuple[Any, ...]:
    return (True, False) if option.type is bool else option.choices


@pytest.mark.parametrize(("variant_key", "option"), OPTIONS, ids=lambda x: getattr(x, "key", x))
def test_every_option_and_choice_has_words_in_both_languages(variant_key: str, option: Any) -> None:
    words = option_text.words_for(variant_key, option)
    assert words is not None, f"{variant_key}.{option.key} has no player wording"
    assert CJK.search(words.label.zh) and re.search("[A-Za-z]{3}", words.label.en)
    if words.help is not None:
        assert words.help.zh and words.help.en
    for choice in _choices(option):
        with translation.override("zh-hans"):
            zh = option_text.choice_label(variant_key, option, choice)
        with translation.override("en"):
            en = option_text.choice_label(variant_key, option, choice)
        if isinstance(choice, int) and not isinstance(choice, bool):
            continue  # a number reads as itself in both languages
        assert zh != en, (option.key, choice)
        assert zh != str(choice) and en != str(choice), (option.key, choice)  # never the raw value


# An English reader may meet the wild families' names (财神 / 得 / 金), as the untranslated-string
# scan (tests/e2e/i18n_scan.py) allows, and no other Chinese; a Chinese reader no English word.
WILD_NAMES = "财神得金"


@pytest.mark.parametrize(("variant_key", "option"), OPTIONS, ids=lambda x: getattr(x, "key", x))
def test_each_language_s_words_are_in_that_language(variant_key: str, option: Any) -> None:
    words = option_text.words_for(variant_key, option)
    assert words is not None
    texts = [words.label, *([words.help] if words.help else []), *words.choices.values()]
    for text in texts:
        assert not [c for c in CJK.findall(text.en) if c not in WILD_NAMES], (option.key, text.en)
        assert not re.search("[A-Za-z]{2}", text.zh), (option.key, text.zh)


@pytest.mark.parametrize("key", [v.key for v in all_variants()])
def test_the_english_rules_text_holds_no_other_chinese(key: str) -> None:
    from games.rules import player_text

    english = player_text.source(key, "en")
    assert english is not None
    assert not [c for c in CJK.findall(english) if c not in WILD_NAMES], key


@pytest.mark.parametrize(("variant_key", "option"), OPTIONS, ids=lambda x: getattr(x, "key", x))
def test_labels_follow_the_reader_language(variant_key: str, option: Any) -> None:
    with translation.override("zh-hans"):
        zh = option_text.label(variant_key, option)
    with translation.override("en"):
        en = option_text.label(variant_key, option)
    assert zh != en and zh != option.key and en != option.key
    assert "SPEC" not in zh + en and "DECIDED" not in zh + en


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["zh-hans", "en"])
@pytest.mark.parametrize("variant", all_variants(), ids=lambda v: v.key)
def test_the_create_form_shows_options_in_words(variant: Any, lang: str) -> None:
    client = Client()
    client.force_login(get_user_model().objects.create_user("creator", password="pw-123456"))
    html = client.get(reverse("games:create") + f"?variant={variant.key}", HTTP_ACCEPT_LANGUAGE=lang).content.decode()

    html = html.replace("&#x27;", "'")
    with translation.override(lang):
        for option in form_options(variant):
            assert option_text.label(variant.key, option) in html, option.key
            for choice in option.choices:
                shown = option_text.choice_label(variant.key, option, choice)
                # the submitted value stays the engine's; the text between the tags is the words
                assert re.search(rf'<option value="{re.escape(str(choice))}"[^>]*>{re.escape(shown)}</option>', html)
    assert "SPEC" not in html and "DECIDED" not in html
