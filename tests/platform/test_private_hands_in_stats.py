"""A player's statistics show each reader only the hands that reader may open: a private table's
hands count in the figures, but its hand, table, breakdown and replay link reach only its owner,
its players and holders of its room code (the replay's own rule), on the page and in the API."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Hand, Table
from games.services.access import can_open, openable_tables, remember_room_code
from tests.platform.rating_helpers import golden_match, users

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]

VARIANT = "zhejiang_caishen"


@pytest.fixture
def private_win() -> tuple[Any, list[Any], Hand]:
    """``me`` wins one hand (South, on East's discard) at a private table and has no other win."""
    me, b, c, d = users("pv")
    hand = golden_match([b, me, c, d])
    Table.objects.filter(pk=hand.table_id).update(is_private=True)
    hand.table.refresh_from_db()
    return me, [b, c, d], hand


def api_stats(client: Client, username: str) -> dict[str, Any]:
    response = client.get(f"/api/players/{username}/stats/", {"variant": VARIANT})
    assert response.status_code == 200
    return dict(response.json())


def page(client: Client, username: str) -> str:
    response = client.get(reverse("ratings:player", args=[username]), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    return response.content.decode()


def assert_hidden(client: Client, me: Any, hand: Hand) -> None:
    data = api_stats(client, me.username)
    # The figures count the private hand ...
    assert (data["hands"], data["wins"]) == (1, 1) and data["average_score"] > 0
    # ... but nothing names it: no hand, table, breakdown or replay link.
    assert data["biggest_hands"] == []
    text = json.dumps(data)
    assert f"/hands/{hand.pk}/" not in text and "breakdown" not in text
    html = page(client, me.username)
    assert f"/hands/{hand.pk}/replay/" not in html and f'data-hand="{hand.pk}"' not in html
    assert 'class="biggest-hands"' not in html
    # The replay itself is closed to the same reader: the statistics open no side door.
    assert client.get(f"/hands/{hand.pk}/replay/").status_code == 404


def assert_shown(client: Client, me: Any, hand: Hand) -> None:
    data = api_stats(client, me.username)
    assert [(b["hand"], b["table"], b["replay"]) for b in data["biggest_hands"]] == [
        (hand.pk, hand.table_id, f"/hands/{hand.pk}/replay/")
    ]
    assert data["biggest_hands"][0]["breakdown"]
    assert f'href="/hands/{hand.pk}/replay/"' in page(client, me.username)
    assert client.get(f"/hands/{hand.pk}/replay/").status_code == 200


def test_an_anonymous_reader_sees_no_private_hand(private_win: tuple[Any, list[Any], Hand]) -> None:
    me, _, hand = private_win
    assert_hidden(Client(), me, hand)


def test_a_stranger_sees_no_private_hand(private_win: tuple[Any, list[Any], Hand]) -> None:
    me, _, hand = private_win
    stranger = users("stranger", 1)[0]
    c = Client()
    c.force_login(stranger)
    assert_hidden(c, me, hand)


def test_the_players_and_room_code_holders_see_it(private_win: tuple[Any, list[Any], Hand]) -> None:
    me, others, hand = private_win
    for who in (me, others[0]):
        c = Client()
        c.force_login(who)
        assert_shown(c, me, hand)
    # An anonymous browser that entered the room code may open the table, and so sees the hand.
    c = Client()
    session = c.session
    remember_room_code(session, hand.table)
    session.save()
    assert_shown(c, me, hand)


def test_public_hands_are_still_listed_for_everyone(private_win: tuple[Any, list[Any], Hand]) -> None:
    me, others, private = private_win
    public = golden_match([others[0], me, others[1], others[2]])
    data = api_stats(Client(), me.username)
    assert data["hands"] == 2 and data["wins"] == 2
    assert [b["hand"] for b in data["biggest_hands"]] == [public.pk]


def test_openable_tables_follows_can_open(private_win: tuple[Any, list[Any], Hand]) -> None:
    me, others, hand = private_win
    public = golden_match([others[0], me, others[1], others[2]]).table
    private = hand.table
    stranger = users("outsider", 1)[0]
    code_holder = Client().session
    remember_room_code(code_holder, private)
    cases = [(None, None), (stranger, None), (me, None), (private.owner, None), (None, code_holder)]
    for user, session in cases:
        expected = {t.pk for t in (public, private) if can_open(user, session, t)}
        assert openable_tables(user, session, [public.pk, private.pk]) == expected
