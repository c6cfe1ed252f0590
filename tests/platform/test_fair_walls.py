"""Fair walls: a finished hand's wall is re-derived from its revealed seed and its log replayed."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from games import services
from games.models import Hand, HandStart, Table

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def live_settings(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_CLAIM_PROTECTION = "pause"  # quick windows (the uniform one: test_claim_protection.py)
    settings.CAISHEN_SWEEP_SECONDS = 0
    settings.CAISHEN_SPECTATOR_DELAY = 0


def finished_hand() -> Hand:
    owner = get_user_model().objects.create_user("owner", password="pw-123456")
    table = services.create_table(owner, "zhejiang_caishen", {}, hands_total=1)
    services.sit(table.pk, owner)
    services.add_bots(table.pk, owner)
    services.set_ready(table.pk, owner)
    for _ in range(400):
        hand = Hand.objects.get(table=table)
        if hand.status == Hand.FINISHED:
            return hand
        Hand.objects.filter(pk=hand.pk).update(deadline_at=hand.deadline_at.replace(year=2000))
        services.wake("hand", hand.pk, hand.seq)
    raise AssertionError("the hand did not end")


def test_endpoint_and_command_verify_a_fair_hand() -> None:
    hand = finished_hand()
    body = APIClient().get(f"/api/hands/{hand.pk}/verify/").json()
    assert body["ok"] and body["wall_from_seed"] and body["seed"] == hand.seed and body["actions"] > 0
    out = StringIO()
    call_command("verify_hand", str(hand.pk), stdout=out)
    assert '"ok": true' in out.getvalue()


def test_a_tampered_wall_is_caught() -> None:
    hand = finished_hand()
    start = HandStart.objects.get(hand=hand)
    snapshot = start.snapshot
    tiles = snapshot["wall"]["tiles"]
    tiles[-1], tiles[-3] = tiles[-3], tiles[-1]  # two undrawn-looking tiles swapped after the fact
    if tiles[-1] == tiles[-3]:
        tiles[-1], tiles[-5] = tiles[-5], tiles[-1]
    HandStart.objects.filter(pk=start.pk).update(snapshot=snapshot)
    body = APIClient().get(f"/api/hands/{hand.pk}/verify/").json()
    assert body["ok"] is False and "seed" in body["reason"]
    with pytest.raises(SystemExit):
        call_command("verify_hand", str(hand.pk), stdout=StringIO())


def test_a_wall_altered_where_it_was_drawn_is_caught_not_a_server_error() -> None:
    """The recorded actions no longer replay from the altered deal (a discard of a tile the hand
    never drew): the check answers that the seed does not deal it, never a 500."""
    hand = finished_hand()
    start = HandStart.objects.get(hand=hand)
    snapshot = start.snapshot
    snapshot["wall"]["tiles"].reverse()  # every draw now differs
    HandStart.objects.filter(pk=start.pk).update(snapshot=snapshot)
    response = APIClient().get(f"/api/hands/{hand.pk}/verify/")
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is False and "seed" in body["reason"]


def test_a_running_hand_is_not_verified_yet() -> None:
    owner = get_user_model().objects.create_user("o2", password="pw-123456")
    table = services.create_table(owner, "zhejiang_caishen", {})
    services.sit(table.pk, owner)
    services.add_bots(table.pk, owner)
    services.set_ready(table.pk, owner)
    hand = Hand.objects.get(table=Table.objects.get(pk=table.pk))
    assert APIClient().get(f"/api/hands/{hand.pk}/verify/").status_code == 403
