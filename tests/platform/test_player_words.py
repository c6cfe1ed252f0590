"""Player words on the pages the server renders: the ledger's references as sentences, times
with their time zone, no specification file names or rule set keys on the home page."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts import services
from accounts.models import LedgerEntry
from accounts.templatetags.accounts_tags import reference_words, when, zone_label
from games.engine.variants import all_variants

pytestmark = pytest.mark.django_db


def test_references_read_as_words() -> None:
    with translation.override("en"):
        assert reference_words("hand:42", "table 5 hand 3") == "Hand 3 at table 5"
        assert reference_words("grant", "starting grant") == "Starting grant"
        assert reference_words("table:5", "table 5 (dongbei), stake 1") == "Match at table 5"
        assert reference_words("escape-penalty:5:2:1") == "Escape penalty at table 5"
    with translation.override("zh-hans"):
        assert reference_words("hand:42", "table 5 hand 3") == "5 号牌桌第 3 局"
        assert reference_words("grant") == "新手赠送"


def test_times_carry_their_zone(settings) -> None:  # type: ignore[no-untyped-def]
    moment = datetime(2026, 12, 6, 6, 30, 5, tzinfo=UTC)
    html = str(when(moment, "seconds"))
    assert html.startswith('<time datetime="2026-12-06T06:30:05+00:00" data-local="seconds">')
    assert "2026-12-06 14:30:05 (UTC+8)" in html  # the server's zone (Asia/Shanghai) until the page's script
    assert zone_label(moment) == "UTC"


def test_the_wallet_shows_words_and_zones() -> None:
    user = get_user_model().objects.create_user("words", password="pw-123456")
    services.post(user.wallet, -4, LedgerEntry.HAND, reference="hand:7", note="table 2 hand 1")
    client = Client()
    client.force_login(user)
    html = client.get(reverse("accounts:wallet"), headers={"accept-language": "en"}).content.decode()
    assert ">Hand 1 at table 2<" in html and ">Starting grant<" in html
    assert "<code>hand:7</code>" not in html and "<code>grant</code>" not in html
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(UTC[+−]?\d*\)", html)


def test_the_profile_shows_the_token_times_with_their_zone() -> None:
    from accounts import api_tokens

    user = get_user_model().objects.create_user("tokened", password="pw-123456")
    api_tokens.replace(user)
    client = Client()
    client.force_login(user)
    html = client.get(reverse("accounts:profile"), headers={"accept-language": "en"}).content.decode()
    assert '<time datetime="' in html and "&lt;time" not in html
    assert re.search(r"made \s*<time [^>]+>\d{4}-\d\d-\d\d \d\d:\d\d \(UTC", html)


def test_the_home_page_names_no_file_and_no_key(client: Client) -> None:
    html = client.get("/", headers={"accept-language": "en"}).content.decode()
    text = re.sub(r"<[^>]+>", " ", html)  # what is read, not the attributes (links, data-variant)
    for variant in all_variants():
        assert variant.source not in html
        assert not re.search(rf"\b{variant.key}\b", text), variant.key
