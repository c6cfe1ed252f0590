"""The account REST API, the OpenAPI schema and the offline Swagger UI."""

import csv
import io
import re

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.staticfiles import finders
from rest_framework.test import APIClient

from accounts import services
from accounts.models import LedgerEntry, Profile, Wallet

PASSWORD = "a-long-test-password-1"


def make_user(username, **extra):
    return get_user_model().objects.create_user(username, password=PASSWORD, **extra)


@pytest.fixture
def player():
    return make_user("player")


@pytest.fixture
def api(player):
    client = APIClient()
    client.force_authenticate(player)
    return client


@pytest.fixture
def staff_api():
    client = APIClient()
    client.force_authenticate(make_user("clerk", is_staff=True))
    return client


@pytest.mark.django_db
def test_account_needs_authentication():
    response = APIClient().get("/api/account/")

    assert response.status_code == 403


@pytest.mark.django_db
def test_get_account(api, player):
    Profile.objects.filter(user=player).update(display_name="东风")

    response = api.get("/api/account/")

    assert response.status_code == 200
    assert response.json() == {
        "username": "player",
        "email": "",
        "email_pending": "",
        "display_name": "东风",
        "language": "zh-hans",
        "balance": 1000,
        "held": 0,
        "available": 1000,
    }


@pytest.mark.django_db
def test_patch_account_changes_name_and_language_only(api, player):
    response = api.patch(
        "/api/account/",
        {"display_name": "West", "language": "en", "balance": 99999, "held": 5, "username": "x", "email": "a@b.c"},
        format="json",
    )

    assert response.status_code == 200
    assert response.json() == {
        "username": "player",
        "email": "",
        "email_pending": "",
        "display_name": "West",
        "language": "en",
        "balance": 1000,
        "held": 0,
        "available": 1000,
    }
    assert response.cookies["django_language"].value == "en"
    profile = Profile.objects.get(user=player)
    assert (profile.display_name, profile.language) == ("West", "en")
    assert Wallet.objects.get(user=player).balance == 1000


@pytest.mark.django_db
def test_patch_account_refuses_an_unknown_language(api):
    response = api.patch("/api/account/", {"language": "klingon"}, format="json")

    assert response.status_code == 400
    assert "language" in response.json()


@pytest.mark.django_db
def test_put_is_not_offered(api):
    assert api.put("/api/account/", {"display_name": "x", "language": "en"}, format="json").status_code == 405


@pytest.mark.django_db
def test_session_authenticated_patch_needs_csrf(player):
    client = APIClient(enforce_csrf_checks=True)
    client.login(username="player", password=PASSWORD)

    response = client.patch("/api/account/", {"display_name": "no token"}, format="json")

    assert response.status_code == 403
    assert Profile.objects.get(user=player).display_name == ""


@pytest.mark.django_db
def test_ledger_is_paginated_newest_first(api, player):
    for n in range(60):
        services.post(player.wallet, 1, LedgerEntry.HAND, reference=f"hand:{n}")
    make_user("other")  # someone else's grant never shows

    first = api.get("/api/account/ledger/").json()
    second = api.get("/api/account/ledger/?page=2").json()

    assert first["count"] == 61
    assert len(first["results"]) == 50
    assert first["results"][0]["reference"] == "hand:59"
    assert first["results"][0]["balance_after"] == 1060
    assert set(first["results"][0]) == {
        "id",
        "amount",
        "balance_after",
        "reason",
        "reason_label",
        "reference",
        "note",
        "created_at",
    }
    assert second["next"] is None
    assert second["results"][-1]["reason"] == "grant"
    assert len(api.get("/api/account/ledger/?page_size=5").json()["results"]) == 5


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/account/ledger/?format=csv", "/api/account/ledger.csv"])
def test_ledger_as_csv(api, player, url):
    services.post(player.wallet, -25, LedgerEntry.HAND, reference="hand:3", note="self-drawn by East")

    response = api.get(url)

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8"))))
    assert rows[0] == ["id", "time", "amount", "balance_after", "reason", "reference", "note"]
    assert [r[2:] for r in rows[1:]] == [
        ["-25", "975", "hand", "hand:3", "self-drawn by East"],
        ["1000", "1000", "grant", "grant", "starting grant"],
    ]


@pytest.mark.django_db
def test_ledger_csv_needs_authentication():
    assert APIClient().get("/api/account/ledger.csv").status_code == 403


@pytest.mark.django_db
def test_staff_adjust_credit_and_debit(staff_api):
    target = make_user("target")
    url = f"/api/account/wallets/{target.pk}/adjust/"

    credit = staff_api.post(url, {"amount": 500, "note": "league prize"}, format="json")
    debit = staff_api.post(url, {"amount": -200, "note": "duplicate prize"}, format="json")

    assert credit.status_code == 201, credit.content
    assert credit.json()["reason"] == "staff_credit"
    assert credit.json()["balance_after"] == 1500
    assert debit.status_code == 201
    assert (debit.json()["reason"], debit.json()["amount"], debit.json()["note"]) == (
        "staff_debit",
        -200,
        "duplicate prize",
    )
    assert Wallet.objects.get(user=target).balance == 1300
    entry = LedgerEntry.objects.get(pk=debit.json()["id"])
    assert entry.created_by.username == "clerk"


@pytest.mark.django_db
def test_staff_adjust_below_zero_is_refused(staff_api):
    target = make_user("target")
    rows = LedgerEntry.objects.count()

    response = staff_api.post(
        f"/api/account/wallets/{target.pk}/adjust/",
        {"amount": -1001, "note": "x"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )

    assert response.status_code == 400
    assert "below zero" in str(response.json()["amount"])
    assert Wallet.objects.get(user=target).balance == 1000
    assert LedgerEntry.objects.count() == rows


@pytest.mark.django_db
@pytest.mark.parametrize(
    "payload", [{"amount": 0, "note": "nothing"}, {"amount": 5}, {"amount": 5, "note": "  "}, {"note": "x"}]
)
def test_staff_adjust_validates(staff_api, payload):
    target = make_user("target")

    response = staff_api.post(f"/api/account/wallets/{target.pk}/adjust/", payload, format="json")

    assert response.status_code == 400
    assert Wallet.objects.get(user=target).balance == 1000


@pytest.mark.django_db
def test_staff_adjust_unknown_user(staff_api):
    assert staff_api.post("/api/account/wallets/999999/adjust/", {"amount": 5, "note": "x"}).status_code == 404


@pytest.mark.django_db
def test_staff_adjust_is_forbidden_to_players(api, player):
    target = make_user("target")

    response = api.post(f"/api/account/wallets/{target.pk}/adjust/", {"amount": 500, "note": "me"}, format="json")
    own = api.post(f"/api/account/wallets/{player.pk}/adjust/", {"amount": 500, "note": "me"}, format="json")

    assert response.status_code == own.status_code == 403
    assert Wallet.objects.get(user=target).balance == Wallet.objects.get(user=player).balance == 1000


@pytest.mark.django_db
def test_openapi_schema(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")

    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    for path in [
        "/api/account/",
        "/api/account/email/",
        "/api/account/ledger/",
        "/api/account/ledger.csv",
        "/api/account/wallets/{user_id}/adjust/",
    ]:
        assert path in schema["paths"], path
    assert "patch" in schema["paths"]["/api/account/"]


@pytest.mark.django_db
def test_swagger_ui_is_served_locally(client):
    response = client.get("/api/docs/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger-ui" in html
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets, html
    assert not [a for a in assets if a.startswith(("http:", "https:", "//"))], assets
    sidecar = [a for a in assets if "drf_spectacular_sidecar/swagger-ui-dist" in a]
    assert sidecar
    for asset in sidecar:  # each one is a file our static files hold
        assert finders.find(asset.removeprefix(settings.STATIC_URL).removeprefix("/" + settings.STATIC_URL)), asset
    # The start-up script is a file of its own (the Content-Security-Policy allows no inline script).
    start_up = client.get(re.search(r'<script src="(/api/docs/\?script=[^"]*)"', html).group(1))
    assert start_up.status_code == 200 and "/api/schema/" in start_up.content.decode()
    assert "cdn" not in html.lower()
