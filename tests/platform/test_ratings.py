"""Ratings: the pairwise Elo arithmetic (docs/ratings.md's worked example), the update in the
settlement (once per match, idempotent), bots excluded unless the table says so, the pages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Hand, Seat, Table
from games.runtime.process import runtime
from games.services import settlement
from ratings import elo
from ratings.models import RatedMatch, Rating, RatingChange
from ratings.services import is_rated, rate_match, set_rated_with_bots
from tests.platform.rating_helpers import GOLDEN, finish_golden, golden_match, heaven_match, seated, start, users

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]

DOC = Path(__file__).resolve().parents[2] / "docs" / "ratings.md"


def worked_example() -> list[tuple[str, float, float, float]]:
    """The rows of docs/ratings.md's worked example: (player, rating, score, change)."""
    text = DOC.read_text().split("### Worked example", 1)[1].split("##", 1)[0]
    rows = re.findall(r"^\| ([A-D]) \| (-?\d+) \| (-?\d+) \| \S+ \| \S+ \| (-?[\d.]+) \|$", text, re.M)
    return [(p, float(r), float(s), float(c)) for p, r, s, c in rows]


def test_the_documented_worked_example_is_what_the_arithmetic_gives() -> None:
    rows = worked_example()
    assert [p for p, *_ in rows] == ["A", "B", "C", "D"]
    got = elo.changes([r for _, r, _, _ in rows], [s for _, _, s, _ in rows])
    assert [round(g, 2) for g in got] == [c for *_, c in rows]
    assert abs(sum(got)) < 1e-9  # rating is neither made nor lost


def test_level_players_split_k_by_pairs_won() -> None:
    # Four level players: the winner beats three opponents, 32/3 × 3 × 0.5 = 16; a tie halves.
    assert elo.changes([1500] * 4, [9, 3, -3, -9]) == pytest.approx([16, 16 / 3, -16 / 3, -16])
    assert elo.changes([1500] * 4, [5, 5, 0, -10]) == pytest.approx([32 / 3, 32 / 3, -16 / 3, -16])
    assert elo.changes([1500] * 4, [0, 0, 0, 0]) == pytest.approx([0, 0, 0, 0])
    with pytest.raises(ValueError):
        elo.changes([1500], [1])


def ratings_of(people: list[Any]) -> list[float]:
    return [Rating.objects.get(user=u, variant="zhejiang_caishen").value for u in people]


def test_a_match_of_four_people_is_rated_in_its_settlement() -> None:
    people = users("rm")
    row = golden_match(people)
    assert row.settled and row.table.status == "finished"
    scores = [row.table.scores[str(c)] for c in range(4)]
    assert scores == [-1, 1, 0, 0]  # East dealt in to South
    expected = elo.changes([elo.INITIAL] * 4, scores)
    assert ratings_of(people) == pytest.approx([elo.INITIAL + d for d in expected])
    assert RatedMatch.objects.filter(table=row.table).count() == 1
    changes = {c.user_id: c for c in RatingChange.objects.filter(match__table=row.table)}
    assert {u.pk for u in people} == set(changes)
    assert changes[people[1].pk].after > changes[people[1].pk].before == elo.INITIAL
    assert [Rating.objects.get(user=u).matches for u in people] == [1, 1, 1, 1]
    # The next match starts from the new ratings.
    heaven_match(people)
    assert (
        RatingChange.objects.get(user=people[1], match__table__hands__pk__gt=row.pk).before
        == changes[people[1].pk].after
    )


def test_settling_a_match_again_changes_nothing(settings: Any, monkeypatch: Any) -> None:
    # The scaled mode: the hand is booked by the worker's task, which may run twice.
    settings.CAISHEN_SETTLEMENT = "celery"
    queued: list[int] = []
    monkeypatch.setattr(runtime().connected, "settle_later", queued.append)
    people = users("ri")
    row = golden_match(people)
    assert not row.settled and queued == [row.pk]
    assert not RatedMatch.objects.exists()  # not before the booking
    assert settlement.settle_finished_hand(row.pk) is True
    after_first = ratings_of(people)
    assert after_first != [elo.INITIAL] * 4
    assert settlement.settle_finished_hand(row.pk) is False
    # Even the hook and the update called again directly change nothing.
    row.refresh_from_db()
    seats = list(Seat.objects.filter(table=row.table))
    settlement.HAND_BOOKED[0](row, seats)
    assert rate_match(row.table, seats) == []
    assert ratings_of(people) == after_first
    assert RatingChange.objects.count() == 4 and RatedMatch.objects.count() == 1
    assert [Rating.objects.get(user=u).matches for u in people] == [1, 1, 1, 1]


def test_a_failed_booking_rates_nothing(settings: Any, monkeypatch: Any) -> None:
    settings.CAISHEN_SETTLEMENT = "celery"
    monkeypatch.setattr(runtime().connected, "settle_later", lambda _id: None)
    people = users("rf")
    row = golden_match(people)

    def broken(_row: Hand, _seats: list[Seat]) -> None:
        raise RuntimeError("the booking fails after the ratings' hook")

    monkeypatch.setattr(settlement, "HAND_BOOKED", [*settlement.HAND_BOOKED, broken])
    with pytest.raises(RuntimeError):
        settlement.settle_finished_hand(row.pk)
    assert not RatedMatch.objects.exists() and not Rating.objects.exists()
    row.refresh_from_db()
    assert not row.settled


def test_a_match_is_rated_once_after_its_last_hand() -> None:
    people = users("rl")
    table = services.create_table(people[0], "zhejiang_caishen", {}, hands_total=2)
    for u in people:
        services.sit(table.pk, u)
    Seat.objects.filter(table=table).update(auto_play=True)
    for u in people:
        services.set_ready(table.pk, u)
    seen_after_first = None
    for _ in range(2000):
        table.refresh_from_db()
        if table.status == "finished":
            break
        hands = list(Hand.objects.filter(table=table).order_by("number"))
        if seen_after_first is None and hands[0].status == Hand.FINISHED:
            seen_after_first = RatedMatch.objects.filter(table=table).exists()
        row = hands[-1]
        Hand.objects.filter(pk=row.pk).update(deadline_at=timezone.now().replace(year=2000))
        services.wake("hand", row.pk, row.seq)
    assert table.status == "finished"
    assert seen_after_first is False  # the first hand's booking did not rate the match
    assert RatedMatch.objects.filter(table=table).count() == 1
    assert RatingChange.objects.filter(match__table=table).count() == 4
    final = [table.scores[str(c)] for c in range(4)]
    assert ratings_of(people) == pytest.approx([elo.INITIAL + d for d in elo.changes([elo.INITIAL] * 4, final)])


def test_a_table_with_bots_is_unrated_unless_it_says_so() -> None:
    alone = users("rb", 2)
    row = golden_match([alone[0], alone[1], None, None])
    assert not is_rated(row.table)
    assert not RatedMatch.objects.exists() and not Rating.objects.exists()
    # The option: rated with bots; only people's ratings move, the bots play at 1500.
    table = seated([alone[0], alone[1], None, None])
    set_rated_with_bots(table, True)
    assert is_rated(table)
    finish_golden(start(table, GOLDEN), [alone[0], alone[1], None, None])
    changes = {c.user_id: c.after - c.before for c in RatingChange.objects.filter(match__table=table)}
    assert set(changes) == {alone[0].pk, alone[1].pk}
    expected = elo.changes([elo.INITIAL] * 4, [-1, 1, 0, 0])
    assert changes[alone[0].pk] == pytest.approx(expected[0]) and changes[alone[1].pk] == pytest.approx(expected[1])


def test_is_rated_reads_the_seats() -> None:
    people = users("rs")
    table = seated(people)
    assert is_rated(table)
    Seat.objects.filter(table=table, position=3).update(is_bot=True, user=None)
    assert not is_rated(table)
    set_rated_with_bots(table, True)
    assert is_rated(table)
    set_rated_with_bots(table, False)
    assert not is_rated(table)


def client(user: Any | None = None) -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


@pytest.mark.parametrize(
    ("lang", "title", "rated"), [("en", "Leaderboard", "Rated matches"), ("zh-hans", "排行榜", "评级对局")]
)
def test_the_leaderboard_lists_players_best_first_in_both_languages(lang: str, title: str, rated: str) -> None:
    people = users("lb")
    golden_match(people)
    html = (
        client()
        .get(reverse("ratings:leaderboard", args=["zhejiang_caishen"]), HTTP_ACCEPT_LANGUAGE=lang)
        .content.decode()
    )
    assert title in html and rated in html and ("财神麻将" if lang.startswith("zh") else "Caishen Mahjong") in html
    order = re.findall(r'<tr data-player="([^"]+)">', html)
    assert order[0] == people[1].username and order[-1] == people[0].username
    empty = client().get(reverse("ratings:leaderboard", args=["dongbei"]), HTTP_ACCEPT_LANGUAGE=lang)
    assert empty.status_code == 200 and "data-player" not in empty.content.decode()
    assert client().get("/ratings/no_such_rules/").status_code == 404


def test_the_leaderboard_is_paged(monkeypatch: Any) -> None:
    from ratings import services as rating_services

    monkeypatch.setattr(rating_services, "LEADERBOARD_PAGE", 2)
    people = users("pg")
    golden_match(people)
    first = client().get("/ratings/zhejiang_caishen/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    second = client().get("/ratings/zhejiang_caishen/?page=2", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert len(re.findall("<tr data-player", first)) == 2 and 'rel="next"' in first
    assert re.findall(r'<td class="num">(\d+)</td>\s*<td><a', second) == ["3", "4"]


def test_the_players_page_and_profile_draw_the_rating_history() -> None:
    people = users("hg")
    golden_match(people)
    heaven_match(people)
    html = (
        client().get(reverse("ratings:player", args=[people[0].username]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    )
    svg = html.split('<svg class="rating-chart"', 1)[1].split("</svg>", 1)[0]
    assert 'data-points="3"' in svg  # the start and two matches
    line = svg.split('class="line" points="', 1)[1].split('"', 1)[0]
    assert len(re.findall(r"\d+(?:\.\d+)?,\d+(?:\.\d+)?", line)) == 3
    assert "Rated matches" in svg and ">Rating<" in svg  # axis titles
    assert "<title>1484</title>" in svg  # after dealing in: 1500 - 16
    profile = client(people[0]).get(reverse("accounts:profile")).content.decode()
    assert '<svg class="rating-chart"' in profile and "评级对局" in profile


def test_the_owner_sets_rated_with_bots_before_the_match() -> None:
    owner, other = users("ow", 2)
    table = seated([owner, None, None, None])
    Table.objects.filter(pk=table.pk).update(status=Table.WAITING)
    url = reverse("ratings_api:table_rating", args=[table.pk])
    assert client().get(url).json() == {"rated": False, "rated_with_bots": False}
    assert client(other).post(url, {"rated_with_bots": True}, content_type="application/json").status_code == 403
    assert client(owner).post(url, {"rated_with_bots": "yes"}, content_type="application/json").status_code == 400
    assert client().post(url, {"rated_with_bots": True}, content_type="application/json").status_code in (401, 403)
    assert client().get(url).json() == {"rated": False, "rated_with_bots": False}  # refusals changed nothing
    res = client(owner).post(url, {"rated_with_bots": True}, content_type="application/json")
    assert res.status_code == 200 and res.json() == {"rated": True, "rated_with_bots": True}
    Table.objects.filter(pk=table.pk).update(status=Table.PLAYING)
    late = client(owner).post(url, {"rated_with_bots": False}, content_type="application/json")
    assert late.status_code == 400 and is_rated(table)
    assert client().get(reverse("ratings_api:table_rating", args=[999999])).status_code == 404


def test_a_leaver_is_still_rated() -> None:
    people = users("lv")
    table = seated(people)
    # Under an escape penalty a house bot takes a leaver's chair: the seat stays the leaver's.
    Seat.objects.filter(table=table, position=2).update(left=True, is_bot=True)
    assert is_rated(table)
    row = finish_golden(start(table, GOLDEN), [people[0], people[1], None, people[3]])
    assert RatingChange.objects.filter(match__table=row.table).count() == 4
