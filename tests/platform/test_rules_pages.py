"""Rules pages: every rule set listed, its player rules in the reader's language, options in words.

The developers' SPEC sections stay readable through ``games.rules`` (tested below) but are
not on the player's page."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse
from django.utils.html import escape

from games import rules
from games.engine.variants import all_variants, get_variant
from games.rules import option_text
from games.rules.rule_set_names import NAMES

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture(autouse=True)
def live_settings(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_SWEEP_SECONDS = 0


@pytest.mark.django_db
def test_the_rules_index_lists_every_rule_set(client: Any) -> None:
    html = client.get(reverse("games:rules"), **EN).content.decode()

    for variant in all_variants():
        assert f'data-variant="{variant.key}"' in html
        assert escape(NAMES[variant.key].en) in html  # the reader's (English) name, not the engine's
        assert reverse("games:rule", args=[variant.key]) in html


ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
# What belongs to the developers' specification and never to a player's page.
JARGON = re.compile(r"SPEC|DECIDED|HOUSE|§|\bD[0-4](?:\.\d)+|\.txt|\.md\b|[Ss]ource text|Specification")


def _raw_values(variant: Any) -> set[str]:
    """The option keys and string choice values of ``variant`` that no sentence would hold by
    chance ("first_tier", "pair_base"…): the ones with an underscore."""
    raw = {o.key for o in variant.options_schema.all()}
    raw |= {c for o in variant.options_schema.all() for c in o.choices if isinstance(c, str)}
    return {r for r in raw if "_" in r}


def _cells(html: str, option: Any) -> list[str]:
    """The default and allowed-values cells of ``option``'s row, as text."""
    row = re.search(rf'<tr data-option="{option.key}"(.*?)</tr>', html, re.S)
    assert row is not None, option.key
    return [
        re.sub(r"<[^>]+>", "", cell).strip()
        for cell in re.findall(r'class="option-(?:default|allowed)">(.*?)</td>', row.group(1), re.S)
    ]


def _visible(html: str) -> str:
    """The page's text as a reader sees it: tags and attributes (data-option="…") removed."""
    body = html.split("<main", 1)[-1]
    return re.sub(r"<[^>]+>", " ", body)


@pytest.mark.django_db
@pytest.mark.parametrize("headers", [ZH, EN], ids=["zh", "en"])
@pytest.mark.parametrize("variant", all_variants(), ids=lambda v: v.key)
def test_a_rules_page_speaks_to_players_in_their_language(client: Any, variant: Any, headers: dict[str, str]) -> None:
    html = client.get(reverse("games:rule", args=[variant.key]), **headers).content.decode()

    text = _visible(html)
    assert not JARGON.search(text), JARGON.search(text)
    for raw in _raw_values(variant):
        assert not re.search(rf"\b{re.escape(raw)}\b", text), raw
    for option in variant.options_schema.all():
        raw = {c for c in option.choices if isinstance(c, str) and not c.isdigit()}
        if isinstance(option.default, str) and not option.default.isdigit():
            raw.add(option.default)
        for cell in _cells(html, option):
            shown = {part.strip() for part in cell.replace("房规", "").replace("house rule", "").split(" / ")}
            assert not shown & raw, (option.key, cell)
    english = headers is EN
    assert ("Worked example" in text) == english
    assert ("算例" in text) != english
    assert ("How scoring works" in text) == english
    assert "<h2>" in html.split('class="prose', 1)[1]  # the Markdown is rendered, not shown raw
    assert "**" not in text


@pytest.mark.django_db
@pytest.mark.parametrize("headers", [ZH, EN], ids=["zh", "en"])
def test_the_rules_index_has_no_spec_jargon(client: Any, headers: dict[str, str]) -> None:
    text = _visible(client.get(reverse("games:rules"), **headers).content.decode())

    assert not JARGON.search(text)
    for variant in all_variants():
        assert variant.key not in text


@pytest.mark.django_db
def test_the_options_table_marks_house_values(client: Any) -> None:
    variant = get_variant("zhejiang_caishen")

    html = client.get(reverse("games:rule", args=[variant.key]), **EN).content.decode()

    options = variant.options_schema.all()
    assert any(o.house for o in options) and any(not o.house for o in options)
    for option in options:
        row = re.search(rf'<tr data-option="{option.key}"(.*?)</tr>', html, re.S)
        assert row is not None, option.key
        assert escape(option_text.label(variant.key, option)) in row.group(1)
        assert ('data-house="true"' in row.group(0)) == option.house
        assert ("house rule" in row.group(1)) == option.house
    heaven = re.search(r'<tr data-option="multiplier_heaven"(.*?)</tr>', html, re.S).group(1)  # type: ignore[union-attr]
    assert re.search(r'class="option-default">4\b', heaven)
    assert "1–100" in heaven
    wild = re.search(r'<tr data-option="ron_on_discarded_wild"(.*?)</tr>', html, re.S).group(1)  # type: ignore[union-attr]
    assert 'class="option-default">No' in wild and "Yes / No" in wild


@pytest.mark.django_db
def test_the_options_table_shows_choices_in_words(client: Any) -> None:
    zh = client.get(reverse("games:rule", args=["wenzhou"]), **ZH).content.decode()
    en = client.get(reverse("games:rule", args=["wenzhou"]), **EN).content.decode()

    row_zh = re.search(r'<tr data-option="base_bets"(.*?)</tr>', zh, re.S).group(1)  # type: ignore[union-attr]
    row_en = re.search(r'<tr data-option="base_bets"(.*?)</tr>', en, re.S).group(1)  # type: ignore[union-attr]
    assert "庄闲之间无论谁赢都算" in row_zh and "symmetric" not in row_zh
    assert "Whoever wins between dealer and player" in row_en and "symmetric" not in row_en


@pytest.mark.django_db
def test_an_unknown_rule_set_is_404(client: Any) -> None:
    assert client.get("/rules/no_such_rules/").status_code == 404


@pytest.mark.parametrize(
    ("key", "section"),
    [("zhejiang_caishen", "D0"), ("zhedong_de", "D1"), ("wenzhou", "D2"), ("zhangzhou", "D3"), ("dongbei", "D4")],
)
def test_every_rule_set_has_its_spec_section(key: str, section: str) -> None:
    text = rules.rule_text(key)

    assert text is not None and text.startswith(f"## {section}:")
    html = rules.render(key)
    assert html is not None
    assert f"{section}.2 Specification" in html
    # GitHub-style lists directly under a paragraph still become lists.
    assert "<li>" in html and "\n- " not in html


@pytest.mark.parametrize("variant", all_variants(), ids=lambda v: v.key)
def test_the_page_text_and_the_source_document_are_the_repository_copies(variant: Any) -> None:
    # One copy of the specification (spec/README.md): the page shows SPEC.md's own section, and
    # the source document a variant names is beside it.
    text = rules.rule_text(variant.key)

    assert text is not None and text in rules.SPEC_FILE.read_text(encoding="utf-8")
    assert rules.SECTIONS[variant.key] == variant.spec_section
    assert (rules.SPEC_DIR / "rules" / variant.source).is_file()


def test_rule_texts_cannot_be_read_outside_their_folder() -> None:
    assert rules.rule_text("../__init__") is None
    assert rules.rule_text("missing") is None


def test_the_markdown_adapter_keeps_fenced_code_and_nests_lists() -> None:
    text = "Intro:\n- a\n  - b\n\n```\n- not a list\n```\n| x |\n|---|\n| 1 |\n"

    html = rules.markdown.markdown(rules.adapt(text), extensions=["tables", "fenced_code"])

    assert "<ul>\n<li>a<ul>\n<li>b</li>" in html
    assert "<code>- not a list" in html
    assert "<table>" in html


@pytest.mark.django_db
def test_the_home_page_links_the_lobby_and_the_rules(client: Any) -> None:
    html = client.get("/").content.decode()

    assert f'href="{reverse("games:lobby")}"' in html
    assert f'href="{reverse("games:rules")}"' in html
    for variant in all_variants():
        assert reverse("games:rule", args=[variant.key]) in html


@pytest.mark.django_db
@pytest.mark.parametrize("variant", all_variants(), ids=lambda v: v.key)
def test_every_registered_rule_set_has_a_rules_page(client: Any, variant: Any) -> None:
    response = client.get(reverse("games:rule", args=[variant.key]), **EN)

    assert response.status_code == 200
    html = response.content.decode()
    assert 'class="prose rules-player-text"' in html
    for option in variant.options_schema.all():
        row = re.search(rf'<tr data-option="{option.key}"(.*?)</tr>', html, re.S)
        assert row is not None, option.key
        assert ('data-house="true"' in row.group(0)) == option.house
