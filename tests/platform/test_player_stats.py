"""Player statistics against a seeded set of finished hands, played through the real services
(tests/platform/rating_helpers.py), their page, the API and the organiser's CSV export."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Hand
from ratings.stats import player_stats
from tests.platform.rating_helpers import golden_match, heaven_match, users
from tournaments.models import Registration, Round, RoundTable, Tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]


def my_points(row: Hand, user: Any) -> int:
    """The user's points in a finished hand, from its own result (engine seat by chair)."""
    chair = row.table.seats.get(user=user).position
    return int(row.result["deltas"]["ESWN"[row.engine_seat(chair)]])


@pytest.fixture
def seeded() -> tuple[Any, list[Any], list[Hand]]:
    """Player ``me`` in four finished hands: deals in (golden, East), wins on a discard (golden,
    South), wins 天和 self-drawn (heaven, East), pays another's 天和 (heaven, South)."""
    me, b, c, d = users("st")
    hands = [
        golden_match([me, b, c, d]),
        golden_match([b, me, c, d]),
        heaven_match([me, b, c, d]),
        heaven_match([b, me, c, d]),
    ]
    return me, [b, c, d], hands


def test_statistics_count_the_finished_hands(seeded: tuple[Any, list[Any], list[Hand]]) -> None:
    me, others, hands = seeded
    s = player_stats(me, "zhejiang_caishen")
    assert (s.hands, s.wins, s.self_draws, s.deal_ins) == (4, 2, 1, 1)
    assert s.win_rate == 0.5 and s.self_draw_share == 0.5 and s.deal_in_rate == 0.25
    points = [my_points(h, me) for h in hands]
    assert points[0] < 0 < points[1] and points[2] > points[1] and points[3] < 0
    assert s.average_score == sum(points) / 4
    # Biggest hands: the wins only, most points first, each with its breakdown.
    assert [b.hand_id for b in s.biggest] == [hands[2].pk, hands[1].pk]
    assert s.biggest[0].points == points[2]
    assert "天和" in [item["label"] for item in s.biggest[0].breakdown]
    # Special hands: 天和 once; the ordinary lines (放冲, 自摸, 和牌) are not special.
    assert s.special == {"天和": 1}
    # Another player of the same hands: b won the first golden hand and the second heaven one.
    sb = player_stats(others[0], "zhejiang_caishen")
    assert (sb.hands, sb.wins, sb.self_draws, sb.deal_ins) == (4, 2, 1, 1)
    # Another rule set: nothing.
    assert player_stats(me, "dongbei").hands == 0


def test_special_hands_prefer_a_structured_code() -> None:
    from ratings.stats import special_name

    assert special_name({"name": "heaven", "label": "天和"}) == "天和"
    assert special_name({"name": "x", "code": "self_draw", "label": "自摸"}) is None
    assert special_name({"name": "hand_value", "label": "和牌", "payments": {"E": 1}}) is None
    # 浙东得 scores every seat: the player's own lines only, by key; a capped total is 腊子.
    assert special_name({"name": "S:all_pungs", "label": "S南 对对和", "value": 2}, "S") == "对对和"
    assert special_name({"name": "S:all_pungs", "label": "S南 对对和", "value": 2}, "E") is None
    assert special_name({"name": "S:exposed_pung", "label": "S南 明刻 555m", "value": 4}, "S") is None
    assert special_name({"name": "S:total", "label": "S南 和家牌点 腊子", "value": 500}, "S") == "腊子"
    assert special_name({"name": "S:total", "label": "S南 和家牌点", "value": 50}, "S") is None


def test_the_stats_api_answers_as_the_service(seeded: tuple[Any, list[Any], list[Hand]]) -> None:
    me, _, hands = seeded
    c = Client()
    url = reverse("ratings_api:player_stats", args=[me.username])
    data = c.get(url, {"variant": "zhejiang_caishen"}).json()
    assert data["hands"] == 4 and data["win_rate"] == 0.5 and data["deal_in_rate"] == 0.25
    assert data["biggest_hands"][0]["replay"] == f"/hands/{hands[2].pk}/replay/"
    assert data["special_hands"] == [{"name": "天和", "count": 1}]
    assert data["rating"] is not None
    assert c.get(url).status_code == 400
    assert c.get(url, {"variant": "nope"}).status_code == 404
    assert c.get(reverse("ratings_api:player_stats", args=["nobody"]), {"variant": "dongbei"}).status_code == 404
    board = c.get(reverse("ratings_api:leaderboard", args=["zhejiang_caishen"])).json()
    assert [r["rank"] for r in board["results"]] == [1, 2, 3, 4]
    assert board["results"] == sorted(board["results"], key=lambda r: -r["rating"])


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", ["Hands played", "Win rate", "Biggest hands"]), ("zh-hans", ["已打局数", "和牌率", "最大的牌"])],
)
def test_the_stats_page_shows_them_with_replay_links(
    seeded: tuple[Any, list[Any], list[Hand]], lang: str, words: list[str]
) -> None:
    me, _, hands = seeded
    html = Client().get(reverse("ratings:player", args=[me.username]), HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    for w in words:
        assert w in html
    assert f'href="/hands/{hands[2].pk}/replay/"' in html and 'data-special="天和"' in html
    assert '<div data-stat="win_rate"><dt>' in html and "50%" in html


def event_with(organiser: Any, players: list[Any], hands: list[Hand]) -> Tournament:
    t = Tournament.objects.create(
        name="Cup", organiser=organiser, variant="zhejiang_caishen", status=Tournament.RUNNING
    )
    for p in players:
        Registration.objects.create(tournament=t, user=p)
    rnd = Round.objects.create(tournament=t, number=1, seed="s", seed_hash="h")
    for i, h in enumerate(hands, start=1):
        RoundTable.objects.create(round=rnd, number=i, table=h.table)
    return t


def test_only_the_organiser_exports_the_event_players_stats(seeded: tuple[Any, list[Any], list[Hand]]) -> None:
    me, others, hands = seeded
    organiser, stranger = users("org", 2)
    # The event's tables are the two golden ones: the stats count those only.
    t = event_with(organiser, [me, *others], hands[:2])
    url = reverse("ratings:tournament_stats_csv", args=[t.pk])
    c = Client()
    c.force_login(organiser)
    res = c.get(url)
    assert res.status_code == 200 and res["Content-Type"].startswith("text/csv")
    rows = {r["player"]: r for r in csv.DictReader(io.StringIO(res.content.decode()))}
    assert set(rows) == {me.username, *(o.username for o in others)}
    assert (
        rows[me.username]["hands"] == "2" and rows[me.username]["wins"] == "1" and rows[me.username]["deal_ins"] == "1"
    )
    page = c.get(reverse("tournaments:detail", args=[t.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'id="event-player-stats"' in page and f'<tr data-player="{me.username}">' in page
    for who in (stranger, me):
        other = Client()
        other.force_login(who)
        assert other.get(url).status_code == 403
        assert 'id="event-player-stats"' not in other.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert Client().get(url).status_code == 403


def test_cached_statistics_follow_a_new_hand(seeded: tuple[Any, list[Any], list[Hand]]) -> None:
    me, others, _ = seeded
    before = player_stats(me, "zhejiang_caishen")
    assert player_stats(me, "zhejiang_caishen") == before  # the same hands: the same figures
    heaven_match([me, *others])
    after = player_stats(me, "zhejiang_caishen")
    assert (after.hands, after.wins, after.special) == (5, 3, {"天和": 2})
