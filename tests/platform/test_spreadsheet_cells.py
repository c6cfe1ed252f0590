"""CSV downloads never hand a spreadsheet a formula: a text cell starting with =, +, -, @, a tab
or a carriage return is prefixed with a single quote (the OWASP rule), in every export."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts import services as accounts
from accounts.models import LedgerEntry
from core.spreadsheet_cells import cell
from games import services as games
from tournaments import services
from tournaments.models import Registration, Round, RoundSeat, RoundTable, Tournament

pytestmark = pytest.mark.django_db

# Names a spreadsheet would run, or trim into something it runs; usernames are made directly
# (create_user runs no validators), as an older account or an admin rename could hold them.
HOSTILE = ['=HYPERLINK("x")', "+SUM(1)", "-2+3", "@cmd", "\tTAB", "\rCR"]


def people(names: list[str]) -> list[Any]:
    User = get_user_model()
    return [User.objects.create_user(n, password="pw-123456") for n in names]


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))


def body(response: Any) -> str:
    raw = b"".join(response.streaming_content) if response.streaming else response.content
    return raw.decode("utf-8")


def assert_neutral(table: list[list[str]], expected: list[str]) -> None:
    cells = {c for r in table for c in r}
    for name in expected:
        assert "'" + name in cells, (name, table)
        assert name not in cells


def test_the_rule() -> None:
    assert [cell(v) for v in HOSTILE] == ["'" + v for v in HOSTILE]
    # Numbers and plain decimal text (a negative score) are data, and ordinary text is untouched.
    assert [cell(v) for v in (-3, 1.5, "-3", "-0.2500", "12", "mahjong", "a=b", "", None)] == [
        -3, 1.5, "-3", "-0.2500", "12", "mahjong", "a=b", "", None,
    ]  # fmt: skip


def event(organiser: Any, players: list[Any]) -> Tournament:
    """An event with the players registered and seated at one round-1 table (nothing played yet)."""
    t = Tournament.objects.create(name="Cup", organiser=organiser, variant="zhejiang_caishen", published=True)
    for p in players:
        Registration.objects.create(tournament=t, user=p)
    rnd = Round.objects.create(tournament=t, number=1, seed="s", seed_hash="h")
    table = games.create_table(organiser, "zhejiang_caishen", {}, hands_total=1)
    link = RoundTable.objects.create(round=rnd, number=1, table=table)
    for chair, p in enumerate(players):
        RoundSeat.objects.create(round=rnd, round_table=link, position=chair, user=p)
    return t


@pytest.fixture
def hostile_event() -> Tournament:
    organiser = people(["organiser"])[0]
    return event(organiser, people(HOSTILE[:4]))


def test_standings_csv(hostile_event: Tournament) -> None:
    table = rows(services.standings_csv(hostile_event))
    assert_neutral(table, HOSTILE[:4])
    response = Client().get(f"/tournaments/{hostile_event.pk}/standings.csv")
    assert response.status_code == 200
    assert_neutral(rows(body(response)), HOSTILE[:4])


def test_results_csv(hostile_event: Tournament) -> None:
    table = rows(services.results_csv(hostile_event))
    assert len(table) == 1 + 4
    assert_neutral(table, HOSTILE[:4])
    response = Client().get(f"/tournaments/{hostile_event.pk}/results.csv")
    assert response.status_code == 200
    assert_neutral(rows(body(response)), HOSTILE[:4])


def test_event_player_stats_csv(hostile_event: Tournament) -> None:
    c = Client()
    c.force_login(hostile_event.organiser)
    response = c.get(reverse("ratings:tournament_stats_csv", args=[hostile_event.pk]))
    assert response.status_code == 200
    table = rows(body(response))
    assert_neutral(table, HOSTILE[:4])
    assert [r[1] for r in table[1:]] == ["0"] * 4  # the numbers stay numbers


@pytest.fixture
def noted_ledger() -> Any:
    """A player whose ledger carries staff notes and references in every dangerous form."""
    player, clerk = people(["player", "clerk"])
    for text in HOSTILE:
        accounts.post(player.wallet, 1, LedgerEntry.STAFF_CREDIT, reference=text, note=text, by=clerk)
    return player


def test_ledger_csv_on_the_account_page(noted_ledger: Any) -> None:
    c = Client()
    c.force_login(noted_ledger)
    table = rows(body(c.get(reverse("accounts:ledger_csv"))))
    assert_neutral(table, HOSTILE)
    assert all(r[2].lstrip("-").isdigit() for r in table[1:])  # amounts stay numbers


@pytest.mark.parametrize("url", ["/api/account/ledger/?format=csv", "/api/account/ledger.csv"])
def test_ledger_csv_through_the_api(noted_ledger: Any, url: str) -> None:
    api = APIClient()
    api.force_authenticate(noted_ledger)
    response = api.get(url)
    assert response.status_code == 200
    assert_neutral(rows(body(response)), HOSTILE)
