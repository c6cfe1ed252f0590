"""Live tables through real sockets: four seats play a rigged hand to settlement.

Consumers run under channels' WebsocketCommunicator with the in-memory layer;
bots act in-line (CAISHEN_BOT_DELAY = 0) and no sweeper runs, so the test
drives every step itself.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model

from accounts.models import LedgerEntry, Wallet
from games import services
from games.live.routing import websocket_urlpatterns
from games.models import Hand, Table
from games.runtime.fanout import seat_group
from games.runtime.process import runtime
from tests.platform.live_helpers import WholeFrames, rigged, ws_path
from tests.polling import HANDSHAKE_S

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]

APP = URLRouter(websocket_urlpatterns)


@pytest.fixture
def players() -> list[Any]:
    User = get_user_model()
    return [User.objects.create_user(f"p{i}", password="pw-123456") for i in range(4)]


def seated_table(players: list[Any], stake: int = 5) -> Table:
    table = services.create_table(players[0], "zhejiang_caishen", {}, stake=stake, hands_total=1)
    for p in players:
        services.sit(table.pk, p)
    return table


def dealt_table(players: list[Any]) -> tuple[Table, Hand]:
    """The four players seated and ready: the first hand is dealt."""
    table = seated_table(players)
    for p in players:
        services.set_ready(table.pk, p)
    return table, Hand.objects.get(table=table)


class Client:
    def __init__(self, table: Table, user: Any | None) -> None:
        self.comm = WebsocketCommunicator(APP, ws_path(table.pk))
        self.comm.scope["user"] = user
        self.frames: list[dict[str, Any]] = []
        self.whole = WholeFrames()

    async def open(self) -> dict[str, Any]:
        connected, _ = await self.comm.connect(timeout=HANDSHAKE_S)
        assert connected
        return await self.recv()

    async def recv(self) -> dict[str, Any]:
        frame = self.whole(await self.comm.receive_json_from(timeout=5))
        self.frames.append(frame)
        return frame

    async def drain(self) -> list[dict[str, Any]]:
        got = []
        while not await self.comm.receive_nothing(timeout=0.2):
            got.append(await self.recv())
        return got

    async def act(self, hand: int, seq: int, **action: Any) -> None:
        await self.comm.send_json_to({"type": "act", "hand": hand, "seq": seq, "action": action})


def concealed_of_others(frame: dict[str, Any], me: int | None) -> list[Any]:
    """Every concealed-hand field of another chair that a frame carries (must be empty)."""
    hand = frame.get("hand")
    if not hand:
        return []
    winds = hand["winds"]
    mine = winds[str(me)] if me is not None else None
    leaks = []
    if hand["status"] == "playing":
        for p in hand["view"]["players"]:
            if p["seat"] != mine and (p["hand"] is not None or p["drawn"] is not None):
                leaks.append(p)
    for e in frame.get("events", []):
        if e.get("kind") == "draw" and e.get("seat") != mine and "tile" in e:
            leaks.append(e)
    return leaks


def test_four_seats_play_a_rigged_hand_to_settlement(players: list[Any]) -> None:
    table = seated_table(players)

    async def scenario() -> None:
        clients = [Client(table, p) for p in players]
        watcher = Client(table, None)
        for c in [*clients, watcher]:
            await c.open()
        # Ready up; the fourth ready starts the match with the rigged hand.
        from channels.db import database_sync_to_async

        def ready_all() -> None:
            for p in players[:3]:
                services.set_ready(table.pk, p)
            original = services.match.start_match
            services.match.start_match = lambda t, first_hand=None: original(t, rigged())  # type: ignore[assignment]
            try:
                services.set_ready(table.pk, players[3])
            finally:
                services.match.start_match = original  # type: ignore[assignment]

        await database_sync_to_async(ready_all)()
        for c in [*clients, watcher]:
            await c.drain()
        hand = await database_sync_to_async(lambda: Hand.objects.get(table=table))()
        # A stale seq is refused with a reason and changes nothing.
        await clients[0].act(hand.pk, hand.seq + 5, do="discard", tile="6s")
        refused = await clients[0].recv()
        assert refused["type"] == "refused" and "stale" in refused["reason"]
        # E (chair 0, the dealer) discards 6s; S holds the winning shape.
        await clients[0].act(hand.pk, hand.seq, do="discard", tile="6s")
        for c in [*clients, watcher]:
            await c.drain()
        south = clients[1].frames[-1]
        assert {"seat": "S", "do": "win"} in south["hand"]["view"]["legal_actions"]
        # W holds 6s 6s: a pung.  N holds nothing to claim and is told nothing.
        assert {"seat": "W", "do": "pung"} in clients[2].frames[-1]["hand"]["view"]["legal_actions"]
        # Claim protection: every seat sees the window; N may only pass, like anyone without a claim.
        assert clients[3].frames[-1]["hand"]["view"]["legal_actions"] == [{"seat": "N", "do": "pass"}]
        assert clients[3].frames[-1]["hand"]["view"]["window"] is not None
        # Two claims on one tile: W's pung arrives first, S's win still takes it (win > pung).
        await clients[2].act(hand.pk, south["hand"]["seq"], do="pung")
        for c in [*clients, watcher]:
            await c.drain()
        await clients[1].act(hand.pk, clients[1].frames[-1]["hand"]["seq"], do="win")
        for c in [*clients, watcher]:
            await c.drain()
        final = clients[1].frames[-1]
        assert final["hand"]["status"] == "finished"
        assert final["hand"]["view"]["result"]["winner"] == "S"
        assert final["hand"]["deltas"] == {"0": -5, "1": 5, "2": 0, "3": 0}
        assert final["hand"]["seed_hash"] is not None
        for i, c in enumerate(clients):
            for f in c.frames:
                assert concealed_of_others(f, i) == [], f
        for f in watcher.frames:
            assert concealed_of_others(f, None) == []
        for c in [*clients, watcher]:
            await c.comm.disconnect()

    async_to_sync(scenario)()
    balances = {p.username: Wallet.objects.get(user=p).balance for p in players}
    assert balances == {"p0": 995, "p1": 1005, "p2": 1000, "p3": 1000}
    hand = Hand.objects.get(table=table)
    assert LedgerEntry.objects.filter(reference=f"hand:{hand.pk}").count() == 2
    assert Table.objects.get(pk=table.pk).status == Table.FINISHED
    # Settling again changes nothing.
    from accounts.services import settle

    settle(f"hand:{hand.pk}", {Wallet.objects.get(user=players[0]).pk: -5, Wallet.objects.get(user=players[1]).pk: 5})
    assert Wallet.objects.get(user=players[0]).balance == 995
    json.dumps(Hand.objects.get(pk=hand.pk).snapshot)  # the stored snapshot is plain JSON


def test_bots_fill_and_play_a_whole_match(players: list[Any]) -> None:
    owner = players[0]
    table = services.create_table(owner, "zhejiang_caishen", {}, stake=1, hands_total=2)
    services.sit(table.pk, owner)
    services.add_bots(table.pk, owner)
    services.set_ready(table.pk, owner)
    table.refresh_from_db()
    assert table.status == Table.PLAYING
    # The owner times out every decision: the timer's default action (and then 托管) plays on.
    for _ in range(400):
        table.refresh_from_db()
        if table.status == Table.FINISHED:
            break
        hand = Hand.objects.filter(table=table).order_by("-number").first()
        assert hand is not None
        if hand.deadline_at is None:
            break
        Hand.objects.filter(pk=hand.pk).update(deadline_at=hand.deadline_at.replace(year=2000))
        assert services.wake("hand", hand.pk, hand.seq)
    table.refresh_from_db()
    assert table.status == Table.FINISHED and table.hands_played == 2
    total = sum(sum(h.deltas.values()) for h in Hand.objects.filter(table=table))
    house = Wallet.objects.get(kind=Wallet.KIND_SYSTEM)
    assert total == 0
    # Units are conserved: what the owner won or lost, the house lost or won.
    assert Wallet.objects.get(user=owner).balance + house.balance == 1000 + 1_000_000
    owner_seat = table.seats.get(user=owner)
    assert owner_seat.auto_play  # it timed out repeatedly: 托管


def test_stale_or_early_timer_changes_nothing(players: list[Any]) -> None:
    table, hand = dealt_table(players)
    assert hand.deadline_at is not None
    assert not services.wake("hand", hand.pk, hand.seq)  # early
    Hand.objects.filter(pk=hand.pk).update(deadline_at=hand.deadline_at.replace(year=2000))
    assert not services.wake("hand", hand.pk, hand.seq - 1)  # stale
    unmoved = Hand.objects.get(pk=hand.pk)
    assert unmoved.seq == hand.seq
    before = services.decoded_engine(unmoved).to_json()
    assert services.wake("hand", hand.pk, hand.seq)  # due: the dealer's default discard
    after = Hand.objects.get(pk=hand.pk)
    assert after.seq == hand.seq + 1
    assert services.decoded_engine(after).to_json() != before


def test_seats_without_a_claim_pass_after_one_uniform_pause(players: list[Any], settings: Any) -> None:
    settings.CAISHEN_DISCARD_PAUSE = 5
    table = seated_table(players)
    for p in players[:3]:
        services.set_ready(table.pk, p)
    original = services.match.start_match
    services.match.start_match = lambda t, first_hand=None: original(t, rigged())  # type: ignore[assignment]
    try:
        services.set_ready(table.pk, players[3])
    finally:
        services.match.start_match = original  # type: ignore[assignment]
    hand = Hand.objects.get(table=table)
    services.submit(hand.pk, players[0], {"do": "discard", "tile": "C"}, hand.seq)
    hand.refresh_from_db()
    # Nobody can claim C, yet the window stays open for the same pause as any other discard.
    assert services.decoded_engine(hand).phase == "claim"
    assert hand.deadline_at is not None and hand.window_opened_at is not None
    assert abs((hand.deadline_at - hand.window_opened_at).total_seconds() - 5) < 0.01
    Hand.objects.filter(pk=hand.pk).update(deadline_at=hand.deadline_at.replace(year=2000))
    assert services.wake("hand", hand.pk, hand.seq)
    hand.refresh_from_db()
    engine = services.decoded_engine(hand)
    assert engine.phase == "play" and engine.turn == 1
    assert all(s.timeouts == 0 for s in table.seats.all())  # a uniform pass is no timeout


def test_malformed_messages_and_reconnect(players: list[Any]) -> None:
    table, hand = dealt_table(players)

    async def scenario() -> None:
        c = Client(table, players[0])
        first = await c.open()
        assert first["type"] == "snapshot" and first["you"] == 0
        await c.comm.send_to(text_data="{not json")  # must not crash the table
        await c.comm.send_json_to(["a", "list"])
        await c.comm.send_json_to({"type": "launch"})
        await c.comm.send_json_to(
            {"type": "act", "hand": hand.pk, "seq": hand.seq, "action": {"do": "discard", "tile": "9z"}}
        )
        await c.comm.send_json_to({"type": "act", "hand": hand.pk, "seq": hand.seq, "action": "discard"})
        await c.comm.send_json_to({"type": "act", "hand": hand.pk, "seq": hand.seq, "action": {"do": "fly"}})
        replies = await c.drain()
        kinds = [r["type"] for r in replies]
        assert kinds.count("refused") == 3 and "error" in kinds, replies
        # JSON true is not hand 1; an unknown type is named in the error, cut short.
        await c.comm.send_json_to({"type": "act", "hand": True, "seq": hand.seq, "action": {"do": "pass"}})
        assert (await c.recv())["reason"] == "a command names its hand"
        await c.comm.send_json_to({"type": "x" * 5000})
        reason = (await c.recv())["reason"]
        assert reason.startswith("unknown message type 'xxx") and len(reason) < 80
        # A heartbeat that crossed the newest state (already sent down this socket) gets a pong
        # with the current seq; an up-to-date one a pong.  (Behind for real: the next test.)
        await c.comm.send_json_to({"type": "ping", "seq": hand.seq - 1})
        assert await c.recv() == {"type": "pong", "seq": hand.seq}
        await c.comm.send_json_to({"type": "ping", "seq": hand.seq})
        assert await c.recv() == {"type": "pong", "seq": hand.seq}
        await c.comm.disconnect()
        # Reconnecting puts the player back in the seat with a fresh snapshot.
        again = Client(table, players[0])
        snap = await again.open()
        assert snap["you"] == 0 and snap["hand"]["seq"] == hand.seq
        assert snap["hand"]["view"]["players"][0]["hand"] is not None
        await again.comm.disconnect()

    async_to_sync(scenario)()
    assert Hand.objects.get(pk=hand.pk).seq == hand.seq  # nothing moved
    assert table.seats.get(position=0).disconnects == 2


def test_a_heartbeat_behind_the_hand_gets_the_state_unless_its_frame_arrives(
    players: list[Any], monkeypatch: Any, settings: Any
) -> None:
    """A step whose frame never reached the socket (here: the row moved on with no fan-out, as
    when the layer drops a frame) is caught by the heartbeat: a pong at once, then — the frame not
    having come within the grace period — a full snapshot at the database's seq.  A frame that
    does come within the grace period spares the snapshot."""
    # The row moves on behind this process's back, as another process's step would: the scaled
    # mode, whose heartbeats read the database (one process answers from memory: test_positions.py).
    settings.CAISHEN_PROCESSES = 2
    from games.live import catch_up

    monkeypatch.setattr(catch_up, "PING_GRACE_SECONDS", 0.3)
    table, hand = dealt_table(players)

    async def scenario() -> None:
        c = Client(table, players[0])
        assert (await c.open())["hand"]["seq"] == hand.seq
        await c.drain()  # the seat's own arrival re-sends the table
        await database_sync_to_async(Hand.objects.filter(pk=hand.pk).update)(seq=hand.seq + 1)  # no frame sent
        await c.comm.send_json_to({"type": "ping", "seq": hand.seq})
        assert await c.recv() == {"type": "pong", "seq": hand.seq + 1}
        assert await c.comm.receive_nothing(timeout=0.15)  # within the grace period: nothing yet
        snap = await c.recv()
        assert snap["type"] == "snapshot" and snap["hand"]["seq"] == hand.seq + 1
        # Now the frame comes in time: no snapshot.
        await database_sync_to_async(Hand.objects.filter(pk=hand.pk).update)(seq=hand.seq + 2)
        await c.comm.send_json_to({"type": "ping", "seq": hand.seq + 1})
        assert await c.recv() == {"type": "pong", "seq": hand.seq + 2}
        layer = get_channel_layer()
        frame = {"type": "table.frame", "text": json.dumps({"type": "update", "seq": hand.seq + 2})}
        frame |= {"hand": hand.pk, "seq": hand.seq + 2, "seat": 0, "reader": players[0].pk}
        await layer.group_send(seat_group(table.pk, 0), frame)
        assert (await c.recv())["seq"] == hand.seq + 2
        assert await c.comm.receive_nothing(timeout=0.6)  # past the grace period: no snapshot
        await c.comm.disconnect()

    async_to_sync(scenario)()


def test_a_heartbeat_behind_a_busy_server_waits_for_the_frame_instead_of_a_snapshot(
    players: list[Any], monkeypatch: Any, settings: Any
) -> None:
    """Past saturation frames are late, not lost: while work is queued for the database
    thread the catch-up keeps waiting (up to PING_GRACE_MAX_SECONDS), and a late frame spares the
    snapshot; a second ping meanwhile is answered by the check already pending.  A frame that
    never comes is still caught up once the wait is over."""
    # The row moves on behind this process's back, as another process's step would: the scaled
    # mode, whose heartbeats read the database (one process answers from memory: test_positions.py).
    settings.CAISHEN_PROCESSES = 2
    from games.live import catch_up

    monkeypatch.setattr(catch_up, "PING_GRACE_SECONDS", 0.1)
    monkeypatch.setattr(catch_up, "PING_GRACE_MAX_SECONDS", 0.6)
    monkeypatch.setattr(catch_up, "frames_in_flight", lambda: True)
    table, hand = dealt_table(players)
    before = dict(runtime().snapshots)

    async def scenario() -> None:
        c = Client(table, players[0])
        assert (await c.open())["hand"]["seq"] == hand.seq
        await c.drain()
        await database_sync_to_async(Hand.objects.filter(pk=hand.pk).update)(seq=hand.seq + 1)
        await c.comm.send_json_to({"type": "ping", "seq": hand.seq})
        assert await c.recv() == {"type": "pong", "seq": hand.seq + 1}
        assert await c.comm.receive_nothing(timeout=0.25)  # past the grace, still waiting
        await c.comm.send_json_to({"type": "ping", "seq": hand.seq})  # a second ping: no snapshot
        assert await c.recv() == {"type": "pong", "seq": hand.seq + 1}
        layer = get_channel_layer()
        frame = {"type": "table.frame", "text": json.dumps({"type": "update", "seq": hand.seq + 1})}
        frame |= {"hand": hand.pk, "seq": hand.seq + 1, "seat": 0, "reader": players[0].pk}
        await layer.group_send(seat_group(table.pk, 0), frame)  # the late frame
        assert (await c.recv())["seq"] == hand.seq + 1
        assert await c.comm.receive_nothing(timeout=0.8)  # no snapshot after all
        # A frame that is lost: the snapshot comes, once the longest wait is over.
        await database_sync_to_async(Hand.objects.filter(pk=hand.pk).update)(seq=hand.seq + 2)
        await c.comm.send_json_to({"type": "ping", "seq": hand.seq + 1})
        assert await c.recv() == {"type": "pong", "seq": hand.seq + 2}
        assert await c.comm.receive_nothing(timeout=0.4)
        snap = await c.recv()
        assert snap["type"] == "snapshot" and snap["hand"]["seq"] == hand.seq + 2
        await c.comm.disconnect()

    async_to_sync(scenario)()
    assert runtime().snapshots["ping_grace"] == before.get("ping_grace", 0) + 1
    assert runtime().snapshots["ping"] == before.get("ping", 0)


def test_private_table_refuses_strangers(players: list[Any]) -> None:
    table = services.create_table(players[0], "zhejiang_caishen", {}, is_private=True)

    async def scenario() -> None:
        c = Client(table, players[1])
        connected, _ = await c.comm.connect(timeout=HANDSHAKE_S)
        assert connected  # accepted, then closed with the code the client can read
        assert await c.comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4403}

    async_to_sync(scenario)()


def test_two_sockets_count_as_one_presence(players: list[Any]) -> None:
    table = seated_table(players)
    for p in players:
        services.set_ready(table.pk, p)
    services.set_connected(table.pk, players[0], True)
    services.set_connected(table.pk, players[0], True)  # a second tab, or a reconnect racing the old close
    services.set_connected(table.pk, players[0], False)
    seat = table.seats.get(position=0)
    assert seat.connected and seat.disconnects == 0
    services.set_connected(table.pk, players[0], False)
    seat.refresh_from_db()
    assert not seat.connected and seat.disconnects == 1


@pytest.mark.parametrize(("variant", "penalty"), [("dongbei", 100 * 3), ("zhejiang_caishen", 0)])
def test_leaving_a_running_match_follows_the_escape_rule(players: list[Any], variant: str, penalty: int) -> None:
    owner = players[0]
    table = services.create_table(owner, variant, {}, stake=3, hands_total=2)
    services.sit(table.pk, owner)
    services.add_bots(table.pk, owner)
    services.set_ready(table.pk, owner)
    from accounts.services import system_wallet

    house = system_wallet()
    before = (Wallet.objects.get(user=owner).balance, house.balance)
    if variant == "dongbei":
        services.choose(table.pk, owner, "piao", 0)  # the pre-hand 飘 question
    hand = Hand.objects.get(table=table)
    assert hand.status == Hand.PLAYING
    services.stand(table.pk, owner)
    seat = table.seats.get(user=owner)
    assert seat.left and seat.auto_play
    # The penalty is its own ledger movement (杠分 settled first, if any kong stood, are another).
    penalties = LedgerEntry.objects.filter(reference__startswith="escape-penalty:")
    assert sum(e.amount for e in penalties.filter(wallet__user=owner)) == -penalty
    assert sum(e.amount for e in penalties.filter(wallet__kind=Wallet.KIND_SYSTEM)) == penalty
    assert Wallet.objects.get(user=owner).balance <= before[0] - penalty + 100  # 杠分 won are small
    # The match plays on without the leaver deciding anything.
    for _ in range(400):
        table.refresh_from_db()
        row = Hand.objects.filter(table=table).order_by("-number").first()
        if table.status == Table.FINISHED or row is None or row.deadline_at is None:
            break
        Hand.objects.filter(pk=row.pk).update(deadline_at=row.deadline_at.replace(year=2000))
        services.wake("hand", row.pk, row.seq)
    table.refresh_from_db()
    assert table.status == Table.FINISHED
    seat.refresh_from_db()
    assert seat.is_bot == bool(penalty)  # with a penalty the leaver is gone: a house bot took the chair
