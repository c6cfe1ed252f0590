"""A staff debit takes only the free balance: the units a running match holds stay for its
winners, unless a staff member first releases or reduces the hold, with a reason that is
recorded (the staff page's form and the API).  Settlement then pays every win in full."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts import services
from accounts.models import Hold, HoldChange, LedgerEntry, Wallet
from games.models import Hand
from tests.platform.live_helpers import GOLDEN
from tests.platform.rating_helpers import finish_golden, seated, start, users

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]

STAKE = 10


@pytest.fixture
def clerk() -> Any:
    return get_user_model().objects.create_user("clerk", password="pw-123456", is_staff=True)


@pytest.fixture
def running() -> tuple[list[Any], Hand]:
    """Four people at a staked table whose match has started: each wallet holds the stake."""
    chairs = users("hd")
    row = start(seated(chairs, stake=STAKE), GOLDEN)
    return chairs, row


def wallet(user: Any) -> Wallet:
    return Wallet.objects.get(user=user)


def active_hold(user: Any) -> Hold:
    return Hold.objects.get(wallet__user=user, released_at__isnull=True)


def test_a_debit_cannot_reach_held_units_and_the_winner_is_paid_in_full(
    running: tuple[list[Any], Hand], clerk: Any
) -> None:
    chairs, row = running
    east = chairs[0]
    held = active_hold(east).amount
    balance = wallet(east).balance
    assert held > 0
    # Emptying the wallet is refused, and so is one unit more than the free balance.
    for amount in (-balance, -(balance - held + 1)):
        with pytest.raises(services.InsufficientFunds):
            services.adjust(wallet(east), amount, "correction", by=clerk)
    assert wallet(east).balance == balance and not LedgerEntry.objects.filter(reason=LedgerEntry.STAFF_DEBIT)
    # The free balance may be taken whole.
    services.adjust(wallet(east), -(balance - held), "correction", by=clerk)
    assert wallet(east).balance == held
    # East deals in: South is paid everything the result says, nothing capped by the debit.
    finish_golden(row, chairs)
    row.refresh_from_db()
    south_entry = LedgerEntry.objects.get(wallet__user=chairs[1], reference=f"hand:{row.pk}")
    assert south_entry.amount == int(row.result["deltas"]["S"]) * STAKE > 0
    assert sum(LedgerEntry.objects.filter(reference=f"hand:{row.pk}").values_list("amount", flat=True)) == 0


def test_the_staff_page_refuses_the_debit_and_releases_a_hold_with_a_reason(
    running: tuple[list[Any], Hand], clerk: Any
) -> None:
    chairs, _ = running
    east = chairs[0]
    hold = active_hold(east)
    c = Client()
    c.force_login(clerk)
    page = reverse("accounts:staff_adjust", args=[east.pk])
    html = c.get(page, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f'data-hold="{hold.pk}"' in html and hold.reference in html
    debit = {"direction": "debit", "amount": wallet(east).balance, "note": "chargeback", "token": "a" * 32}
    refused = c.post(page, debit, HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 200 and "held for running matches" in refused.content.decode()
    assert not LedgerEntry.objects.filter(reason=LedgerEntry.STAFF_DEBIT).exists()

    change_url = reverse("accounts:staff_hold_change", args=[east.pk, hold.pk])
    # No reason, no change.
    c.post(change_url, {f"hold-{hold.pk}-note": " "}, HTTP_ACCEPT_LANGUAGE="en")
    assert active_hold(east).amount == hold.amount and not HoldChange.objects.exists()
    # Released with a reason: recorded, and the debit goes through.
    done = c.post(change_url, {f"hold-{hold.pk}-note": "chargeback from the bank"}, HTTP_ACCEPT_LANGUAGE="en")
    assert done.status_code == 302
    change = HoldChange.objects.get()
    assert (change.hold_id, change.released, change.before, change.created_by) == (hold.pk, True, hold.amount, clerk)
    assert change.reason == "chargeback from the bank"
    assert not Hold.objects.filter(wallet__user=east, released_at__isnull=True).exists()
    assert c.post(page, {**debit, "token": "b" * 32}).status_code == 302
    assert wallet(east).balance == 0


def test_the_api_reduces_a_hold_and_refuses_bad_input(running: tuple[list[Any], Hand], clerk: Any) -> None:
    chairs, _ = running
    east = chairs[0]
    hold = active_hold(east)
    api = APIClient()
    api.force_authenticate(clerk)
    balance = wallet(east).balance
    refused = api.post(
        f"/api/account/wallets/{east.pk}/adjust/",
        {"amount": -balance, "note": "x"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert refused.status_code == 400 and "held" in str(refused.json()["amount"])

    listed = api.get(f"/api/account/wallets/{east.pk}/holds/").json()
    assert [(h["id"], h["amount"]) for h in listed] == [(hold.pk, hold.amount)]
    url = f"/api/account/wallets/{east.pk}/holds/{hold.pk}/"
    assert api.post(url, {"amount": 1}, format="json").status_code == 400  # no reason
    assert api.post(url, {"amount": hold.amount, "note": "x"}, format="json").status_code == 400  # not a reduction
    assert api.post(url, {"amount": "1", "note": "x"}, format="json").status_code == 400  # not a number
    assert (
        api.post(f"/api/account/wallets/{chairs[1].pk}/holds/{hold.pk}/", {"note": "x"}, format="json").status_code
        == 404
    )
    reduced = api.post(url, {"amount": 1, "note": "dispute"}, format="json")
    assert reduced.status_code == 200 and reduced.json()["amount"] == 1
    assert HoldChange.objects.get().after == 1
    # Now all but the one unit still held may be debited.
    ok = api.post(f"/api/account/wallets/{east.pk}/adjust/", {"amount": -(balance - 1), "note": "x"}, format="json")
    assert ok.status_code == 201 and wallet(east).balance == 1
    assert api.post(url, {"note": "release"}, format="json").status_code == 200
    assert api.post(url, {"note": "again"}, format="json").status_code == 409
    # Players cannot.
    player = APIClient()
    player.force_authenticate(chairs[1])
    assert player.post(url, {"note": "mine"}, format="json").status_code == 403
    assert player.get(f"/api/account/wallets/{east.pk}/holds/").status_code == 403
