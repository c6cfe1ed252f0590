"""Duplicate rounds deal the same walls at every table: a finished hand's seed, revealed hands
and replay stay withheld (``games.records.disclosure``) until every table of the round has finished that
hand — through every surface: the REST API, the replay page and export, the table page, the
tournament pages and exports, the spectator's snapshots and the socket's frames."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from games import services as games
from games.engine import load_hand
from games.engine.hand import Hand as EngineHand
from games.engine.tiles import format_tiles, parse_tiles
from games.live.routing import websocket_urlpatterns
from games.models import Hand, HandStart, Seat, Table
from games.records import disclosure
from games.services import access
from games.wire import spectating
from tests.platform.live_helpers import WholeFrames, ws_path
from tests.polling import HANDSHAKE_S
from tournaments import services
from tournaments.models import Round

pytestmark = pytest.mark.django_db(transaction=True)

APP = URLRouter(websocket_urlpatterns)


@pytest.fixture(autouse=True)
def live_settings(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_SWEEP_SECONDS = 0
    settings.CAISHEN_TIMERS = "inprocess"
    settings.CAISHEN_BETWEEN_HANDS_SECONDS = 600  # nothing moves unless the test says so
    settings.CAISHEN_SPECTATOR_DELAY = 0  # watchers see the present: the strictest case


class Event:
    """A duplicate event of 8 players: round 1 seats two tables dealt from the same seeds."""

    def __init__(self) -> None:
        User = get_user_model()
        self.organiser = User.objects.create_user("organiser", password="pw-123456")
        self.players = [User.objects.create_user(f"dup{i}", password="pw-123456") for i in range(8)]
        self.event = services.create_tournament(
            self.organiser,
            "Dup cup",
            "zhejiang_caishen",
            rounds=1,
            hands_per_round=2,
            duplicate=True,
            turn_seconds=300,
            claim_seconds=120,
            max_players=8,
        )
        services.open_registration(self.event.pk, self.organiser)
        for p in self.players:
            services.register(self.event.pk, p)
        services.close_registration(self.event.pk, self.organiser)
        services.publish(self.event.pk, self.organiser)  # standings and exports public: scan them too
        self.round: Round = services.start_round(self.event.pk, self.organiser)
        links = list(self.round.tables.select_related("table").order_by("number"))
        self.t1, self.t2 = links[0].table, links[1].table
        self.at_t1 = [s.user for s in links[0].seats.order_by("position")]
        self.at_t2 = [s.user for s in links[1].seats.order_by("position")]

    def hand(self, table: Table, number: int) -> Hand:
        return Hand.objects.get(table=table, number=number)


def finish_hand(table: Table, number: int) -> Hand:
    """托管 plays every chair of ``table`` until its hand ``number`` is over (the next hand is
    not begun: the between-hands pause is long)."""
    Seat.objects.filter(table=table).update(auto_play=True)
    past = timezone.now().replace(year=2000)
    for _ in range(200):
        row = Hand.objects.get(table=table, number=number)
        if row.status == Hand.FINISHED:
            Seat.objects.filter(table=table).update(auto_play=False)
            return row
        Hand.objects.filter(pk=row.pk).update(deadline_at=past)
        games.wake("hand", row.pk, row.seq)
    raise AssertionError("the hand never finished")


def begin_next_hand(table: Table) -> Hand:
    row = Hand.objects.filter(table=table).order_by("-number").first()
    assert row is not None and row.status == Hand.FINISHED
    Hand.objects.filter(pk=row.pk).update(deadline_at=timezone.now().replace(year=2000))
    assert games.wake("hand", row.pk, row.seq)
    return Hand.objects.filter(table=table).order_by("-number").first()  # type: ignore[return-value]


def engine_of(row: Hand) -> EngineHand:
    row.refresh_from_db()
    return games.decoded_engine(row)


class Secrets:
    """What no reader may see while hand 1 of table 1 is withheld, and whose it is."""

    def __init__(self, ev: Event) -> None:
        h1 = ev.hand(ev.t1, 1)
        start = HandStart.objects.get(hand=h1).snapshot
        self.seeds = [h1.seed, ev.round.seed]
        assert h1.seed == services.derive_seed(ev.round.seed, 1) == ev.hand(ev.t2, 1).seed
        dealt = load_hand(start)
        self.wall = format_tiles(dealt.wall.tiles)
        # Table 1's hands as revealed at its end: its own players may see them, nobody else.
        self.revealed_t1 = [format_tiles(p.hand) for p in engine_of(h1).players]
        # Table 2's concealed hands, still in play (chair -> tiles): each only to its own player.
        h2 = ev.hand(ev.t2, 1)
        e2 = engine_of(h2)
        self.concealed_t2 = {chair: format_tiles(e2.players[h2.engine_seat(chair)].hand) for chair in range(4)}

    def leaks(self, text: str, *, t1_player: bool = False, t2_chair: int | None = None) -> list[str]:
        found = [f"seed {s}" for s in self.seeds if s and s in text]
        if self.wall in text:
            found.append("the wall")
        if not t1_player:
            found += [f"table 1 hand {h}" for h in self.revealed_t1 if telling(h) and h in text]
        found += [
            f"table 2 chair {c}: {h}"
            for c, h in self.concealed_t2.items()
            if c != t2_chair and telling(h) and h in text
        ]
        return found


def telling(tiles: str) -> bool:
    """Whether a hand's notation is long enough that finding it in a response means the hand
    is there: a hand left with one or two tiles after its melds ("6m") is in every page."""
    return len(parse_tiles(tiles)) >= 5


def client_for(user: Any | None) -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


def every_get_url(ids: dict[str, list[int]]) -> list[str]:
    """Every URL of the project a GET can reach (admin aside), each integer argument filled with
    the ids of what the route names (``hands/<pk>``: every hand; ``tables/<pk>``: both tables;
    ``tournaments/<pk>``: the event) — a route naming none of them gets every id."""
    skip = ("admin/", "api/schema/", "api/docs/", "i18n/", "accounts/logout/")
    everything = sorted({i for group in ids.values() for i in group})
    urls: list[str] = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for p in patterns:
            route = prefix + str(p.pattern)
            if isinstance(p, URLResolver):
                walk(p.url_patterns, route)
                continue
            assert isinstance(p, URLPattern)
            if route.startswith(skip) or route.startswith("^"):
                continue
            params = re.findall(r"<(\w+):(\w+)>", route)
            if any(kind != "int" for kind, _ in params):
                continue  # rule set slugs: nothing about hands
            if not params:
                urls.append("/" + route)
                continue
            named = [key for key in ids if re.search(rf"(^|/){key}/<int:", route)]
            for i in ids[named[-1]] if named else everything:
                urls.append("/" + re.sub(r"<int:\w+>", str(i), route))

    walk(get_resolver().url_patterns, "")
    return sorted(set(urls))


READERS = ("anonymous", "organiser", "table 2 chair 0", "table 1 chair 0")


def scan(ev: Event, secrets: Secrets, readers: tuple[str, ...] = READERS) -> dict[str, list[str]]:
    """GET every URL as an anonymous visitor, the organiser, a player of table 2 and one of
    table 1; the leaks each response carries."""
    ids = {
        "hands": [h.pk for h in Hand.objects.all()],
        "tables": [ev.t1.pk, ev.t2.pk],
        "tournaments": [ev.event.pk],
    }
    who = {
        "anonymous": (None, {}),
        "organiser": (ev.organiser, {}),
        "table 2 chair 0": (ev.at_t2[0], {"t2_chair": 0}),
        "table 1 chair 0": (ev.at_t1[0], {"t1_player": True}),
    }
    urls = every_get_url(ids)
    assert any(u.startswith("/api/hands/") for u in urls) and any(u.startswith("/hands/") for u in urls)
    found: dict[str, list[str]] = {}
    for name in readers:
        user, allowed = who[name]
        c = client_for(user)
        for url in urls:
            res = c.get(url)
            body = b"".join(res.streaming_content) if res.streaming else res.content  # type: ignore[attr-defined]
            leaks = secrets.leaks(body.decode("utf-8", "replace"), **allowed)
            if leaks:
                found[f"{name} GET {url} ({res.status_code})"] = leaks
    return found


# ------------------------------------------------------------------------------- tests
def test_a_hand_finished_at_one_table_stays_withheld_until_every_table_has_finished_it(monkeypatch: Any) -> None:
    ev = Event()
    h1 = finish_hand(ev.t1, 1)
    assert ev.hand(ev.t2, 1).status == Hand.PLAYING
    secrets = Secrets(ev)
    assert disclosure.withheld(h1) and not disclosure.may_disclose(h1)

    # The hand's own endpoints say why, and show nothing.
    anon = Client()
    for url in (
        f"/api/hands/{h1.pk}/",
        f"/api/hands/{h1.pk}/replay.jsonl",
        f"/api/hands/{h1.pk}/analysis/",
        f"/api/hands/{h1.pk}/verify/",
    ):
        res = anon.get(url)
        assert res.status_code == 403 and res.json() == {"detail": disclosure.WITHHELD}, url
    page = anon.get(f"/hands/{h1.pk}/replay/")
    assert page.status_code == 403 and "withheld until every table of the round has finished" in page.content.decode()
    # Its players too: the replay carries the wall.
    mine = client_for(ev.at_t1[0]).get(f"/api/hands/{h1.pk}/replay.jsonl")
    assert mine.status_code == 403

    # Every page and API response, for every reader: no seed, no wall, no hand that is not theirs.
    assert scan(ev, secrets) == {}
    # (The scan does see them when nothing withholds: the check is what keeps them back.)
    monkeypatch.setattr(disclosure, "DISCLOSURE_CHECKS", [])
    seen = scan(ev, secrets, readers=("anonymous",))
    assert {f"anonymous GET /api/hands/{h1.pk}/ (200)", f"anonymous GET /hands/{h1.pk}/replay/ (200)"} <= set(seen)
    monkeypatch.undo()

    # The spectator's view (undelayed here, and delayed) of table 1 between hands: "finished",
    # no result, no seed and no revealed hand; the reason instead.
    for state in (
        spectating.spectator_state(ev.t1),
        spectating.spectator_state(ev.t1, now=timezone.now() + timedelta(seconds=30), delay=3),
    ):
        hand = state["hand"]
        assert hand["id"] == h1.pk and hand["status"] == Hand.FINISHED and hand["view"]["result"] is None
        assert hand["deltas"] is None
        assert hand["seed"] is None and hand["view"]["seed"] is None and hand["view"]["revealed"] is None
        assert hand["withheld"] == disclosure.WITHHELD
        assert secrets.leaks(json.dumps(state)) == []
    # A player of table 1 keeps the hand-end result, their own hand and the winner's (if any)
    # — but not the seed nor the other hands.
    own = access.state_for_reader(ev.t1, ev.at_t1[1])["hand"]
    result = own["view"]["result"]
    assert result and set(own["view"]["revealed"]) == {own["view"]["seat"], result["winner"]} - {None}
    assert own["seed"] is None and own["view"]["seed"] is None and own["withheld"] == disclosure.WITHHELD
    assert secrets.leaks(json.dumps(own), t1_player=True) == []

    # Table 1 moves on to hand 2 and finishes it too: both wait for table 2.
    begin_next_hand(ev.t1)
    h1b = finish_hand(ev.t1, 2)
    assert disclosure.withheld(h1b) and anon.get(f"/api/hands/{h1b.pk}/").status_code == 403
    secrets.seeds.append(h1b.seed)
    secrets.revealed_t1 += [format_tiles(p.hand) for p in engine_of(h1b).players]
    assert scan(ev, secrets) == {}

    # Table 2 finishes hand 1: hand 1 opens everywhere at once (no stale cache), hand 2 still waits.
    finish_hand(ev.t2, 1)
    assert disclosure.may_disclose(h1) and not disclosure.may_disclose(h1b)
    record = anon.get(f"/api/hands/{h1.pk}/")
    assert record.status_code == 200 and record.json()["seed"] == h1.seed and record.json()["revealed"]
    assert anon.get(f"/api/hands/{h1.pk}/replay.jsonl").status_code == 200
    assert anon.get(f"/api/hands/{h1.pk}/verify/").json()["ok"] is True
    assert anon.get(f"/hands/{h1.pk}/replay/").status_code == 200
    assert anon.get(f"/api/hands/{h1b.pk}/").status_code == 403
    html = anon.get(f"/tournaments/{ev.event.pk}/").content.decode()
    assert f"/hands/{h1.pk}/replay/" in html and f"/hands/{h1b.pk}/replay/" not in html
    # The table 2 hand 1 the spectator now sees, ended: seed and every hand.
    watched = spectating.spectator_state(ev.t2)["hand"]
    assert watched["seed"] == h1.seed and watched["view"]["revealed"] and watched["withheld"] is None

    # Table 2 plays hand 2 out: the round is over, everything is public.
    begin_next_hand(ev.t2)
    finish_hand(ev.t2, 2)
    assert disclosure.may_disclose(h1b) and anon.get(f"/api/hands/{h1b.pk}/").json()["seed"] == h1b.seed
    shown = spectating.spectator_state(ev.t1)["hand"]
    assert shown["id"] == h1b.pk and shown["seed"] == h1b.seed and shown["view"]["revealed"]
    assert json.loads(anon.get(f"/tournaments/{ev.event.pk}/standings.json").content)["rounds"][0]["seed"]


def test_the_hand_end_frames_of_a_withheld_hand() -> None:
    """The socket: the step that ends table 1's hand 1 sends its players the result and their
    own hand but no seed, and its watchers nothing but "finished"; snapshots likewise."""
    ev = Event()

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
        seated = WebsocketCommunicator(APP, ws_path(ev.t1.pk))
        seated.scope["user"] = ev.at_t1[0]
        watcher = WebsocketCommunicator(APP, ws_path(ev.t1.pk))
        wholes = {id(seated): WholeFrames(), id(watcher): WholeFrames()}
        watcher.scope["user"] = ev.at_t2[0]  # a player of the other table, watching this one
        for comm in (seated, watcher):
            assert (await comm.connect(timeout=HANDSHAKE_S))[0]

        async def hand_end(comm: WebsocketCommunicator) -> dict[str, Any]:
            while True:
                frame = wholes[id(comm)](await comm.receive_json_from(timeout=5))
                if any(e.get("kind") == "hand_end" for e in frame.get("events", [])):
                    return frame

        await database_sync_to_async(finish_hand)(ev.t1, 1)
        frames = (await hand_end(seated), await hand_end(watcher))
        snapshots = []
        for comm in (seated, watcher):
            await comm.send_json_to({"type": "resync"})
            while (frame := await comm.receive_json_from(timeout=5))["type"] != "snapshot":
                pass
            snapshots.append(frame)
        for comm in (seated, watcher):
            await comm.disconnect()
        return frames[0], frames[1], snapshots[0], snapshots[1]

    seated, watched, seated_snap, watched_snap = async_to_sync(scenario)()
    secrets = Secrets(ev)
    for frame in (seated, seated_snap):
        hand = frame["hand"]
        assert hand["status"] == Hand.FINISHED and hand["view"]["revealed"] and hand["view"]["result"]
        assert hand["seed"] is None and hand["view"]["seed"] is None and hand["withheld"] == disclosure.WITHHELD
        assert secrets.leaks(json.dumps(frame), t1_player=True) == []
    end = next(e for e in seated["events"] if e["kind"] == "hand_end")
    assert end["hands"] and end["seed"] is None
    for frame in (watched, watched_snap):
        hand = frame["hand"]
        assert hand["view"]["revealed"] is None and hand["seed"] is None and hand["view"]["seed"] is None
        assert hand["withheld"] == disclosure.WITHHELD
        assert secrets.leaks(json.dumps(frame), t2_chair=0) == []
    end = next(e for e in watched["events"] if e["kind"] == "hand_end")
    assert end["hands"] is None and end["seed"] is None and end["result"] is None
    assert not any(e["kind"] in ("win", "exhaustive_draw") for e in watched["events"])
    assert watched["hand"]["view"]["result"] is None and watched_snap["hand"]["view"]["result"] is None


def test_ordinary_tables_and_over_rounds_disclose_at_once() -> None:
    """Nothing changes outside duplicate rounds: a finished hand's secrets are public at once."""
    User = get_user_model()
    owner = User.objects.create_user("owner", password="pw-123456")
    table = games.create_table(owner, "zhejiang_caishen", {}, hands_total=1)
    games.add_bots(table.pk, owner)
    row = Hand.objects.get(table=table)
    assert row.status == Hand.FINISHED and disclosure.may_disclose(row)
    state = spectating.spectator_state(table)
    assert state["hand"]["seed"] == row.seed and state["hand"]["withheld"] is None
    assert Client().get(f"/api/hands/{row.pk}/").json()["seed"] == row.seed
