"""The offline grace: a tournament table waits for a seated player who is not connected (the
event's ``offline_grace_seconds``, default 2 minutes) before auto-play takes their turns; a
table without a grace keeps the ordinary clock."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from games import services as games
from games.models import Hand, Seat, Table
from games.services import grace
from tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def quiet_tables(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_TIMERS = "inprocess"
    settings.CAISHEN_BETWEEN_HANDS_SECONDS = 600


def running_table(grace_seconds: int | None = None) -> tuple[Table, Hand]:
    User = get_user_model()
    organiser = User.objects.create_user("org", password="pw-123456")
    if grace_seconds is None:  # the event's default
        t = services.create_tournament(organiser, "Evening", "zhejiang_caishen", hands_per_round=2, turn_seconds=5)
    else:
        t = services.create_tournament(
            organiser, "Evening", "zhejiang_caishen", hands_per_round=2, turn_seconds=5,
            offline_grace_seconds=grace_seconds,
        )  # fmt: skip
    services.open_registration(t.pk, organiser)
    for i in range(4):
        services.register(t.pk, User.objects.create_user(f"p{i}", password="pw-123456"))
    services.close_registration(t.pk, organiser)
    rnd = services.start_round(t.pk, organiser)
    table = rnd.tables.get().table
    return table, Hand.objects.get(table=table, number=1)


def test_the_default_grace_is_two_minutes_and_holds_an_absent_players_turn_open() -> None:
    table, row = running_table()
    assert table.offline_grace_seconds == 120
    seats = list(table.seats.all())
    assert all(s.offline_since is not None and not s.connected for s in seats)
    # The dealer owes the first discard: the clock waits for the grace, not the 5 s turn.
    since = seats[0].offline_since
    assert row.deadline_at is not None and since is not None
    assert row.deadline_at >= since + timedelta(seconds=115)
    now = timezone.now()
    assert all(grace.in_grace(s, table, now) for s in seats)
    assert 100 < (grace.seconds_left(seats[0], table, now) or 0) <= 120


def test_after_the_grace_auto_play_takes_the_seat_without_a_timeout() -> None:
    table, row = running_table()
    past = timezone.now() - timedelta(seconds=121)
    Seat.objects.filter(table=table).update(offline_since=past)
    Hand.objects.filter(pk=row.pk).update(deadline_at=past)
    assert games.wake("hand", row.pk, row.seq)
    seats = list(table.seats.all())
    assert all(s.auto_play for s in seats)  # every seat was offline past the grace
    assert all(s.timeouts == 0 for s in seats)  # taken by auto-play, not by a run of timeouts
    row.refresh_from_db()
    table.refresh_from_db()
    assert row.status == Hand.FINISHED or row.seq > 1  # the bots played on


def test_a_connected_player_has_the_ordinary_clock_and_a_drop_starts_the_grace() -> None:
    table, row = running_table()
    dealer = table.seats.get(position=row.dealer_position)
    assert dealer.user is not None
    games.set_connected(table.pk, dealer.user, True)
    dealer.refresh_from_db()
    assert grace.grace_until(dealer, table) is None
    before = timezone.now()
    games.set_connected(table.pk, dealer.user, False)
    dealer.refresh_from_db()
    assert dealer.offline_since is not None and dealer.offline_since >= before
    assert grace.in_grace(dealer, table, timezone.now())


def test_no_grace_keeps_the_ordinary_turn_clock() -> None:
    table, row = running_table(grace_seconds=0)
    assert table.offline_grace_seconds == 0
    assert row.deadline_at is not None and row.deadline_at <= timezone.now() + timedelta(seconds=6)
    assert grace.grace_until(table.seats.get(position=0), table) is None


def test_the_grace_setting_is_bounded() -> None:
    organiser = get_user_model().objects.create_user("o2", password="pw-123456")
    with pytest.raises(services.Refused, match="0 to 900 seconds"):
        services.create_tournament(organiser, "Bad", "zhejiang_caishen", offline_grace_seconds=901)
