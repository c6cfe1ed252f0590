"""Tournaments: registration with a waiting list, rounds seated automatically, duplicate walls,
standings with tie-breaks, exports — and a whole small event played by bots end to end."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from games import services as games
from games.models import Hand, HandStart, Seat, Table
from tournaments import services
from tournaments.models import Registration, RoundSeat, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def live_settings(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_CLAIM_PROTECTION = "pause"  # quick windows (the uniform one: test_claim_protection.py)
    settings.CAISHEN_SWEEP_SECONDS = 0
    settings.CAISHEN_TIMERS = "inprocess"


def users(n: int, prefix: str = "player") -> list[Any]:
    User = get_user_model()
    return [User.objects.create_user(f"{prefix}{i}", password="pw-123456") for i in range(n)]


@pytest.fixture
def organiser() -> Any:
    return get_user_model().objects.create_user("organiser", password="pw-123456")


def play_out(round_tables: list[Table]) -> None:
    """Bots (托管) play every chair; deadlines are made overdue and the service woken, as a
    sweeper would, until every table of the round has finished its match."""
    for _ in range(5000):
        live = [t for t in Table.objects.filter(pk__in=[t.pk for t in round_tables]) if t.status != Table.FINISHED]
        if not live:
            return
        for table in live:
            Seat.objects.filter(table=table).update(auto_play=True)
            past = timezone.now().replace(year=2000)
            for row in Hand.objects.filter(table=table, deadline_at__isnull=False):
                Hand.objects.filter(pk=row.pk).update(deadline_at=past)
                games.wake("hand", row.pk, row.seq)
            table.refresh_from_db()
            if table.ready_deadline is not None:
                Table.objects.filter(pk=table.pk).update(ready_deadline=past)
                games.wake("table", table.pk, games.deadline_token(past))
    raise AssertionError("the round never finished")


def hand_computed(event: Tournament) -> dict[str, dict[str, Any]]:
    """Standings figures computed straight from the tables' hands and chairs."""
    out: dict[str, dict[str, Any]] = {}
    for rnd in event.round_set.all():
        for link in rnd.tables.all():
            seats = {s.position: s for s in link.table.seats.all()}
            totals = [0, 0, 0, 0]
            wins = [0, 0, 0, 0]
            for h in Hand.objects.filter(table=link.table):
                for engine_seat, wind in enumerate("ESWN"):
                    chair = (engine_seat + h.dealer_position) % 4
                    totals[chair] += h.result["deltas"][wind]
                    if h.result["winner"] == wind:
                        wins[chair] += 1
            for chair, seat in seats.items():
                if seat.user is None:
                    continue
                rec = out.setdefault(seat.user.username, {"points": 0, "wins": 0, "placings": 0, "rounds": {}})
                rec["points"] += totals[chair]
                rec["wins"] += wins[chair]
                rec["placings"] += 1 + sum(1 for t in totals if t > totals[chair])
                rec["rounds"][str(rnd.number)] = totals[chair]
    return out


def test_a_small_duplicate_event_end_to_end(organiser: Any) -> None:
    players = users(9)
    event = services.create_tournament(
        organiser,
        "Spring cup",
        "zhejiang_caishen",
        rounds=2,
        hands_per_round=2,
        duplicate=True,
        seating=Tournament.BY_STANDINGS,
        max_players=8,
    )
    with pytest.raises(services.Refused):
        services.register(event.pk, players[0])  # registration not open yet
    services.open_registration(event.pk, organiser)
    regs = [services.register(event.pk, p) for p in players]
    assert [r.status for r in regs] == [Registration.REGISTERED] * 8 + [Registration.WAITING]
    # One withdraws: the first on the waiting list moves up.
    services.withdraw(event.pk, players[3])
    assert Registration.objects.get(user=players[8]).status == Registration.REGISTERED
    with pytest.raises(services.Refused):
        services.start_round(event.pk, organiser)  # registration still open
    services.close_registration(event.pk, organiser)
    with pytest.raises(services.Refused):
        services.start_round(event.pk, players[0])  # only the organiser

    standings_after: list[Any] = []
    for number in (1, 2):
        rnd = services.start_round(event.pk, organiser)
        assert rnd.number == number
        links = list(rnd.tables.select_related("table"))
        assert len(links) == 2 and all(link.table.status == Table.PLAYING for link in links)
        seated = RoundSeat.objects.filter(round=rnd).exclude(user=None)
        assert seated.count() == 8 and not RoundSeat.objects.filter(round=rnd, round_table=None).exists()
        if number == 2:
            # Seating by standings: the top four of round 1 share table 1.
            top = {row.user_id for row in standings_after[0].rows[:4]}
            assert {s.user_id for s in links[0].seats.all()} == top
        with pytest.raises(services.Refused):
            services.start_round(event.pk, organiser)  # the round is being played
        play_out([link.table for link in links])
        # Duplicate: hand k of every table was dealt from the same seed and the same wall.
        for k in (1, 2):
            dealt = [Hand.objects.get(table=link.table, number=k) for link in links]
            assert dealt[0].seed == dealt[1].seed == services.derive_seed(rnd.seed, k)
            walls = [HandStart.objects.get(hand=h).snapshot["wall"]["tiles"] for h in dealt]
            hands = [HandStart.objects.get(hand=h).snapshot["players"] for h in dealt]
            assert walls[0] == walls[1] and hands[0] == hands[1]
        standings_after.append(services.standings(event))
    with pytest.raises(services.Refused):
        services.start_round(event.pk, organiser)  # both rounds played
    services.sync_status(event)
    event.refresh_from_db()
    assert event.status == Tournament.FINISHED

    # Standings against figures computed by hand from the tables.
    expected = hand_computed(event)
    final = services.standings(event)
    assert {r.name for r in final.rows} == set(expected) and len(final.rows) == 8
    for r in final.rows:
        e = expected[r.name]
        assert (r.points, r.wins, r.placings) == (e["points"], e["wins"], e["placings"])
        assert {str(k): v for k, v in r.rounds.items()} == e["rounds"]
    # Ranking: points, then placings (lower first), then hands won, then registration order.
    keys = [(-r.points, r.placings, -r.wins) for r in final.rows]
    assert keys == sorted(keys)
    assert sum(r.points for r in final.rows) == -sum(
        c["points"] for res in final.results for c in res.chairs if c["user_id"] is None
    )
    ranks = [r.rank for r in final.rows]
    assert ranks[0] == 1 and ranks == sorted(ranks)

    # Exports.
    data = services.standings_json(event)
    assert [row["name"] for row in data["standings"]] == [r.name for r in final.rows]
    assert all(rnd["seed"] for rnd in data["rounds"])  # revealed: the rounds are over
    table = list(csv.reader(io.StringIO(services.standings_csv(event))))
    assert table[0][:3] == ["rank", "player", "points"] and len(table) == 9
    assert int(table[1][2]) == final.rows[0].points
    results = list(csv.reader(io.StringIO(services.results_csv(event))))
    assert len(results) == 1 + 2 * 2 * 4


def test_placings_and_tie_breaks() -> None:
    assert services._placings([10, -5, 10, -15]) == [1, 3, 1, 4]
    assert services._placings([0, 0, 0, 0]) == [1, 1, 1, 1]


def test_bots_or_byes_for_a_count_not_a_multiple_of_four(organiser: Any) -> None:
    players = users(6)
    for fill, tables, byes in [(Tournament.BOTS, 2, 0), (Tournament.BYES, 1, 2)]:
        event = services.create_tournament(organiser, f"Cup {fill}", "wenzhou", rounds=1, hands_per_round=1, fill=fill)
        services.open_registration(event.pk, organiser)
        for p in players:
            services.register(event.pk, p)
        services.close_registration(event.pk, organiser)
        rnd = services.start_round(event.pk, organiser)
        assert rnd.tables.count() == tables
        assert RoundSeat.objects.filter(round=rnd, round_table=None).count() == byes
        play_out([link.table for link in rnd.tables.all()])
        s = services.standings(event)
        assert len(s.rows) == 6
        assert sum(1 for r in s.rows if r.byes) == byes


def test_substitution_between_rounds(organiser: Any) -> None:
    players = users(5)
    event = services.create_tournament(organiser, "Sub cup", "zhejiang_caishen", rounds=1, max_players=4)
    services.open_registration(event.pk, organiser)
    for p in players:
        services.register(event.pk, p)
    services.close_registration(event.pk, organiser)
    services.substitute(event.pk, organiser, players[1])
    registered = set(event.registrations.filter(status=Registration.REGISTERED).values_list("user_id", flat=True))
    assert registered == {players[0].pk, players[2].pk, players[3].pk, players[4].pk}
    with pytest.raises(services.Refused):
        services.substitute(event.pk, players[0], players[2])


def test_pages_api_and_exports(organiser: Any) -> None:
    players = users(4)
    client = Client()
    client.force_login(organiser)
    res = client.post(
        "/tournaments/new/",
        {
            "name": "Web cup",
            "variant": "zhejiang_caishen",
            "rounds": 1,
            "hands_per_round": 1,
            "max_players": 8,
            "stake": 0,
            "seating": "random",
            "fill": "bots",
            "duplicate": "on",
            "turn_seconds": 20,
            "claim_seconds": 8,
        },
    )
    assert res.status_code == 302
    event = Tournament.objects.get(name="Web cup")
    assert event.duplicate and event.organiser == organiser
    assert client.post(f"/tournaments/{event.pk}/manage/", {"do": "open"}).status_code == 302
    player = Client()
    player.force_login(players[0])
    assert player.post(f"/tournaments/{event.pk}/register/").status_code == 302
    api = Client()
    api.force_login(players[1])
    got = api.post(f"/api/tournaments/{event.pk}/register/")
    assert got.status_code == 200 and got.json()["status"] == "registered"
    for p in players[2:]:
        services.register(event.pk, p)
    assert client.post(f"/tournaments/{event.pk}/manage/", {"do": "close"}).status_code == 302
    assert client.post(f"/tournaments/{event.pk}/manage/", {"do": "start_round"}).status_code == 302
    page = player.get(f"/tournaments/{event.pk}/")
    assert page.status_code == 200 and "/tables/" in page.content.decode()  # my next table
    mine = player.get("/tournaments/")
    assert "Web cup" in mine.content.decode()
    listing = Client().get("/api/tournaments/").json()
    assert listing[0]["name"] == "Web cup"
    # Standings stay the organiser's until published.
    assert Client().get(f"/api/tournaments/{event.pk}/standings/").status_code == 403
    assert client.get(f"/api/tournaments/{event.pk}/standings/").status_code == 200
    client.post(f"/tournaments/{event.pk}/manage/", {"do": "publish"})
    # Once the round is played the page links every hand's replay and shows per-round points.
    play_out([link.table for link in event.round_set.get().tables.all()])
    html = Client().get(f"/tournaments/{event.pk}/").content.decode()
    hand = Hand.objects.get(table__tournament_table__round__tournament=event)
    assert f"/hands/{hand.pk}/replay/" in html
    data = Client().get(f"/api/tournaments/{event.pk}/standings/").json()
    assert len(data["standings"]) == 4
    export = Client().get(f"/tournaments/{event.pk}/standings.csv")
    assert export.status_code == 200 and export["Content-Type"].startswith("text/csv")
    assert Client().get(f"/tournaments/{event.pk}/results.csv").status_code == 200
    assert json.loads(Client().get(f"/tournaments/{event.pk}/standings.json").content)["event"]["name"] == "Web cup"


def test_a_staked_event_moves_wallets_by_points_times_stake(organiser: Any) -> None:
    from accounts.models import LedgerEntry, Wallet

    players = users(4)
    event = services.create_tournament(organiser, "Money cup", "zhejiang_caishen", stake=2, rounds=1, hands_per_round=2)
    services.open_registration(event.pk, organiser)
    for p in players:
        services.register(event.pk, p)
    services.close_registration(event.pk, organiser)
    before = {p.pk: Wallet.objects.get(user=p).balance for p in players}
    rnd = services.start_round(event.pk, organiser)
    play_out([link.table for link in rnd.tables.all()])
    for row in services.standings(event).rows:
        moved = Wallet.objects.get(user_id=row.user_id).balance - before[row.user_id]
        assert moved == row.points * 2
    assert LedgerEntry.objects.filter(reference__startswith="hand:").exists() or all(
        r.points == 0 for r in services.standings(event).rows
    )


def test_the_organiser_api(organiser: Any) -> None:
    players = users(4)
    api = Client()
    api.force_login(organiser)
    made = api.post(
        "/api/tournaments/",
        {"name": "API cup", "variant": "dongbei", "rounds": 1, "hands_per_round": 1, "duplicate": True},
        content_type="application/json",
    )
    assert made.status_code == 201, made.content
    pk = made.json()["id"]
    assert made.json()["status"] == "draft" and made.json()["organiser"] == "organiser"
    assert Client().post("/api/tournaments/", {"name": "x", "variant": "dongbei"}).status_code == 403

    def manage(client: Client, **body: Any) -> Any:
        return client.post(f"/api/tournaments/{pk}/manage/", body, content_type="application/json")

    assert manage(api, do="open").json()["status"] == "registration"
    stranger = Client()
    stranger.force_login(players[0])
    assert manage(stranger, do="close").status_code == 400
    for p in players:
        services.register(pk, p)
    assert manage(api, do="close").json()["status"] == "closed"
    assert manage(api, do="start_round").json()["status"] == "running"
    detail = stranger.get(f"/api/tournaments/{pk}/").json()
    assert detail["my_table"]["status"] == "playing" and detail["my_table"]["play"].startswith("/tables/")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lang", "rounds", "hands", "want"),
    [
        ("en", 1, 1, "1 round of 1 hand"),
        ("en", 3, 2, "3 rounds of 2 hands"),
        ("zh-hans", 1, 1, "共 1 轮，每轮 1 局"),
        ("zh-hans", 3, 2, "共 3 轮，每轮 2 局"),
    ],
)
def test_the_event_page_counts_rounds_and_hands_in_words_that_agree(
    client: Any, lang: str, rounds: int, hands: int, want: str
) -> None:
    """Counts take the word's singular or plural as the number needs: never "1 hands"."""
    from django.contrib.auth import get_user_model

    from tournaments import services as events

    organiser = get_user_model().objects.create_user(f"org-{lang}-{rounds}", password="pw-123456")
    cup = events.create_tournament(organiser, "Cup", "zhejiang_caishen", {}, rounds=rounds, hands_per_round=hands)
    events.open_registration(cup.pk, organiser)  # a draft is the organiser's alone
    html = client.get(f"/tournaments/{cup.pk}/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert want in " ".join(html.split())
    assert "1 hands" not in html and "1 rounds" not in html
