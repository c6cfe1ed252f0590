"""Rules pages: every rule set listed, its SPEC section rendered, its options with HOUSE values marked."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse
from django.utils.html import escape

from games import rules
from games.engine.variants import all_variants, get_variant

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
        assert escape(variant.display_name) in html
        assert reverse("games:rule", args=[variant.key]) in html


@pytest.mark.django_db
def test_a_rules_page_shows_name_source_and_the_spec_section(client: Any) -> None:
    variant = get_variant("zhejiang_caishen")

    response = client.get(reverse("games:rule", args=[variant.key]), **EN)

    assert response.status_code == 200
    html = response.content.decode()
    assert escape(variant.display_name) in html
    assert variant.source in html
    assert "§D0" in html
    # The SPEC section, rendered: headings, lists and emphasis, not raw Markdown.
    assert "<h3>D0.2 Specification</h3>" in html
    assert "<li><strong>吃 chow:</strong>" in html
    assert "**" not in html.split('class="prose"')[1]


@pytest.mark.django_db
def test_the_options_table_marks_house_values(client: Any) -> None:
    variant = get_variant("zhejiang_caishen")

    html = client.get(reverse("games:rule", args=[variant.key]), **EN).content.decode()

    options = variant.options_schema.all()
    assert any(o.house for o in options) and any(not o.house for o in options)
    for option in options:
        row = re.search(rf'<tr data-option="{option.key}"(.*?)</tr>', html, re.S)
        assert row is not None, option.key
        assert escape(option.label) in row.group(1)
        assert ('data-house="true"' in row.group(0)) == option.house
        assert ("house rule" in row.group(1)) == option.house
    # Defaults and allowed values.
    heaven = re.search(r'<tr data-option="multiplier_heaven"(.*?)</tr>', html, re.S).group(1)  # type: ignore[union-attr]
    assert re.search(r'class="option-default">4\b', heaven)
    assert "1–100" in heaven
    wild = re.search(r'<tr data-option="ron_on_discarded_wild"(.*?)</tr>', html, re.S).group(1)  # type: ignore[union-attr]
    assert 'class="option-default">no' in wild and "yes or no" in wild


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
    assert f"§{variant.spec_section}" in html
    assert f"<h2>{variant.spec_section}:" in html  # its SPEC section is there, rendered
    for option in variant.options_schema.all():
        row = re.search(rf'<tr data-option="{option.key}"(.*?)</tr>', html, re.S)
        assert row is not None, option.key
        assert ('data-house="true"' in row.group(0)) == option.house
