"""Protocol v2 on real sockets: deltas, catch-up after a dropped frame or a reconnect, the table
message, and the refusal of a version the server does not speak (docs/protocol.md, "Versions")."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from games import services
from games.live.routing import websocket_urlpatterns
from games.models import Hand, Table
from games.runtime.process import runtime
from games.wire.deltas import apply_delta, state_of
from tests.platform.live_helpers import started_rigged
from tests.platform.test_frame_types import assert_documented
from tests.polling import HANDSHAKE_S

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]

APP = URLRouter(websocket_urlpatterns)


class V2Client:
    """A v2 client as static/js/net.js is one: holds a state and applies deltas to it."""

    def __init__(self, table: Table, user: Any, query: str = "v=2") -> None:
        self.comm = WebsocketCommunicator(APP, f"/ws/table/{table.pk}/?{query}")
        self.comm.scope["user"] = user
        self.state: dict[str, Any] | None = None
        self.kinds: list[str] = []

    async def open(self) -> None:
        connected, _ = await self.comm.connect(timeout=HANDSHAKE_S)
        assert connected

    async def take(self, frame: dict[str, Any]) -> None:
        assert_documented(frame)
        self.kinds.append(frame["type"])
        if frame["type"] in ("snapshot", "update"):
            self.state = state_of(frame)
        elif frame["type"] == "delta":
            assert self.state is not None
            held = self.state["hand"]
            assert (held["id"], held["seq"]) == (frame["hand_id"], frame["base"]), "a delta that does not chain"
            self.state = apply_delta(self.state, frame)
        elif frame["type"] == "table":
            assert self.state is not None
            self.state = {**self.state, "table": frame["table"], "seats": frame["seats"], "you": frame["you"]}

    async def pump(self, quiet: float = 0.3, drop: int = 0) -> list[dict[str, Any]]:
        """Read until quiet; the first ``drop`` delta frames are thrown away on purpose."""
        got = []
        while not await self.comm.receive_nothing(timeout=quiet):
            frame = await self.comm.receive_json_from(timeout=5)
            got.append(frame)
            if frame["type"] == "delta" and drop > 0:
                drop -= 1
                continue
            await self.take(frame)
        return got

    @property
    def seq(self) -> int:
        assert self.state is not None
        return int(self.state["hand"]["seq"])


def comparable(state: dict[str, Any] | None) -> dict[str, Any]:
    assert state is not None
    out = copy.deepcopy(state_of(state))
    out["hand"].pop("deadline_in_ms", None)
    return out


def snapshot_of(table: Table, position: int) -> dict[str, Any]:
    from games.wire import spectating

    table.refresh_from_db()
    state = services.reads.render_for(table, list(table.seats.all()), position)
    state["table"]["watchers"] = spectating.watcher_count(table.pk)
    return dict(state)


def east_discards(hand: Hand, users: list[Any]) -> None:
    row = Hand.objects.get(pk=hand.pk)
    services.submit(row.pk, users[0], {"do": "discard", "tile": "C"}, row.seq)  # nobody can claim C


def test_a_v2_client_gets_deltas_that_make_its_snapshots() -> None:
    table, hand, users = started_rigged("vd")

    async def scenario() -> V2Client:
        c = V2Client(table, users[1])
        await c.open()
        await c.pump()
        await database_sync_to_async(east_discards)(hand, users)
        frames = await c.pump()
        assert "delta" in [f["type"] for f in frames]
        assert comparable(c.state) == comparable(await database_sync_to_async(snapshot_of)(table, 1))
        await c.comm.disconnect()
        return c

    c = async_to_sync(scenario)()
    assert c.kinds[0] == "snapshot"


def test_a_dropped_frame_is_caught_up_from_the_history_not_a_snapshot() -> None:
    table, hand, users = started_rigged("vg")

    async def scenario() -> tuple[V2Client, list[dict[str, Any]]]:
        c = V2Client(table, users[1])
        await c.open()
        await c.pump()
        held = c.seq
        await database_sync_to_async(east_discards)(hand, users)
        await c.pump(drop=99)  # every frame of that step lost on the way
        assert c.seq == held
        await c.comm.send_json_to({"type": "resync", "hand": hand.pk, "seq": held})
        answer = await c.pump()
        assert comparable(c.state) == comparable(await database_sync_to_async(snapshot_of)(table, 1))
        await c.comm.disconnect()
        return c, answer

    c, answer = async_to_sync(scenario)()
    assert answer and all(f["type"] == "delta" for f in answer), [f["type"] for f in answer]


def test_a_gap_the_history_no_longer_covers_gets_a_snapshot() -> None:
    table, hand, users = started_rigged("vh")

    async def scenario() -> list[dict[str, Any]]:
        c = V2Client(table, users[1])
        await c.open()
        await c.pump()
        held = c.seq
        await database_sync_to_async(east_discards)(hand, users)
        await c.pump(drop=99)
        runtime().history.clear()  # as if the process had restarted, or the gap were older than the history
        await c.comm.send_json_to({"type": "resync", "hand": hand.pk, "seq": held})
        answer = await c.pump()
        await c.comm.disconnect()
        return answer

    answer = async_to_sync(scenario)()
    assert [f["type"] for f in answer] == ["snapshot"]


def test_a_reconnect_naming_its_seq_gets_the_missed_frames_then_the_table() -> None:
    table, hand, users = started_rigged("vr")

    async def scenario() -> tuple[V2Client, list[dict[str, Any]]]:
        first = V2Client(table, users[1])
        await first.open()
        await first.pump()
        held = first.seq
        await first.comm.disconnect()
        await database_sync_to_async(east_discards)(hand, users)  # played while S was away
        again = V2Client(table, users[1], query=f"v=2&hand={hand.pk}&seq={held}")
        again.state = first.state
        await again.open()
        answer = await again.pump()
        assert comparable(again.state) == comparable(await database_sync_to_async(snapshot_of)(table, 1))
        assert again.state is not None and again.state["seats"][1]["connected"] is True  # back
        await again.comm.disconnect()
        return again, answer

    c, answer = async_to_sync(scenario)()
    kinds = [f["type"] for f in answer]
    assert "snapshot" not in kinds and kinds[0] == "delta" and "table" in kinds, kinds


def test_a_seat_change_reaches_a_v2_socket_as_a_table_message() -> None:
    table, hand, users = started_rigged("vt")

    async def scenario() -> list[dict[str, Any]]:
        c = V2Client(table, users[1])
        await c.open()
        await c.pump()
        await database_sync_to_async(services.set_connected)(table.pk, users[2], True)
        answer = await c.pump()
        await c.comm.disconnect()
        return answer

    answer = async_to_sync(scenario)()
    assert [f["type"] for f in answer] == ["table"]
    assert answer[0]["seats"][2]["connected"] is True and "hand" not in answer[0]


def test_at_a_table_filling_up_a_ready_up_is_a_table_message_and_the_start_a_snapshot() -> None:
    """A table with no hand yet: each ready-up reaches the seated sockets as a ``table`` message
    (no snapshot rendered for every seat on every change); the match's start brings the hand (its
    deal's frame, or a snapshot if a table change overtakes it)."""
    from django.contrib.auth import get_user_model

    users = [get_user_model().objects.create_user(f"vw{i}", password="pw-123456") for i in range(4)]
    table = services.create_table(users[0], "zhejiang_caishen", {})
    for u in users:
        services.sit(table.pk, u)

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]], V2Client, dict[str, Any]]:
        c = V2Client(table, users[1])
        await c.open()
        await c.pump()
        await database_sync_to_async(services.set_ready)(table.pk, users[2])
        readied = await c.pump()
        for u in (users[0], users[1], users[3]):
            await database_sync_to_async(services.set_ready)(table.pk, u)
        started = await c.pump()
        now = await database_sync_to_async(snapshot_of)(table, 1)
        await c.comm.disconnect()
        return readied, started, c, now

    readied, started, c, now = async_to_sync(scenario)()
    assert [f["type"] for f in readied] == ["table"] and readied[0]["seats"][2]["ready"] is True
    assert {"update", "snapshot"} & {f["type"] for f in started}
    assert c.state is not None and c.state["hand"] is not None
    assert comparable(c.state) == comparable(now)


@pytest.mark.parametrize(
    ("query", "version"),
    [("v=3", 3), ("v=1", 1), ("", 1), ("v=two", 0)],
    ids=["v3", "v1-retired", "no-version-is-v1", "not-a-number"],
)
def test_a_protocol_version_other_than_2_is_refused_with_4426(query: str, version: int) -> None:
    """v1 is retired: a client asking for it (or naming no version, which meant v1) is told to
    use v=2 and closed, like one asking for a version never spoken."""
    table, hand, users = started_rigged("vx")

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        c = V2Client(table, users[1], query=query)
        await c.open()
        said = await c.comm.receive_json_from(timeout=5)
        closed = await c.comm.receive_output(timeout=5)
        return said, closed

    said, closed = async_to_sync(scenario)()
    assert said == {
        "type": "error",
        "reason": f"protocol version {version} is not spoken here: use v=2",
        "code": "protocol_version",
        "params": {"version": version},
    }
    assert closed == {"type": "websocket.close", "code": 4426}
