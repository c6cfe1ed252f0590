"""Spectating: public view only, delayed by CAISHEN_SPECTATOR_DELAY, private tables by
invitation, and the watcher count shown to the players."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.core.cache import cache
from django.utils import timezone

from games import services, spectating
from games.models import Hand, Table
from games.routing import websocket_urlpatterns
from games.views import ROOM_CODES_SESSION_KEY
from tests.platform.live_helpers import rigged

pytestmark = pytest.mark.django_db(transaction=True)

APP = URLRouter(websocket_urlpatterns)
DELAY = 0.6


@pytest.fixture(autouse=True)
def live_settings(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_SWEEP_SECONDS = 0
    settings.CAISHEN_TIMERS = "inprocess"
    settings.CAISHEN_SPECTATOR_DELAY = DELAY
    cache.clear()


@pytest.fixture
def players() -> list[Any]:
    User = get_user_model()
    return [User.objects.create_user(f"p{i}", password="pw-123456") for i in range(4)]


def playing_table(players: list[Any], is_private: bool = False) -> tuple[Table, Hand]:
    table = services.create_table(players[0], "zhejiang_caishen", {}, hands_total=1, is_private=is_private)
    for p in players:
        services.sit(table.pk, p)
    for s in table.seats.all():
        s.ready = True
        s.save()
    table.refresh_from_db()
    services.start_match(table, first_hand=rigged())
    return table, Hand.objects.get(table=table)


class Client:
    def __init__(self, table: Table, user: Any | None, session: Any = None) -> None:
        self.comm = WebsocketCommunicator(APP, f"/ws/table/{table.pk}/")
        self.comm.scope["user"] = user
        if session is not None:
            self.comm.scope["session"] = session
        self.frames: list[tuple[float, dict[str, Any]]] = []

    async def open(self, timeout: float = 1) -> tuple[bool, Any]:
        return await self.comm.connect(timeout=timeout)

    async def first(self) -> dict[str, Any]:
        frame = await self.comm.receive_json_from(timeout=5)
        self.frames.append((time.monotonic(), frame))
        return frame

    async def until(self, wanted: Any) -> dict[str, Any]:
        """Frames until one satisfies ``wanted`` (5 s at most: slow machines)."""
        while True:
            frame = await self.first()
            if wanted(frame):
                return frame

    async def drain(self, quiet: float = 0.15) -> list[dict[str, Any]]:
        got = []
        while not await self.comm.receive_nothing(timeout=quiet):
            frame = await self.comm.receive_json_from(timeout=5)
            self.frames.append((time.monotonic(), frame))
            got.append(frame)
        return got


def concealed_in(frame: dict[str, Any]) -> list[Any]:
    """Every concealed tile a watcher's frame carries while the hand runs (must be none)."""
    hand = frame.get("hand")
    leaks: list[Any] = []
    if hand and hand["status"] == "playing":
        assert hand["seed"] is None
        for p in hand["view"]["players"]:
            if p["hand"] is not None or p["drawn"] is not None:
                leaks.append(p)
            for m in p["melds"]:
                if m["kind"] == "kong_concealed" and m["tiles"] is not None:
                    leaks.append(m)
        assert hand["view"]["legal_actions"] == [] and hand["view"]["window"] is None
    for e in frame.get("events", []):
        if e.get("kind") == "draw" and "tile" in e:
            leaks.append(e)
        if e.get("kind") == "kong" and e.get("meld", {}).get("kind") == "kong_concealed" and e["meld"]["tiles"]:
            leaks.append(e)
    return leaks


def test_watchers_get_the_public_view_late_and_players_see_the_count(players: list[Any]) -> None:
    table, hand = playing_table(players)

    async def scenario() -> None:
        east = Client(table, players[0])
        assert (await east.open())[0]
        first = await east.first()
        assert first["table"]["watchers"] == 0
        await east.drain()
        watcher = Client(table, None)
        assert (await watcher.open())[0]
        snapshot = await watcher.first()
        assert snapshot["you"] is None and snapshot["table"]["spectator_delay"] == DELAY
        # The player's socket re-reads its snapshot: one watcher now.
        await east.until(lambda f: f["table"].get("watchers") == 1)
        await east.drain()
        # East discards: the players see it at once, the watcher only after the delay.
        acted_at = time.monotonic()
        await east.comm.send_json_to(
            {"type": "act", "hand": hand.pk, "seq": hand.seq, "action": {"do": "discard", "tile": "6s"}}
        )
        updates = [await east.until(lambda f: f["type"] == "update")]
        updates += [f for f in await east.drain() if f["type"] == "update"]
        assert updates and updates[-1]["table"]["watchers"] == 1
        early = [f for f in await watcher.drain(0.05) if f["type"] == "update"]
        assert early == [], "a watcher received play before the delay"
        await watcher.until(lambda f: f["type"] == "update")
        await watcher.drain(0.3)
        late = [(at, f) for at, f in watcher.frames if f["type"] == "update"]
        assert late, "the watcher never saw the play"
        assert all(at - acted_at >= DELAY * 0.9 for at, _ in late)
        assert {f["seq"] for _, f in late} == {f["seq"] for f in updates}
        for _, frame in watcher.frames:
            assert concealed_in(frame) == []
        await watcher.comm.disconnect()
        await asyncio.sleep(0.05)
        await east.until(lambda f: f["table"].get("watchers") == 0)
        await east.comm.disconnect()

    async_to_sync(scenario)()


def test_a_watchers_snapshot_is_the_table_as_it_was_delay_seconds_ago(players: list[Any]) -> None:
    table, hand = playing_table(players)
    began = timezone.now()
    services.submit(hand.pk, players[0], {"do": "discard", "tile": "6s"}, hand.seq)
    hand.refresh_from_db()
    table.refresh_from_db()
    assert hand.seq > 1
    # Delay seconds before the discard: the hand as dealt, no discard yet, no tile shown.
    before = spectating.spectator_state(table, now=began + timedelta(seconds=DELAY))
    assert before["hand"]["seq"] == 1  # the deal's own step (bots and the rules) only
    assert all(p["discards"] == "" for p in before["hand"]["view"]["players"])
    assert concealed_in(before) == []
    # Long after: the current public view.
    later = spectating.spectator_state(table, now=timezone.now() + timedelta(seconds=DELAY * 2))
    assert later["hand"]["seq"] == hand.seq
    assert concealed_in(later) == []
    # With no delay configured a watcher sees the present.
    assert spectating.spectator_state(table, delay=0)["hand"]["seq"] == hand.seq


def test_private_tables_are_watched_by_invitation_only(players: list[Any]) -> None:
    table, _ = playing_table(players[:4], is_private=True)
    outsider = get_user_model().objects.create_user("outsider", password="pw-123456")
    invited = SessionStore()
    invited[ROOM_CODES_SESSION_KEY] = [table.room_code]
    invited.save()
    stranger = SessionStore()
    stranger.save()

    async def scenario() -> None:
        for user, session in [(None, None), (outsider, stranger)]:
            c = Client(table, user, session)
            connected, code = await c.open()
            assert not connected and code == 4403
        c = Client(table, outsider, invited)
        connected, _ = await c.open()
        assert connected
        frame = await c.first()
        assert frame["you"] is None and concealed_in(frame) == []
        await c.comm.disconnect()

    async_to_sync(scenario)()


def test_the_watcher_count_never_goes_negative() -> None:
    assert spectating.watcher_left(12345) == 0
    assert spectating.watcher_joined(12345) == 1
    assert spectating.watcher_count(12345) == 1
    assert database_sync_to_async is not None


def test_state_for_reader_gives_seated_players_their_view_and_others_the_delayed_one(players: list[Any]) -> None:
    table, hand = playing_table(players)
    mine = spectating.state_for_reader(table, players[0])
    assert mine["you"] == 0 and mine["hand"]["seq"] == hand.seq and "watchers" in mine["table"]
    outsider = get_user_model().objects.create_user("outsider", password="pw-123456")
    watched = spectating.state_for_reader(table, outsider)
    assert watched["you"] is None and watched["table"]["spectator_delay"] == DELAY
    assert watched["hand"] is None  # the hand began less than the delay ago


# ------------------------------------------------------------- resync floods (issue 15)
def reference_view(hand: Hand, seq: int) -> dict[str, Any]:
    """The public view at ``seq`` rebuilt the slow way: the deal and every step up to it."""
    from games.engine.hand import Hand as EngineHand
    from games.engine.state import Action
    from games.models import HandAction, HandStart

    engine = EngineHand.from_json(HandStart.objects.get(hand=hand).snapshot)
    engine.open_empty_windows = True
    for logged in HandAction.objects.filter(hand=hand, seq__lte=seq).order_by("seq", "index"):
        engine.apply_trusted(Action.from_json(logged.action))
    return engine.view(None)


def test_a_watchers_view_is_rendered_once_per_step_and_a_snapshot_replays_nothing(
    players: list[Any], monkeypatch: Any, django_assert_max_num_queries: Any
) -> None:
    table, hand = playing_table(players)
    dealt_at = timezone.now()
    services.submit(hand.pk, players[0], {"do": "discard", "tile": "6s"}, hand.seq)
    hand.refresh_from_db()
    spectating.PUBLIC_VIEWS.clear()
    misses_before = spectating.PUBLIC_VIEWS.misses
    replays: list[int] = []
    real = spectating._replayed
    monkeypatch.setattr(spectating, "_replayed", lambda row, seq: replays.append(seq) or real(row, seq))

    # A watcher's snapshot as the table stood before the discard, and long after it.
    before = dealt_at + timedelta(seconds=DELAY)
    after = timezone.now() + timedelta(seconds=DELAY * 2)
    first = spectating.spectator_state(table, now=before)
    assert first["hand"]["seq"] == 1 and first["hand"]["view"] == reference_view(hand, 1)
    latest = spectating.spectator_state(table, now=after)
    assert latest["hand"]["seq"] == hand.seq and latest["hand"]["view"] == reference_view(hand, hand.seq)
    misses = spectating.PUBLIC_VIEWS.misses
    # Every further snapshot of either moment is the cached view: nothing decoded or replayed,
    # and a handful of small queries (the seq at the cutoff is one of them).
    for _ in range(30):
        with django_assert_max_num_queries(5):
            again = spectating.spectator_state(table, now=after)
        assert again["hand"] == latest["hand"]
        assert spectating.spectator_state(table, now=before)["hand"] == first["hand"]
    assert spectating.PUBLIC_VIEWS.misses == misses == misses_before + 2
    assert len(replays) == 1  # the moment before the discard: the deal, from HandStart
    # A new step is a new key: the next snapshot shows it (no stale view), the old one stays right.
    hand.refresh_from_db()
    moved = next(
        a for a in spectating.spectator_state(table, delay=0)["hand"]["view"]["players"] if a["discards"]
    )  # the present, undelayed: the discard is there
    assert moved["discards"].startswith("6s")
    assert spectating.spectator_state(table, now=before)["hand"]["view"] == reference_view(hand, 1)


def test_the_cache_is_bounded() -> None:
    views = spectating.PublicViews(size=3)
    at = timezone.now()
    for seq in range(10):
        views.put((1, at, seq), {"seq": seq})
    assert views.get((1, at, 0)) is None and views.get((1, at, 9)) == {"seq": 9}
    assert len(views._entries) == 3
