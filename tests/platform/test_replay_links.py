"""Replays can be found: the player's page and the wallet's ledger rows link each finished hand's
replay (the hand-end dialog does too: tests/e2e/test_score_only_browser.py; so do the tournament
pages)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import LedgerEntry
from accounts.templatetags.accounts_tags import hand_of
from games import services
from games.models import Hand, Seat

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]


@pytest.fixture
def played() -> tuple[Any, Hand]:
    """A one-hand table of one person and three bots, played out at once (bots, no delay)."""
    user = get_user_model().objects.create_user("replayer", password="pw-123456")
    table = services.create_table(user, "zhejiang_caishen", {}, hands_total=1)
    services.sit(table.pk, user)
    services.add_bots(table.pk, user)
    Seat.objects.filter(table=table, user=user).update(auto_play=True)
    services.set_ready(table.pk, user)
    row = Hand.objects.get(table=table)
    for _ in range(500):
        row.refresh_from_db()
        if row.status == Hand.FINISHED:
            break
        Hand.objects.filter(pk=row.pk).update(deadline_at=timezone.now().replace(year=2000))
        services.wake("hand", row.pk, row.seq)
    assert row.status == Hand.FINISHED
    return user, row


def signed_in(user: Any) -> Client:
    c = Client()
    c.force_login(user)
    return c


def test_the_players_page_lists_their_hands_with_replay_links(played: tuple[Any, Hand]) -> None:
    user, row = played
    html = signed_in(user).get(reverse("accounts:profile"), HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert "Your recent hands" in html
    assert f'<li data-hand="{row.pk}">' in html
    assert f'href="{reverse("games:hand_replay", args=[row.pk])}"' in html
    zh = signed_in(user).get(reverse("accounts:profile")).content.decode()
    assert "你最近的牌局" in zh and f"牌桌 #{row.table_id}，第 1/1 局" in zh


def test_an_empty_players_page_says_so() -> None:
    user = get_user_model().objects.create_user("newcomer", password="pw-123456")
    html = signed_in(user).get(reverse("accounts:profile"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "No finished hands yet." in html


def test_the_ledger_rows_of_hands_link_their_replays(played: tuple[Any, Hand]) -> None:
    user, row = played
    html = signed_in(user).get(reverse("accounts:wallet"), HTTP_ACCEPT_LANGUAGE="en").content.decode()

    # (no ledger row when the person's chair moved 0)
    booked = LedgerEntry.objects.filter(wallet__user=user, reference=f"hand:{row.pk}").count()
    assert bool(booked) == (f'href="{reverse("games:hand_replay", args=[row.pk])}"' in html)
    assert html.count('class="replay-link"') == booked


def test_only_hand_references_get_a_link() -> None:
    assert hand_of("hand:42") == 42
    for other in ("grant", "house-float", "escape:3:1", "hand:", "hand:x", ""):
        assert hand_of(other) is None


def test_the_table_page_lists_its_finished_hands_with_their_replays(played: tuple[Any, Hand]) -> None:
    """The table page's own list: server-rendered, one link
    per finished hand; the page's script adds hands that end while it is open."""
    user, row = played
    html = signed_in(user).get(reverse("games:table", args=[row.table_id])).content.decode()
    assert 'id="table-hand-list"' in html
    assert f'<li data-hand="{row.pk}"><a href="{reverse("games:hand_replay", args=[row.pk])}">' in html
    assert 'id="table-hands-empty" hidden' in html


def test_a_private_table_without_its_code_asks_for_it_and_its_invite_link_opens_it() -> None:
    owner = get_user_model().objects.create_user("host", password="pw-123456")
    table = services.create_table(owner, "zhejiang_caishen", {}, hands_total=1, is_private=True)
    url = reverse("games:table", args=[table.pk])
    owner_page = signed_in(owner).get(url).content.decode()
    assert f'data-invite-url="http://testserver{url}?code={table.room_code}"' in owner_page

    guest = Client(HTTP_ACCEPT_LANGUAGE="en")
    asked = guest.get(url)
    assert asked.status_code == 404 and 'name="room_code"' in asked.content.decode()
    assert "Room code needed" in asked.content.decode()
    missing = guest.get(reverse("games:table", args=[table.pk + 100]))
    assert missing.status_code == 404 and "Room code needed" in missing.content.decode()  # the same page
    wrong = guest.get(f"{url}?code=ZZZZZZ")
    assert wrong.status_code == 404 and "No table has this room code." in wrong.content.decode()
    invited = guest.get(f"{url}?code={table.room_code.lower()}")
    assert invited.status_code == 302 and invited["Location"] == url
    assert guest.get(url).status_code == 200
