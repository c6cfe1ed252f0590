"""The vs-bots ladder: a finished match against bots moves its people on their rule set's ladder
(never the people's rating), once per match; the player's page, the profile and the ladder's
page show it in both languages."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Seat
from ratings import bot_ladder, elo
from ratings.models import BotLadderEntry, BotLadderResult, Rating
from ratings.services import rate_finished, set_rated_with_bots
from tests.platform.rating_helpers import GOLDEN, finish_golden, golden_match, heaven_match, seated, start, users

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]


def client(user: Any | None = None) -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


def test_places_share_ties_and_count_better_scores() -> None:
    assert bot_ladder.places([-1, 1, 0, 0]) == [4, 1, 2, 2]
    assert bot_ladder.places([5, 5, 5, 5]) == [1, 1, 1, 1]


def test_one_match_against_bots_puts_a_newcomer_on_the_ladder_not_on_the_people_rating() -> None:
    (alone,) = users("nb", 1)
    row = heaven_match([alone, None, None, None])  # 天和: East, the person, wins at once
    table = row.table
    assert not Rating.objects.exists()  # the people's rating: untouched
    entry = BotLadderEntry.objects.get(user=alone, variant="zhejiang_caishen")
    final = [table.scores[str(c)] for c in range(4)]
    assert entry.matches == 1 and entry.firsts == 1
    assert entry.value == pytest.approx(elo.INITIAL + elo.changes([elo.INITIAL] * 4, final)[0])
    assert entry.value > elo.INITIAL
    (result,) = BotLadderResult.objects.filter(user=alone)
    assert (result.place, result.score, result.before) == (1, final[0], elo.INITIAL)
    # A second settlement of the same match (a retried task, the sweeper) adds nothing.
    rate_finished(table, list(table.seats.all()))
    entry.refresh_from_db()
    assert entry.matches == 1 and BotLadderResult.objects.count() == 1


def test_every_person_at_a_table_with_bots_moves_by_their_place() -> None:
    east, south = users("tb", 2)
    row = golden_match([east, south, None, None])  # East deals in to South; the bots score 0
    results = {r.user_id: r for r in BotLadderResult.objects.filter(table=row.table)}
    assert set(results) == {east.pk, south.pk}
    assert (results[south.pk].place, results[east.pk].place) == (1, 4)
    expected = elo.changes([elo.INITIAL] * 4, [-1, 1, 0, 0])
    assert results[east.pk].after - results[east.pk].before == pytest.approx(expected[0])
    assert results[south.pk].after - results[south.pk].before == pytest.approx(expected[1])
    assert BotLadderEntry.objects.get(user=south).firsts == 1 and BotLadderEntry.objects.get(user=east).firsts == 0


def test_rated_matches_and_matches_of_four_people_stay_off_the_ladder() -> None:
    people = users("off")
    golden_match(people)  # four people: the people's rating
    assert Rating.objects.filter(matches=1).count() == 4
    owner, other = users("rw", 2)
    table = seated([owner, other, None, None])
    set_rated_with_bots(table, True)  # rated with bots: the people's rating, not the ladder
    finish_golden(start(table, GOLDEN), [owner, other, None, None])
    assert Rating.objects.filter(user=owner, matches=1).exists()
    assert not BotLadderResult.objects.exists() and not BotLadderEntry.objects.exists()


def test_a_leaver_stays_on_the_ladder_for_their_chair() -> None:
    east, south, west = users("lv", 3)
    table = seated([east, south, west, None])
    Seat.objects.filter(table=table, position=2).update(left=True, is_bot=True)  # a house bot plays it
    finish_golden(start(table, GOLDEN), [east, south, None, None])
    assert set(BotLadderResult.objects.values_list("user_id", flat=True)) == {east.pk, south.pk, west.pk}


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ("Against bots", "Rating against bots", "Last match: place 1 of 4", "1 first place")),
        ("zh-hans", ("人机对战", "人机等级分", "上一场：第 1 名", "1 次第一名")),
    ],
)
def test_the_players_page_profile_and_ladder_show_the_first_result(lang: str, words: tuple[str, ...]) -> None:
    alone, second = users("pp" + lang[:2], 2)
    heaven_match([alone, None, None, None])
    page = client().get(reverse("ratings:player", args=[alone.username]), HTTP_ACCEPT_LANGUAGE=lang)
    html = page.content.decode()
    panel = html.split('id="bot-ladder-panels"', 1)[1].split("</div>", 1)[0]
    assert all(w in html for w in words[:1]) and all(w in panel for w in words[1:])
    assert 'data-variant="zhejiang_caishen"' in panel
    empty = client().get(reverse("ratings:player", args=[second.username]), HTTP_ACCEPT_LANGUAGE=lang)
    assert 'class="bot-ladder-panel"' not in empty.content.decode()
    profile = client(alone).get(reverse("accounts:profile"), HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert 'class="bot-ladder-panel"' in profile and words[1] in profile
    board = client().get(reverse("ratings:bot_leaderboard", args=["zhejiang_caishen"]), HTTP_ACCEPT_LANGUAGE=lang)
    rows = re.findall(r'<tr data-player="([^"]+)">', board.content.decode())
    assert rows == [alone.username]
    people = client().get(reverse("ratings:leaderboard", args=["zhejiang_caishen"]), HTTP_ACCEPT_LANGUAGE=lang)
    assert "data-player" not in people.content.decode()  # not mixed with the people's leaderboard
    assert reverse("ratings:bot_leaderboard", args=["zhejiang_caishen"]) in people.content.decode()
    assert client().get("/ratings/no_such_rules/vs-bots/").status_code == 404


def test_the_ladder_is_best_first() -> None:
    east, south = users("bf", 2)
    golden_match([east, south, None, None])
    html = client().get(reverse("ratings:bot_leaderboard", args=["zhejiang_caishen"])).content.decode()
    assert re.findall(r'<tr data-player="([^"]+)">', html) == [south.username, east.username]


def test_the_player_stats_api_carries_the_ladder() -> None:
    alone, other = users("api", 2)
    heaven_match([alone, None, None, None])
    data = client().get(f"/api/players/{alone.username}/stats/", {"variant": "zhejiang_caishen"}).json()
    entry = BotLadderEntry.objects.get(user=alone)
    assert data["bot_ladder"] == {"rating": round(entry.value, 2), "matches": 1, "firsts": 1}
    assert data["rating"] is None  # the people's rating: none
    none = client().get(f"/api/players/{other.username}/stats/", {"variant": "zhejiang_caishen"}).json()
    assert none["bot_ladder"] is None
