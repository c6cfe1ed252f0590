"""Spectating: public view only, delayed by CAISHEN_SPECTATOR_DELAY, private tables by
invitation, and the watcher count shown to the players."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Mapping
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

from games import services
from games.engine import load_hand
from games.live.routing import websocket_urlpatterns
from games.models import Hand, Table
from games.services import access
from games.services.access import ROOM_CODES_SESSION_KEY
from games.wire import spectating
from tests.platform.live_helpers import WholeFrames, rigged, ws_path

pytestmark = pytest.mark.django_db(transaction=True)

APP = URLRouter(websocket_urlpatterns)
DELAY = 0.6
# How long a socket waits for the server's answer before the test fails: a ceiling that only a
# failure reaches (a busy machine can hold a step up for seconds).
ANSWER_S = 30.0


@pytest.fixture(autouse=True)
def live_settings(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_CLAIM_PROTECTION = "pause"  # quick windows (the uniform one: test_claim_protection.py)
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
        self.comm = WebsocketCommunicator(APP, ws_path(table.pk))
        self.comm.scope["user"] = user
        self.whole = WholeFrames()
        if session is not None:
            self.comm.scope["session"] = session
        self.frames: list[tuple[float, dict[str, Any]]] = []

    async def open(self, timeout: float = 1) -> tuple[bool, Any]:
        return await self.comm.connect(timeout=timeout)

    async def first(self) -> dict[str, Any]:
        frame = self.whole(await self.comm.receive_json_from(timeout=5))
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
            frame = self.whole(await self.comm.receive_json_from(timeout=5))
            self.frames.append((time.monotonic(), frame))
            got.append(frame)
        return got


def concealed_in(frame: Mapping[str, Any]) -> list[Any]:
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
        # Read the watcher's socket at once (the players' updates are in), and again after
        # the delay.  A frame is timed when the test reads it, at or after its arrival: one read
        # before the delay is up arrived before it; slowness can only make the reads later.
        if not any(f["type"] == "update" for f in await watcher.drain(0.05)):
            await watcher.until(lambda f: f["type"] == "update")
        await watcher.drain(0.3)
        late = [(at, f) for at, f in watcher.frames if f["type"] == "update"]
        assert late, "the watcher never saw the play"
        assert all(at - acted_at >= DELAY * 0.9 for at, _ in late), "a watcher received play before the delay"
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
            connected, _ = await c.open()
            # Accepted, then closed with the code (a refusal in the handshake is a bare HTTP 403).
            assert connected
            assert await c.comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4403}
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


def test_a_tables_watcher_count_is_read_once_until_a_watcher_comes_or_goes(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the embedded mode's per-process cache nobody else changes the count: every step's
    frames show it, and only this process's joins and leaves make it read again."""
    spectating.forget_watcher_counts()
    reads: list[int] = []
    real = spectating.watcher_count
    monkeypatch.setattr(spectating, "watcher_count", lambda t: reads.append(t) or real(t))
    now = time.monotonic()
    monkeypatch.setattr(spectating.time, "monotonic", lambda: now)
    assert spectating.recent_watcher_count(777) == 0
    now += 5.0  # a table's steps come seconds apart
    assert spectating.recent_watcher_count(777) == 0
    assert reads == [777]
    spectating.watcher_joined(777)
    assert spectating.recent_watcher_count(777) == 1
    spectating.watcher_left(777)
    assert spectating.recent_watcher_count(777) == 0
    assert reads == [777, 777, 777]


def test_a_watcher_count_read_while_a_watcher_joins_is_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """The step's thread read the count just before a join changed it: that old count must not
    stand until it ages out (it would keep the watchers' frames unrendered)."""
    spectating.forget_watcher_counts()
    real = spectating.watcher_count

    def read_then_someone_joins(table_id: int) -> int:
        count = real(table_id)
        spectating.watcher_joined(table_id)
        return count

    monkeypatch.setattr(spectating, "watcher_count", read_then_someone_joins)
    assert spectating.recent_watcher_count(778) == 0
    monkeypatch.setattr(spectating, "watcher_count", real)
    assert spectating.recent_watcher_count(778) == 1


def test_state_for_reader_gives_seated_players_their_view_and_others_the_delayed_one(players: list[Any]) -> None:
    table, hand = playing_table(players)
    mine = access.state_for_reader(table, players[0])
    assert mine["you"] == 0 and mine["hand"]["seq"] == hand.seq and "watchers" in mine["table"]
    outsider = get_user_model().objects.create_user("outsider", password="pw-123456")
    watched = access.state_for_reader(table, outsider)
    assert watched["you"] is None and watched["table"]["spectator_delay"] == DELAY
    assert watched["hand"] is None  # the hand began less than the delay ago


# ------------------------------------------------------------------------ resync floods
def reference_view(hand: Hand, seq: int) -> dict[str, Any]:
    """The public view at ``seq`` rebuilt the slow way: the deal and every step up to it."""
    from games.engine.state import Action
    from games.models import HandAction, HandStart

    engine = load_hand(HandStart.objects.get(hand=hand).snapshot).with_claim_protection()
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


@pytest.mark.slow
def test_a_resync_flood_from_watchers_does_not_hold_up_seated_play(monkeypatch: Any, settings: Any) -> None:
    """20 anonymous sockets resync 19 times a second while a seated player plays: the flood runs
    3 s and on until the player has had five commands answered (every one it sends is), and the
    watchers' snapshots stay at one per socket per second of the flood as it lasted (counted
    against the flood's measured length, not against a length the test expects: the machine is
    shared)."""
    settings.CAISHEN_SPECTATOR_DELAY = 0.2
    settings.CAISHEN_BETWEEN_HANDS_SECONDS = 0.2
    settings.CAISHEN_WATCHER_SYNC_SECONDS = 1.0
    User = get_user_model()
    alice = User.objects.create_user("alice", password="pw-123456")
    table = services.create_table(alice, "zhejiang_caishen", {}, hands_total=16, turn_seconds=300)
    services.sit(table.pk, alice, 0)
    services.add_bots(table.pk, alice)
    services.set_ready(table.pk, alice)
    table.refresh_from_db()
    assert table.status == Table.PLAYING

    renders = [0]
    real = spectating.spectator_state

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        renders[0] += 1
        return dict(real(*args, **kwargs))

    monkeypatch.setattr(spectating, "spectator_state", counted)
    flood_began: list[Any] = []
    # The flood lasts at least ``flood_min_s`` and until the player has had ``commands`` answered.
    watchers_n, rate, commands, flood_min_s = 20, 19, 5, 3.0
    sync_s = settings.CAISHEN_WATCHER_SYNC_SECONDS
    tail_s = 1.5  # the reading goes on this long after the flood: the last coalesced answers

    async def scenario() -> tuple[list[float], list[int], float]:
        seated = Client(table, alice)
        assert (await seated.open())[0]
        watchers = [Client(table, None) for _ in range(watchers_n)]
        for w in watchers:
            # (each join re-sends every socket a snapshot, the watcher count: the 20th waits)
            assert (await w.open(timeout=10))[0]
        # Settle: the connects' snapshots, their delayed second ones and the snapshots every
        # join's table change (the watcher count) sends every socket.
        while any(await asyncio.gather(*(c.drain(0.3) for c in (seated, *watchers)))):
            pass
        renders[0] = 0
        flood_began.append(timezone.now())
        snapshots = [0] * watchers_n
        played = asyncio.Event()
        flood_s: list[float] = []  # how long the flood lasted, as it happened
        stop = [0.0]  # when the reading ends: ``tail_s`` after the player is done

        async def flood(i: int) -> None:
            while not played.is_set():
                await watchers[i].comm.send_json_to({"type": "resync"})
                await asyncio.sleep(1 / rate)

        async def read(i: int) -> None:
            while not played.is_set() or time.monotonic() < stop[0]:
                if await watchers[i].comm.receive_nothing(timeout=0.1):
                    continue
                if (await watchers[i].comm.receive_json_from())["type"] == "snapshot":
                    snapshots[i] += 1

        async def play() -> list[float]:
            """The seated player: answers every frame that asks something of it, after a short
            think; the round trip runs from the command to the step's update."""
            trips: list[float] = []
            await seated.comm.send_json_to({"type": "resync"})
            frame = seated.whole(await seated.comm.receive_json_from(timeout=ANSWER_S))
            while len(trips) < commands or time.monotonic() - began < flood_min_s:
                hand = frame.get("hand") or {}
                legal = (hand.get("view") or {}).get("legal_actions") or []
                if frame["type"] not in ("snapshot", "update") or hand.get("status") != "playing" or not legal:
                    frame = seated.whole(await seated.comm.receive_json_from(timeout=ANSWER_S))
                    continue
                await asyncio.sleep(0.05)
                action = next((a for a in legal if a["do"] == "discard"), legal[0])
                action = {k: v for k, v in action.items() if k != "seat"}
                sent = time.monotonic()
                await seated.comm.send_json_to(
                    {"type": "act", "hand": hand["id"], "seq": hand["seq"], "action": action}
                )
                while True:  # answered by the step's update
                    frame = seated.whole(await seated.comm.receive_json_from(timeout=ANSWER_S))
                    assert frame["type"] not in ("refused", "error"), frame
                    if frame["type"] == "update" and (frame["hand"]["id"], frame["seq"]) > (hand["id"], hand["seq"]):
                        trips.append(time.monotonic() - sent)
                        break
            flood_s.append(time.monotonic() - began)
            stop[0] = time.monotonic() + tail_s
            played.set()
            return trips

        began = time.monotonic()
        results = await asyncio.gather(
            play(), *(flood(i) for i in range(watchers_n)), *(read(i) for i in range(watchers_n))
        )
        renders.append(renders[0])  # before the closes: each leave re-sends the others a snapshot
        for c in (seated, *watchers):
            await c.comm.disconnect()
        trips = results[0]
        assert trips is not None
        return trips, snapshots, flood_s[0]

    trips, snapshots, elapsed = async_to_sync(scenario)()
    # Each hand begun re-sends every socket a snapshot (a table change: not a resync's doing).
    begun = Hand.objects.filter(table=table, started_at__gte=flood_began[0]).count()
    # One resync answered at once, one per interval while the flood lasted, one for the last
    # interval's resyncs.
    allowed = 2 + math.ceil(elapsed / sync_s) + begun
    sent = int(elapsed * rate)
    print(
        f"\n{watchers_n} watchers x ~{sent} resyncs: {renders[1]} snapshot renders ({begun} hands begun), "
        f"per socket {snapshots}; seated commands {len(trips)}, round trip median "
        f"{sorted(trips)[len(trips) // 2] * 1000:.0f} ms, max {max(trips) * 1000:.0f} ms, in {elapsed:.1f} s"
    )
    assert len(trips) >= commands  # every command answered while the flood ran
    assert all(0 < n <= allowed for n in snapshots), snapshots  # every socket answered, coalesced
    assert renders[1] <= watchers_n * allowed, renders[1]


def test_a_watchers_resyncs_and_pings_are_coalesced_not_dropped(players: list[Any], settings: Any) -> None:
    """Ten resyncs at once: one snapshot now, one more when the interval is up, none after; five
    pings likewise two pongs (their seq is current) — answered late, never lost."""
    settings.CAISHEN_WATCHER_SYNC_SECONDS = 0.5
    table, _ = playing_table(players)

    async def scenario() -> None:
        watcher = Client(table, None)
        assert (await watcher.open())[0]
        await watcher.first()
        await watcher.drain(DELAY + 0.2)  # the delayed second snapshot of the connect
        asked = time.monotonic()
        for _ in range(10):
            await watcher.comm.send_json_to({"type": "resync"})
        got = await watcher.drain(1.0)
        assert [f["type"] for f in got] == ["snapshot", "snapshot"], got
        late = [at for at, f in watcher.frames[-2:]]
        assert late[1] - asked >= 0.5 * 0.9  # the coalesced one waited for the interval
        seq = got[-1]["hand"]["seq"]
        for _ in range(5):
            await watcher.comm.send_json_to({"type": "ping", "seq": seq})
        answers = await watcher.drain(1.0)  # the first at once, the other four in one answer
        assert answers == [{"type": "pong", "seq": seq}] * 2, answers
        await watcher.comm.disconnect()

    async_to_sync(scenario)()


def test_watchers_asking_at_once_share_one_render_and_never_get_an_older_state() -> None:
    renders = spectating.SharedRenders()
    started: list[int] = []

    async def scenario() -> None:
        gate = asyncio.Event()

        async def render() -> dict[str, int]:
            started.append(len(started) + 1)
            n = len(started)
            await gate.wait()
            return {"render": n}

        # Ten requests at once: one render, shared.
        first = [asyncio.ensure_future(renders.get("t", render)) for _ in range(10)]
        await asyncio.sleep(0.01)
        assert started == [1]
        # Asked while that render runs: it began before them, so they get the next one.
        later = [asyncio.ensure_future(renders.get("t", render)) for _ in range(5)]
        await asyncio.sleep(0.01)
        gate.set()
        assert [r["render"] for r in await asyncio.gather(*first)] == [1] * 10
        assert [r["render"] for r in await asyncio.gather(*later)] == [2] * 5
        assert started == [1, 2] and renders.renders == 2

        async def broken() -> dict[str, int]:
            raise RuntimeError("database down")

        with pytest.raises(RuntimeError):
            await renders.get("t", broken)
        assert (await renders.get("t", render))["render"] == 3  # a failure is not kept

    async_to_sync(scenario)()


def test_watchers_joining_do_not_each_render_a_snapshot_for_every_other(
    players: list[Any], monkeypatch: Any, settings: Any
) -> None:
    """Each join changes the watcher count, a table change every socket re-reads: with every
    watcher rendering its own snapshot, N watchers joining cost about N²/2 renders.  Watchers
    re-read through the shared, rate-limited path (as a resync), so the renders stay linear."""
    settings.CAISHEN_SPECTATOR_DELAY = 0
    settings.CAISHEN_WATCHER_SYNC_SECONDS = 1.0
    table, _ = playing_table(players[:4])
    renders = [0]
    real = spectating.spectator_state

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        renders[0] += 1
        return dict(real(*args, **kwargs))

    monkeypatch.setattr(spectating, "spectator_state", counted)
    n = 12

    async def scenario() -> None:
        watchers = [Client(table, None) for _ in range(n)]
        for w in watchers:
            assert (await w.open())[0]
        # Past the rate limit the coalesced answers go out: each watcher's brings the full count.
        await asyncio.gather(*(w.until(lambda f: f.get("table", {}).get("watchers") == n) for w in watchers))
        await asyncio.gather(*(w.drain(0.3) for w in watchers))
        assert all(w.frames and w.frames[-1][1]["table"]["watchers"] == n for w in watchers)
        for w in watchers:
            await w.comm.disconnect()

    async_to_sync(scenario)()
    # Own connect snapshots (n), one coalesced answer per watcher (n), a few shared renders.
    assert renders[0] <= 3 * n, renders[0]
