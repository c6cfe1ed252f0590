"""Closing an account: refused while seated in a running match; afterwards the username is a
tombstone wherever players are named (replays, leaderboards, tournament exports), the personal data
is gone, and the ledger is untouched: every past hand still sums to zero."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Sum
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts import api_tokens
from accounts.models import LedgerEntry, Profile
from tests.platform.rating_helpers import golden_match
from tests.platform.test_tournaments import play_out
from tournaments import services as events
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

PASSWORD = "pw-123456"
EN: dict[str, Any] = {"HTTP_ACCEPT_LANGUAGE": "en"}
CLOSE = reverse("accounts:close")


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def ledger() -> list[dict[str, Any]]:
    rows = LedgerEntry.objects.order_by("pk").values("pk", "wallet_id", "amount", "balance_after", "reference")
    return [dict(row) for row in rows]


def staked_event(organiser: Any, players: list[Any]) -> Tournament:
    event = events.create_tournament(organiser, "Closing cup", "zhejiang_caishen", stake=2, rounds=1, hands_per_round=1)
    events.open_registration(event.pk, organiser)
    for player in players:
        events.register(event.pk, player)
    events.close_registration(event.pk, organiser)
    events.publish(event.pk, organiser)
    events.start_round(event.pk, organiser)
    return event


def test_closing_waits_for_the_running_match_and_then_leaves_the_ledger_whole(instant_play: Any) -> None:
    User = get_user_model()
    organiser = User.objects.create_user("organiser", password=PASSWORD)
    players = [User.objects.create_user(f"cup{i}", email=f"cup{i}@example.com", password=PASSWORD) for i in range(4)]
    golden = golden_match(players, stake=5)  # a settled hand: East (cup0) dealt in to South (cup1)
    event = staked_event(organiser, players)
    leaver = players[1]
    api_tokens.replace(leaver)
    browser = signed_in(leaver)

    refused = browser.post(CLOSE, {"password": PASSWORD}, **EN)
    assert refused.status_code == 409
    assert "You are seated in a running match" in refused.content.decode()
    assert User.objects.get(pk=leaver.pk).username == "cup1"

    play_out([link.table for link in event.round_set.get().tables.all()])
    events.sync_status(event)
    before = ledger()
    wrong = browser.post(CLOSE, {"password": "not-it"}, **EN)
    assert wrong.status_code == 400 and User.objects.get(pk=leaver.pk).is_active

    assert browser.post(CLOSE, {"password": PASSWORD}, **EN).status_code == 302
    closed = User.objects.get(pk=leaver.pk)
    tombstone = f"closed-{leaver.pk}"
    assert (closed.username, closed.email, closed.is_active) == (tombstone, "", False)
    assert not closed.has_usable_password() and api_tokens.current(closed) is None
    assert Profile.objects.get(user=closed).closed_at is not None
    assert browser.get(reverse("accounts:profile")).status_code == 302  # signed out
    assert not Client().login(username="cup1", password=PASSWORD)

    # The ledger: the same rows, and every hand's movements still sum to zero.
    assert ledger() == before
    hands = LedgerEntry.objects.filter(reference__startswith="hand:").values("reference").annotate(net=Sum("amount"))
    assert hands and all(row["net"] == 0 for row in hands)
    per_wallet: dict[int, int] = defaultdict(int)
    for row in before:
        per_wallet[row["wallet_id"]] += row["amount"]
    assert per_wallet[closed.wallet.pk] == closed.wallet.balance

    # Every place that names players shows the tombstone, never the old name.
    pages = {
        "standings.csv": Client().get(f"/tournaments/{event.pk}/standings.csv"),
        "results.csv": Client().get(f"/tournaments/{event.pk}/results.csv"),
        "standings.json": Client().get(f"/tournaments/{event.pk}/standings.json"),
        "event": Client().get(f"/tournaments/{event.pk}/"),
        "leaderboard": Client().get(reverse("ratings:leaderboard", args=["zhejiang_caishen"])),
        "replay": Client().get(reverse("games:hand_replay", args=[golden.pk])),
    }
    for name, response in pages.items():
        text = response.content.decode("utf-8-sig")
        assert response.status_code == 200, name
        assert tombstone in text and "cup1" not in text, name
    rows = list(csv.reader(io.StringIO(pages["standings.csv"].content.decode("utf-8-sig"))))
    assert sorted(row[1] for row in rows[1:]) == [tombstone, "cup0", "cup2", "cup3"]
    standings = json.loads(pages["standings.json"].content)["standings"]
    assert sum(row["points"] for row in standings) == 0


def test_the_tombstone_form_is_reserved_and_staff_see_closed_accounts(admin_client: Client) -> None:
    User = get_user_model()
    signup = Client().post(
        reverse("accounts:signup"),
        {"username": "Closed-7", "password1": "a-long-test-password-1", "password2": "a-long-test-password-1"},
        **EN,
    )
    assert signup.status_code == 200 and "are reserved" in signup.content.decode()
    gone = User.objects.create_user("gone", password=PASSWORD)
    key = api_tokens.replace(gone).key
    assert signed_in(gone).post(CLOSE, {"password": PASSWORD}).status_code == 302
    changelist = admin_client.get("/admin/auth/user/?closed=yes").content.decode()
    admin = User.objects.get(username="admin")
    assert f"closed-{gone.pk}" in changelist and f"/admin/auth/user/{admin.pk}/change/" not in changelist
    script = APIClient(HTTP_AUTHORIZATION=f"Token {key}")
    assert script.get("/api/account/").status_code == 403  # the token went with the account


def test_a_seat_at_a_waiting_table_or_an_entry_in_an_open_event_waits_too() -> None:
    from games import services as games

    User = get_user_model()
    organiser = User.objects.create_user("host", password=PASSWORD)
    player = User.objects.create_user("entrant", password=PASSWORD)
    event = events.create_tournament(organiser, "Spring cup", "zhejiang_caishen", rounds=1, hands_per_round=1)
    events.open_registration(event.pk, organiser)
    events.register(event.pk, player)
    table = games.create_table(organiser, "zhejiang_caishen", {}, stake=1, hands_total=1)
    games.sit(table.pk, player, 0)

    refused = signed_in(player).post(CLOSE, {"password": PASSWORD}, **EN)
    text = refused.content.decode()
    assert refused.status_code == 409
    assert f"You are seated at table #{table.pk}: stand up first." in text
    assert "You are entered in the tournament “Spring cup”" in text
    host = signed_in(organiser).post(CLOSE, {"password": PASSWORD}, **EN)
    assert host.status_code == 409 and "You organise the tournament “Spring cup”" in host.content.decode()
    assert User.objects.filter(username__in=["host", "entrant"], is_active=True).count() == 2
