"""The create-table form builds the rule set its list shows.

The list is a field of the one POST form, so picking 东北麻将 and pressing Create posts 东北麻将,
never the rule set the page was opened with.  The page's script swaps in the picked rule set's
options, and without the script the server shows them (``options_for``) instead of creating a
table.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games.engine.variants import all_variants, get_variant
from games.models import Table
from games.web.forms import form_options

pytestmark = pytest.mark.django_db
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
TERMS = {"stake": "3", "hands_total": "2", "turn_seconds": "20", "claim_seconds": "8"}


@pytest.fixture
def client_in() -> Client:
    c = Client()
    c.force_login(get_user_model().objects.create_user("creator", password="pw-123456"))
    return c


def post_forms(html: str) -> list[str]:
    return re.findall(r"<form[^>]*method=\"post\"[^>]*>.*?</form>", html, flags=re.S)


def defaults(variant_key: str) -> dict[str, str]:
    data: dict[str, str] = {}
    for option in form_options(get_variant(variant_key)):
        if option.type is bool:
            if option.default:
                data[f"opt_{option.key}"] = "on"
        else:
            data[f"opt_{option.key}"] = str(option.default)
    return data


def test_the_rule_set_list_is_part_of_the_form_that_creates(client_in: Client) -> None:
    html = client_in.get(reverse("games:create"), **EN).content.decode()

    forms = [f for f in post_forms(html) if 'name="hands_total"' in f]
    assert len(forms) == 1
    select = re.search(r"<select[^>]*name=\"variant\"[^>]*>.*?</select>", forms[0], flags=re.S)
    assert select is not None, "the rule set's list must be inside the POST form"
    assert {v.key for v in all_variants()} == set(re.findall(r'<option value="([^"]+)"', select.group(0)))
    assert ">Choose<" not in html  # no separate step
    # Every other rule set's options are on the page, inert, for the script to show at once.
    for v in all_variants():
        if v.key != "zhejiang_caishen":
            assert f'<template data-options-of="{v.key}">' in html
    assert "js/create_table.js" in html


def test_posting_another_rule_set_than_the_options_shows_its_options(client_in: Client) -> None:
    """Without JavaScript: the list says 东北, the options shown were 财神's — no table yet."""
    data = {"variant": "dongbei", "options_for": "zhejiang_caishen", **TERMS, **defaults("zhejiang_caishen")}

    response = client_in.post(reverse("games:create"), data, **EN)

    assert response.status_code == 200
    assert not Table.objects.exists()
    html = response.content.decode()
    assert "data-switched" in html and "These are the options of Northeast Mahjong" in html
    live = html.split('id="create-options"', 1)[1].split("<legend>Table</legend>", 1)[0]
    for option in form_options(get_variant("dongbei")):
        assert f'name="opt_{option.key}"' in live
    assert 'name="opt_multiplier_heaven"' not in live
    assert re.search(r'<option value="dongbei" selected>', html)
    assert 'name="options_for" value="dongbei"' in html
    assert re.search(r'name="hands_total" value="2"', html)  # the table's terms are kept
    assert re.search(r'name="stake" value="3"', html)


def test_the_form_creates_the_rule_set_it_shows(client_in: Client) -> None:
    data = {"variant": "dongbei", "options_for": "dongbei", **TERMS, **defaults("dongbei")}

    response = client_in.post(reverse("games:create"), data)

    assert response.status_code == 302, response.content.decode()[:2000]
    table = Table.objects.get()
    assert table.variant == "dongbei"
    assert table.stake == 3 and table.hands_total == 2


def test_the_chinese_page_says_it_in_chinese(client_in: Client) -> None:
    data = {"variant": "dongbei", "options_for": "zhejiang_caishen", **TERMS}

    html = client_in.post(reverse("games:create"), data).content.decode()

    assert "这些是东北麻将的选项" in html
    assert "These are the options" not in html


def test_a_post_without_options_for_still_creates(client_in: Client, settings: Any) -> None:
    """Scripts and older pages post the rule set alone: its options are the ones posted."""
    data = {"variant": "dongbei", **TERMS, **defaults("dongbei")}

    assert client_in.post(reverse("games:create"), data).status_code == 302
    assert Table.objects.get().variant == "dongbei"
