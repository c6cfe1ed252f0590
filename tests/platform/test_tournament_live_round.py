"""The organiser's live round: a page and an API listing every table of the running round (hand
k of n, each chair's state, time since the last step, stuck tables), with two actions — replace
a seated player from the next hand, abort a table — each logged on the event.  Only the
organiser and staff see or act; the page's words in both languages."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from games import services as games
from games.models import Hand, HandAction, Seat, Table
from tournaments import services
from tournaments.models import EventLog, Replacement, RoundSeat, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def quiet_tables(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_TIMERS = "inprocess"
    settings.CAISHEN_BETWEEN_HANDS_SECONDS = 600


def running_event(stake: int = 0) -> tuple[Tournament, Any, list[Any], Table]:
    """Four players at one table (hands of 3), p4 on the waiting list; round 1 running."""
    User = get_user_model()
    organiser = User.objects.create_user("org", password="pw-123456")
    players = [User.objects.create_user(f"p{i}", password="pw-123456") for i in range(5)]
    t = services.create_tournament(
        organiser, "Evening", "zhejiang_caishen", rounds=2, hands_per_round=3, max_players=4, stake=stake
    )
    services.open_registration(t.pk, organiser)
    for p in players:
        services.register(t.pk, p)
    services.close_registration(t.pk, organiser)
    rnd = services.start_round(t.pk, organiser)
    return t, organiser, players, rnd.tables.get().table


def client(user: Any | None, lang: str = "en") -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    c.cookies["django_language"] = lang
    return c


def play_out_current_hand(table: Table) -> Hand:
    """Everyone offline past the grace: auto-play takes every seat and plays the hand out."""
    past = timezone.now() - timedelta(hours=1)
    Seat.objects.filter(table=table).update(offline_since=past, connected=False, connections=0)
    row = Hand.objects.filter(table=table).order_by("-number").first()
    assert row is not None and row.status == Hand.PLAYING
    Hand.objects.filter(pk=row.pk).update(deadline_at=past)
    assert games.wake("hand", row.pk, row.seq)
    row.refresh_from_db()
    assert row.status == Hand.FINISHED
    return row


def deal_next_hand(table: Table, finished: Hand) -> Hand:
    """The next hand is dealt, its players back within the grace (so it waits for them)."""
    Seat.objects.filter(table=table, is_bot=False).update(auto_play=False, offline_since=timezone.now())
    Hand.objects.filter(pk=finished.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
    assert games.wake("hand", finished.pk, finished.seq)
    return Hand.objects.get(table=table, number=finished.number + 1)


def test_the_round_view_lists_every_table_with_its_chairs_and_the_grace_left() -> None:
    t, organiser, players, table = running_event()
    data = client(organiser).get(f"/api/tournaments/{t.pk}/round/").json()
    assert data["round"] == 1 and data["stuck_after_seconds"] == 120 + 2 * 20 + 60
    (row,) = data["tables"]
    assert (row["number"], row["table_id"], row["hand"], row["hands_total"]) == (1, table.pk, 1, 3)
    assert not row["stuck"] and row["idle_seconds"] is not None and row["idle_seconds"] < 60
    assert [c["state"] for c in row["chairs"]] == ["offline"] * 4
    assert all(100 < c["auto_play_in"] <= 120 for c in row["chairs"])
    # One player connects; the page says who is here and how long the others have.
    games.set_connected(table.pk, players[0], True)
    chair = table.seats.get(user=players[0]).position
    data = client(organiser).get(f"/api/tournaments/{t.pk}/round/").json()
    assert data["tables"][0]["chairs"][chair]["state"] == "connected"
    for lang, words in (
        ("en", ["Live round", "hand 1 of 3", "Connected", "Offline, auto-play in ", "Replace a player"]),
        ("zh-hans", ["实时轮次", "第 1 局，共 3 局", "在线", "离线，", "后托管", "替换玩家"]),
    ):
        html = client(organiser, lang).get(f"/tournaments/{t.pk}/round/").content.decode()
        for word in words:
            assert word in html, (lang, word)
    # The event page links to it for the organiser.
    assert f'href="/tournaments/{t.pk}/round/"' in client(organiser).get(f"/tournaments/{t.pk}/").content.decode()
    assert f'href="/tournaments/{t.pk}/round/"' not in client(players[0]).get(f"/tournaments/{t.pk}/").content.decode()


def test_a_table_without_a_step_for_too_long_is_stuck() -> None:
    t, organiser, _players, table = running_event()
    long_ago = timezone.now() - timedelta(minutes=10)
    Hand.objects.filter(table=table).update(started_at=long_ago)
    HandAction.objects.filter(hand__table=table).update(created_at=long_ago)
    row = client(organiser).get(f"/api/tournaments/{t.pk}/round/").json()["tables"][0]
    assert row["stuck"] and row["idle_seconds"] >= 600
    for lang, word in (("en", "Stuck"), ("zh-hans", "卡住")):
        assert word in client(organiser, lang).get(f"/tournaments/{t.pk}/round/").content.decode()


def test_only_the_organiser_and_staff_see_or_act() -> None:
    t, organiser, players, _table = running_event()
    urls = [f"/api/tournaments/{t.pk}/round/", f"/api/tournaments/{t.pk}/round/replace/"]
    anonymous, player = client(None), client(players[0])
    assert anonymous.get(urls[0]).status_code == 403
    assert player.get(urls[0]).status_code == 403
    res = player.post(urls[1], {"table": 1, "position": 0}, content_type="application/json")
    assert res.status_code == 403
    res = player.post(f"/api/tournaments/{t.pk}/round/abort/", {"table": 1}, content_type="application/json")
    assert res.status_code == 403
    assert player.get(f"/tournaments/{t.pk}/round/").status_code == 404
    assert player.post(f"/tournaments/{t.pk}/round/act/", {"do": "abort", "table": 1}).status_code == 404
    assert anonymous.get(f"/tournaments/{t.pk}/round/").status_code == 302  # to sign in
    assert Table.objects.get(pk=_table.pk).status == Table.PLAYING
    staff = get_user_model().objects.create_user("staff", password="pw-123456", is_staff=True)
    assert client(staff).get(urls[0]).status_code == 200
    assert client(staff).get(f"/tournaments/{t.pk}/round/").status_code == 200
    schema = Client().get("/api/schema/").content.decode()
    for path in ("round/", "round/replace/", "round/abort/"):
        assert f"/api/tournaments/{{id}}/{path}" in schema


def test_a_player_is_replaced_at_the_next_hand_boundary_and_counts_as_absent() -> None:
    t, organiser, players, table = running_event()
    gone, stand_in = players[0], players[4]  # p4 is on the waiting list
    chair = table.seats.get(user=gone).position
    res = client(organiser).post(
        f"/api/tournaments/{t.pk}/round/replace/",
        {"table": 1, "position": chair, "replacement": "p4"},
        content_type="application/json",
    )
    assert res.status_code == 200, res.content
    assert res.json()["tables"][0]["chairs"][chair]["replacing_with"] == "p4"
    # Not in the middle of the hand: the chair is still p0's until the hand is over.
    assert table.seats.get(position=chair).user == gone
    finished = play_out_current_hand(table)
    assert table.seats.get(position=chair).user == gone
    deal_next_hand(table, finished)
    seat = table.seats.get(position=chair)
    assert seat.user == stand_in and not seat.is_bot and not seat.auto_play
    assert RoundSeat.objects.get(round_table__table=table, position=chair).user == stand_in
    assert RoundSeat.objects.get(round__tournament=t, user=gone).absent
    assert Replacement.objects.get().applied_at is not None
    actions = [a for a, _d in EventLog.objects.filter(tournament=t).values_list("action", "detail")]
    assert actions[-2:] == ["replace_requested", "replaced"]
    row = next(r for r in services.standings_json(t)["standings"] if r["name"] == "p0")
    assert row["absences"] == 1
    # The log is on the page, in the reader's language.
    for lang, word in (("en", "Replaced"), ("zh-hans", "已替换")):
        assert word in client(organiser, lang).get(f"/tournaments/{t.pk}/round/").content.decode()


def test_replacement_refusals_are_clear() -> None:
    t, organiser, players, table = running_event()
    url = f"/api/tournaments/{t.pk}/round/replace/"
    c = client(organiser)
    chair = table.seats.get(user=players[0]).position
    other = table.seats.get(user=players[1]).position
    cases = [
        ({"table": 2, "position": 0}, "round 1 has no table 2"),
        ({"table": 1, "position": chair, "replacement": "p1"}, "p1 already plays in this round"),
        ({"table": 1, "position": chair, "replacement": "nobody"}, "no such player"),
    ]
    for body, detail in cases:
        res = c.post(url, body, content_type="application/json")
        assert res.status_code == 400 and res.json()["detail"] == detail, (body, res.content)
    stranger = get_user_model().objects.create_user("stranger", password="pw-123456")
    res = c.post(
        url, {"table": 1, "position": chair, "replacement": stranger.username}, content_type="application/json"
    )
    assert res.json()["detail"] == "stranger is not entered in this event"
    assert (
        c.post(url, {"table": 1, "position": chair, "replacement": "p4"}, content_type="application/json").status_code
        == 200
    )
    res = c.post(url, {"table": 1, "position": other, "replacement": "p4"}, content_type="application/json")
    assert res.json()["detail"] == "p4 already replaces another player"
    res = c.post(url, {"table": 1, "position": 7}, content_type="application/json")
    assert res.status_code == 400 and "errors" in res.json()


def test_a_bot_may_take_the_chair() -> None:
    t, organiser, players, table = running_event()
    chair = table.seats.get(user=players[2]).position
    assert (
        client(organiser)
        .post(f"/tournaments/{t.pk}/round/act/", {"do": "replace", "table": 1, "position": chair})
        .status_code
        == 302
    )
    deal_next_hand(table, play_out_current_hand(table))
    seat = table.seats.get(position=chair)
    assert seat.is_bot and seat.user is None
    assert RoundSeat.objects.get(round_table__table=table, position=chair).user is None


def test_mid_round_replacement_is_for_score_only_events() -> None:
    t, organiser, players, table = running_event(stake=1)
    chair = table.seats.get(user=players[0]).position
    res = client(organiser).post(
        f"/api/tournaments/{t.pk}/round/replace/", {"table": 1, "position": chair}, content_type="application/json"
    )
    assert res.status_code == 400 and "score-only" in res.json()["detail"]


def test_an_aborted_table_keeps_its_finished_hands_and_voids_the_one_in_play() -> None:
    t, organiser, players, table = running_event()
    first = play_out_current_hand(table)
    second = deal_next_hand(table, first)
    res = client(organiser).post(f"/api/tournaments/{t.pk}/round/abort/", {"table": 1}, content_type="application/json")
    assert res.status_code == 200, res.content
    table.refresh_from_db()
    second.refresh_from_db()
    assert table.status == Table.ABORTED and second.status == Hand.PLAYING and second.deadline_at is None
    with pytest.raises(games.Refused, match="the match was stopped"):
        games.submit(second.pk, players[0], {"do": "pass"}, second.seq)
    results = services.standings_json(t)["results"]
    assert results[0]["hands"] == 1  # the finished hand counts, the void one does not
    log = EventLog.objects.filter(tournament=t, action="table_aborted").get()
    assert log.detail == "round 1, table 1: 1 hands played count, the hand in play is void"
    # The round is over: the next one can start, and nobody is told to play the aborted table.
    assert services.next_table(Tournament.objects.get(pk=t.pk), players[0]) is None
    services.start_round(t.pk, organiser)
    res = client(organiser).post(f"/api/tournaments/{t.pk}/round/abort/", {"table": 9}, content_type="application/json")
    assert res.json() == {"detail": "round 2 has no table 9"}
    for lang, word in (("en", "Table aborted"), ("zh-hans", "牌桌已中止")):
        assert word in client(organiser, lang).get(f"/tournaments/{t.pk}/round/").content.decode()
