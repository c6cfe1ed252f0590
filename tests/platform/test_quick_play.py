"""Quick play: one request to a seat (``POST /api/quick-play/``, the home page's form), bots now
or after the wait for people, the cancel, the busy server; and the creator seated at once."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import Wallet
from games import services
from games.models import Table
from games.runtime.process import runtime
from games.services import overload

pytestmark = pytest.mark.django_db
VARIANT = "zhejiang_caishen"
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture(autouse=True)
def live_settings(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_SWEEP_SECONDS = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_CLAIM_PROTECTION = "pause"


@pytest.fixture
def users() -> list[Any]:
    User = get_user_model()
    return [User.objects.create_user(f"q{i}", password="pw-123456") for i in range(5)]


def api(user: Any) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def overdue(table: Table) -> None:
    """The table's wait for people runs out now."""
    table.refresh_from_db()
    assert table.ready_deadline is not None
    past = table.ready_deadline.replace(year=2000)
    Table.objects.filter(pk=table.pk).update(ready_deadline=past)
    assert services.wake("table", table.pk, services.deadline_token(past))
    table.refresh_from_db()


def test_with_bots_the_match_starts_at_once(users: list[Any]) -> None:
    response = api(users[0]).post("/api/quick-play/", {"variant": VARIANT, "stake": 1, "bots": True}, format="json")
    assert response.status_code == 200, response.content
    data = response.json()
    table = Table.objects.get(pk=data["id"])
    assert data["url"] == f"/tables/{table.pk}/" and data["quick_play"] is True
    assert table.status == Table.PLAYING and table.quick_play and not table.is_private
    seats = list(table.seats.order_by("position"))
    assert [s.user_id for s in seats if s.user_id] == [users[0].pk]
    assert sum(s.is_bot for s in seats) == 3
    assert Wallet.objects.get(user=users[0]).held > 0  # the match's stake is held


def test_people_share_a_waiting_table_then_bots_fill_it(users: list[Any]) -> None:
    first = api(users[0]).post("/api/quick-play/", {"variant": VARIANT, "stake": 2}, format="json").json()
    second = api(users[1]).post("/api/quick-play/", {"variant": VARIANT, "stake": 2}, format="json").json()
    other_stake = api(users[2]).post("/api/quick-play/", {"variant": VARIANT, "stake": 1}, format="json").json()
    assert first["id"] == second["id"] != other_stake["id"]
    table = Table.objects.get(pk=first["id"])
    assert table.status == Table.WAITING and table.ready_deadline is not None
    assert set(table.seats.filter(ready=True).values_list("user_id", flat=True)) == {users[0].pk, users[1].pk}
    # Asked again, the same table: no second seat.
    again = api(users[0]).post("/api/quick-play/", {"variant": VARIANT, "stake": 2}, format="json").json()
    assert again["id"] == table.pk and table.seats.filter(user=users[0]).count() == 1
    overdue(table)
    assert table.status == Table.PLAYING
    assert table.seats.filter(is_bot=True).count() == 2


def test_a_fourth_person_starts_the_match_before_the_wait_is_over(users: list[Any]) -> None:
    ids = {api(u).post("/api/quick-play/", {"variant": VARIANT}, format="json").json()["id"] for u in users[:4]}
    assert len(ids) == 1
    table = Table.objects.get(pk=ids.pop())
    assert table.status == Table.PLAYING and not table.seats.filter(is_bot=True).exists()
    # The fifth gets a table of their own.
    fifth = api(users[4]).post("/api/quick-play/", {"variant": VARIANT}, format="json").json()
    assert fifth["id"] != table.pk and fifth["status"] == Table.WAITING


def test_standing_up_cancels_and_an_empty_table_is_closed(users: list[Any]) -> None:
    data = api(users[0]).post("/api/quick-play/", {"variant": VARIANT}, format="json").json()
    table = Table.objects.get(pk=data["id"])
    assert api(users[0]).post(f"/api/tables/{table.pk}/stand/", {}, format="json").status_code == 200
    table.refresh_from_db()
    assert table.ready_deadline is not None  # a later player may still come
    overdue(table)
    assert table.status == Table.ABORTED and not table.seats.filter(is_bot=True).exists()


def test_quick_play_elsewhere_gives_up_the_waiting_seat(users: list[Any]) -> None:
    a = api(users[0]).post("/api/quick-play/", {"variant": VARIANT}, format="json").json()
    b = api(users[0]).post("/api/quick-play/", {"variant": "dongbei"}, format="json").json()
    assert a["id"] != b["id"]
    assert not Table.objects.get(pk=a["id"]).seats.filter(user=users[0]).exists()


def test_refusals(users: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    assert api(users[0]).post("/api/quick-play/", {"variant": "nope"}, format="json").status_code == 400
    assert api(users[0]).post("/api/quick-play/", {"variant": VARIANT, "stake": 0}, format="json").status_code == 400
    assert APIClient().post("/api/quick-play/", {"variant": VARIANT}, format="json").status_code == 403
    Wallet.objects.filter(user=users[1]).update(balance=5)
    short = api(users[1]).post("/api/quick-play/", {"variant": VARIANT}, format="json", **EN)
    assert short.status_code == 400 and "you need" in short.json()["detail"]
    # A saturated server: 503 with its translated message, nothing made.
    monkeypatch.setattr(runtime().monitor, "refusing", lambda: True)
    before = Table.objects.count()
    busy = api(users[2]).post("/api/quick-play/", {"variant": VARIANT, "bots": True}, format="json", **EN)
    assert busy.status_code == 503 and busy["Retry-After"]
    assert busy.json()["detail"] == overload.message()
    assert Table.objects.count() == before
    zh = api(users[2]).post("/api/quick-play/", {"variant": VARIANT}, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert zh.status_code == 503 and "服务器" in zh.json()["detail"]


def test_a_busy_server_makes_the_wait_start_again(users: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    data = api(users[0]).post("/api/quick-play/", {"variant": VARIANT}, format="json").json()
    table = Table.objects.get(pk=data["id"])
    monkeypatch.setattr(runtime().monitor, "refusing", lambda: True)
    overdue(table)
    assert table.status == Table.WAITING and table.ready_deadline is not None and table.ready_deadline.year > 2000
    assert not table.seats.filter(is_bot=True).exists() and table.seats.filter(user=users[0], ready=True).exists()


def test_the_home_page_form_seats_the_player(users: list[Any]) -> None:
    c = Client()
    c.force_login(users[0])
    html = c.get("/", headers={"accept-language": "en"}).content.decode()
    assert 'id="home-quick-play"' in html and "Play now with bots" in html
    response = c.post(reverse("games:quick_play"), {"variant": VARIANT, "stake": "2", "bots": "1"})
    table = Table.objects.get(quick_play=True)
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.pk}/"
    assert table.status == Table.PLAYING and table.stake == 2


def test_the_creator_of_a_table_is_seated(users: list[Any]) -> None:
    c = Client()
    c.force_login(users[0])
    data = {
        "variant": VARIANT,
        "stake": 1,
        "hands_total": 1,
        "turn_seconds": 20,
        "claim_seconds": 8,
        "opt_multiplier_kong_bloom": 2,
        "opt_multiplier_four_wilds": 2,
        "opt_multiplier_heaven": 4,
        "opt_multiplier_earth": 4,
        "opt_robbing_kong_multiplier": 12,
    }
    assert c.post(reverse("games:create"), data).status_code == 302
    table = Table.objects.get(owner=users[0])
    assert table.seats.filter(user=users[0]).exists()
    # The API seats only when asked (its clients may create tables for others).
    assert api(users[1]).post("/api/tables/", {"variant": VARIANT}, format="json").status_code == 201
    assert not Table.objects.get(owner=users[1]).seats.filter(user=users[1]).exists()
    made = api(users[2]).post("/api/tables/", {"variant": VARIANT, "sit": True}, format="json").json()
    assert Table.objects.get(pk=made["id"]).seats.filter(user=users[2]).exists()
    # A stake the creator cannot cover: the table is made, they watch.
    Wallet.objects.filter(user=users[3]).update(balance=25)
    poor = api(users[3]).post("/api/tables/", {"variant": VARIANT, "stake": 2, "sit": True}, format="json")
    assert poor.status_code == 201
    assert not Table.objects.get(owner=users[3]).seats.filter(user=users[3]).exists()
