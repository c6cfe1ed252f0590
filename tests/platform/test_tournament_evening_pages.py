"""The evening's pages around the round: the organiser announces the next round's time on the
event page (check-in opens before it), a registered player checks in from the home page, the
header's badge links a seated player to their running tournament table, and the event page
carries what its script needs to tell the player their table is ready — in both languages."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tournaments import checkin, services
from tournaments.models import CheckIn, EventLog, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def quiet_tables(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_TIMERS = "inprocess"
    settings.CAISHEN_BETWEEN_HANDS_SECONDS = 600


def closed_event(check_in: bool = True) -> tuple[Tournament, Any, list[Any]]:
    User = get_user_model()
    organiser = User.objects.create_user("org", password="pw-123456")
    players = [User.objects.create_user(f"p{i}", password="pw-123456") for i in range(4)]
    t = services.create_tournament(
        organiser, "Evening", "zhejiang_caishen", rounds=2, hands_per_round=1, check_in=check_in, check_in_minutes=15
    )
    services.open_registration(t.pk, organiser)
    for p in players:
        services.register(t.pk, p)
    services.close_registration(t.pk, organiser)
    return t, organiser, players


def client(user: Any | None, lang: str = "en") -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    c.cookies["django_language"] = lang
    return c


def test_the_organiser_announces_the_next_round_and_check_in_opens_before_it() -> None:
    t, organiser, players = closed_event()
    for lang, words in (
        ("en", ["Next round starts at", "Check-in opens 15 minutes before."]),
        ("zh-hans", ["下一轮开始时间", "签到于开始前 15 分钟开放。"]),
    ):
        html = client(organiser, lang).get(f"/tournaments/{t.pk}/").content.decode()
        for word in words:
            assert word in html, (lang, word)
    at = timezone.localtime(timezone.now() + timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M")
    res = client(organiser).post(f"/tournaments/{t.pk}/manage/", {"do": "schedule", "at": at})
    assert res.status_code == 302
    t.refresh_from_db()
    assert t.next_round_at is not None and checkin.window(t).open
    assert EventLog.objects.filter(tournament=t, action="round_scheduled").exists()
    # Bad input is refused with a clear message, in the reader's language.
    for lang, said in (("en", "the time must be a date and time"), ("zh-hans", "时间须为日期和时刻")):
        c = client(organiser, lang)
        page = c.post(f"/tournaments/{t.pk}/manage/", {"do": "schedule", "at": "tonight"}, follow=True)
        assert said in page.content.decode()
    # The API does the same; only the organiser.
    res = client(organiser).post(
        f"/api/tournaments/{t.pk}/manage/", {"do": "schedule", "at": None}, content_type="application/json"
    )
    assert res.status_code == 200 and res.json()["next_round_at"] is None
    res = client(players[0]).post(f"/tournaments/{t.pk}/manage/", {"do": "schedule", "at": at}, follow=True)
    assert "only the organiser may do this" in res.content.decode()


def test_a_registered_player_checks_in_from_the_home_page() -> None:
    t, organiser, players = closed_event()
    assert "Check-in is open" not in client(players[0]).get("/").content.decode()
    checkin.open_window(t.pk, organiser)
    for lang, words in (("en", ["Check-in is open", "Check in"]), ("zh-hans", ["签到已开放", "签到"])):
        html = client(players[0], lang).get("/").content.decode()
        for word in words:
            assert word in html, (lang, word)
        assert f'action="/tournaments/{t.pk}/check-in/"' in html
    # The event page offers it too.
    for lang, word in (("en", "Check-in for round 1"), ("zh-hans", "第 1 轮签到")):
        html = client(players[0], lang).get(f"/tournaments/{t.pk}/").content.decode()
        assert word in html and f'action="/tournaments/{t.pk}/check-in/"' in html, lang
    assert client(players[0]).post(f"/tournaments/{t.pk}/check-in/").status_code == 302
    assert CheckIn.objects.filter(tournament=t, user=players[0]).exists()
    assert "Check-in is open" not in client(players[0]).get("/").content.decode()
    assert "Check-in is open" not in client(None).get("/").content.decode()


def test_the_untranslated_refusals_and_absentee_labels_are_translated() -> None:
    t, organiser, players = closed_event()
    page = client(players[0], "zh-hans").post(f"/tournaments/{t.pk}/check-in/", follow=True)
    assert "签到尚未开放" in page.content.decode()
    form = client(organiser, "zh-hans").get("/tournaments/new/").content.decode()
    for label in ("由候补名单中第一位已签到的选手替补", "轮空", "由机器人代打", "选手未连线时牌桌等待的秒数"):
        assert label in form, label


def test_the_header_badge_links_a_seated_player_to_their_table_with_one_query() -> None:
    t, organiser, players = closed_event(check_in=False)
    assert "tournament-seat" not in client(players[0]).get("/tournaments/").content.decode()
    rnd = services.start_round(t.pk, organiser)
    table = rnd.tables.get().table
    for lang, word in (("en", "Your table"), ("zh-hans", "你的牌桌")):
        html = client(players[0], lang).get("/tournaments/").content.decode()
        assert f'class="badge tournament-seat" href="/tables/{table.pk}/"' in html and word in html
    assert "tournament-seat" not in client(organiser).get("/tournaments/").content.decode()
    # One query, asked once however often the page's templates look.
    from tournaments.context_processors import tournament_seat

    class Request:
        user = players[0]

    seat = tournament_seat(Request())["tournament_seat"]  # type: ignore[arg-type]
    with CaptureQueriesContext(connection) as queries:
        assert seat["table_id"] == table.pk and bool(seat)
    assert len(queries) == 1


def test_the_event_page_carries_what_its_script_needs_to_tell_the_player() -> None:
    t, organiser, players = closed_event(check_in=False)
    for lang, words in (
        ("en", ["Notify me when my table is ready", 'data-ready-text="Your table is ready."']),
        ("zh-hans", ["牌桌就绪时提醒我", 'data-ready-text="你的牌桌已就绪。"']),
    ):
        html = client(players[0], lang).get(f"/tournaments/{t.pk}/").content.decode()
        for word in words:
            assert word in html, (lang, word)
        assert f'data-event-poll="/api/tournaments/{t.pk}/"' in html and 'data-my-table=""' in html
        assert "js/tournament_notify.js" in html and "<script>" not in html  # no inline script (CSP)
    # A visitor, or the organiser, is not polled for a table.
    assert "data-event-poll" not in client(None).get(f"/tournaments/{t.pk}/").content.decode()
    rnd = services.start_round(t.pk, organiser)
    table = rnd.tables.get().table
    html = client(players[0]).get(f"/tournaments/{t.pk}/").content.decode()
    assert f'data-my-table="{table.pk}"' in html
    data = client(players[0]).get(f"/api/tournaments/{t.pk}/").json()
    assert data["my_table"]["id"] == table.pk and data["my_table"]["play"] == f"/tables/{table.pk}/"
