"""Check-in: a round seats only the players who checked in during its window; the absentees are
handled by the event's rule (a stand-in from the waiting list, a bye, or a bot) and marked absent
in the standings; every absentee and organiser action is in the event's log.  A player's seat
is offered as Play (never Watch), in both languages."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from tournaments import checkin, services
from tournaments.models import EventLog, RoundSeat, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def quiet_tables(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_TIMERS = "inprocess"
    settings.CAISHEN_BETWEEN_HANDS_SECONDS = 600


def event(absentees: str, n: int = 5) -> tuple[Tournament, Any, list[Any]]:
    """Four places, ``n`` entrants (the fifth on the waiting list), check-in on."""
    User = get_user_model()
    organiser = User.objects.create_user("org", password="pw-123456")
    players = [User.objects.create_user(f"p{i}", password="pw-123456") for i in range(n)]
    t = services.create_tournament(
        organiser, "Evening", "zhejiang_caishen", rounds=2, hands_per_round=1, max_players=4,
        check_in=True, absentees=absentees, turn_seconds=300, claim_seconds=120,
    )  # fmt: skip
    services.open_registration(t.pk, organiser)
    for p in players:
        services.register(t.pk, p)
    services.close_registration(t.pk, organiser)
    return t, organiser, players


def api(user: Any) -> Client:
    c = Client()
    c.force_login(user)
    return c


def test_checking_in_needs_an_open_window_and_an_entry() -> None:
    t, organiser, players = event(Tournament.WAITING_LIST)
    res = api(players[0]).post(f"/api/tournaments/{t.pk}/check-in/")
    assert res.status_code == 400 and res.json() == {"detail": "check-in is not open"}
    # The announced start opens the window check_in_minutes before it.
    checkin.schedule(t.pk, organiser, timezone.now() + timedelta(minutes=30))
    assert not checkin.window(Tournament.objects.get(pk=t.pk)).open
    checkin.schedule(t.pk, organiser, timezone.now() + timedelta(minutes=5))
    assert checkin.window(Tournament.objects.get(pk=t.pk)).open
    res = api(players[0]).post(f"/api/tournaments/{t.pk}/check-in/")
    assert res.status_code == 200 and res.json() == {"round": 1, "checked_in": True}
    stranger = get_user_model().objects.create_user("stranger", password="pw-123456")
    res = api(stranger).post(f"/api/tournaments/{t.pk}/check-in/")
    assert res.status_code == 400 and res.json() == {"detail": "you are not registered"}
    detail = api(players[0]).get(f"/api/tournaments/{t.pk}/").json()
    assert detail["check_in"]["open"] and detail["check_in"]["checked_in"] and detail["check_in"]["round"] == 1
    # Only the organiser opens it by hand; the schema documents the endpoint.
    with pytest.raises(services.Refused):
        checkin.open_window(t.pk, players[1])
    assert "/api/tournaments/{id}/check-in/" in Client().get("/api/schema/").content.decode()


def test_an_absentee_is_replaced_by_the_first_checked_in_player_of_the_waiting_list() -> None:
    t, organiser, players = event(Tournament.WAITING_LIST)
    assert api(organiser).post(f"/tournaments/{t.pk}/manage/", {"do": "open_check_in"}).status_code == 302
    for p in players[1:]:  # p0 (registered) does not come; p4 (waiting) does
        assert api(p).post(f"/tournaments/{t.pk}/check-in/").status_code == 302
    rnd = services.start_round(t.pk, organiser)
    seated = {s.user for s in RoundSeat.objects.filter(round=rnd, round_table__isnull=False)}
    assert seated == set(players[1:])
    assert RoundSeat.objects.get(round=rnd, user=players[0]).absent
    row = next(r for r in services.standings_json(t)["standings"] if r["name"] == "p0")
    assert row["absences"] == 1 and row["byes"] == 0
    actions = list(EventLog.objects.filter(tournament=t).values_list("action", "detail"))
    assert ("check_in_opened", "round 1") in actions and ("absent", "round 1: p0") in actions
    assert ("stand_in", "round 1: p4 for p0") in actions
    # The event page says who was absent, and offers the seated players Play.
    for lang, absent, play in (("en", "Absent", "Play"), ("zh-hans", "缺席", "入座开打")):
        c = api(players[1])
        c.cookies["django_language"] = lang
        html = c.get(f"/tournaments/{t.pk}/").content.decode()
        assert absent in html and play in html
        home = c.get("/").content.decode()
        table = rnd.tables.get().table
        assert f'href="/tables/{table.pk}/">{play}</a>' in home


def test_with_the_bot_rule_a_bot_plays_the_absentees_chair() -> None:
    t, organiser, players = event(Tournament.BOT, n=4)
    checkin.open_window(t.pk, organiser)
    for p in players[:3]:
        checkin.check_in(t.pk, p)
    rnd = services.start_round(t.pk, organiser)
    link = rnd.tables.get()
    assert link.table.seats.filter(is_bot=True).count() == 1
    assert set(link.seats.filter(user__isnull=False).values_list("user__username", flat=True)) == {"p0", "p1", "p2"}
    assert RoundSeat.objects.get(round=rnd, user=players[3]).absent
