"""Bounded input in the HTML forms (the API sides: test_api_bounds.py): a chair named in
non-ASCII digits is no chair, and a tournament stake of 10**24 is a form error, never a 500."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Seat
from tournaments.forms import TournamentForm

pytestmark = pytest.mark.django_db


def test_a_chair_in_non_ascii_digits_is_no_chair_not_a_server_error() -> None:
    user = get_user_model().objects.create_user("formsit", password="pw-123456")
    table = services.create_table(user, "zhejiang_caishen", {})
    client = Client()
    client.force_login(user)
    for position in ("²", "５", "٣", "7", "-1"):
        Seat.objects.filter(table=table).update(user=None)
        answer = client.post(reverse("games:sit", args=[table.pk]), {"position": position})
        assert answer.status_code == 302, position
    # (an unknown chair is no chair: the user is seated in the first free one)
    assert Seat.objects.get(table=table, user=user).position == 0
    client.post(reverse("games:stand", args=[table.pk]))
    client.post(reverse("games:sit", args=[table.pk]), {"position": "2"})
    assert Seat.objects.get(table=table, user=user).position == 2


@pytest.mark.parametrize("stake", [10**24, 1_000_001])
def test_a_tournament_stake_past_the_bound_is_a_form_error(stake: Any) -> None:
    form = TournamentForm(data={"name": "Cup", "stake": stake})
    assert not form.is_valid()
    assert "stake" in form.errors
