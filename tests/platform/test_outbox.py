"""Fan-out that does not make the writer wait (games/runtime/fanout.py) and the embedded layer
(games/runtime/layers.py)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games.runtime.layers import EmbeddedChannelLayer
from games.runtime.outbox import Outbox


def test_a_bound_outbox_delivers_in_order_without_blocking_the_writer() -> None:
    async def scenario() -> tuple[list[int], float]:
        layer = get_channel_layer()
        outbox = Outbox()
        outbox.bind(asyncio.get_running_loop())
        channel = await layer.new_channel()
        await layer.group_add("outbox-test", channel)

        def writer() -> float:
            started = time.perf_counter()
            for n in range(50):
                outbox.put([("outbox-test", {"type": "table.frame", "text": str(n)})])
            return time.perf_counter() - started

        # The writer runs on another thread (like the database thread) while this loop is busy:
        # put() must return at once, before the loop had any chance to send.
        done = threading.Event()
        took: list[float] = []
        thread = threading.Thread(target=lambda: (took.append(writer()), done.set()))
        thread.start()
        while not done.is_set():
            time.sleep(0.001)  # the loop is blocked (no await) while the writer enqueues
        thread.join()
        received = [int((await layer.receive(channel))["text"]) for _ in range(50)]
        await outbox.flush()
        return received, took[0]

    received, took = async_to_sync(scenario)()
    assert received == list(range(50))  # a table's frames keep their order
    assert took < 1.0  # (generous: it did not wait for the blocked loop, or it would never finish)


def test_an_unbound_outbox_sends_at_once_with_the_in_memory_layer() -> None:
    layer = get_channel_layer()
    outbox = Outbox()

    async def receive_one(channel: str) -> Any:
        return await layer.receive(channel)

    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)("outbox-now", channel)
    outbox.put([("outbox-now", {"type": "table.frame", "text": "x"})])
    assert async_to_sync(receive_one)(channel)["text"] == "x"


def test_the_embedded_layer_sweeps_expired_messages_at_most_once_per_interval() -> None:
    layer = EmbeddedChannelLayer(expiry=0, sweep_interval=60)

    async def scenario() -> tuple[int, int]:
        await layer.send("a.b!c", {"type": "x"})
        await layer.group_send("g", {"type": "y"})  # sweeps (the first time): the expired message goes
        after_first = len(layer.channels)
        await layer.send("a.b!d", {"type": "x"})
        await layer.group_send("g", {"type": "y"})  # within the interval: no sweep
        return after_first, len(layer.channels)

    after_first, after_second = async_to_sync(scenario)()
    assert after_first == 0
    assert after_second == 1
    layer.sweep_interval = 0
    async_to_sync(layer.group_send)("g", {"type": "y"})
    assert len(layer.channels) == 0


def test_the_embedded_layer_gives_every_member_its_own_copy_and_skips_full_channels() -> None:
    layer = EmbeddedChannelLayer(capacity=2)

    async def scenario() -> tuple[list[Any], list[Any], list[Any]]:
        for channel in ("s.x!a", "s.x!b", "s.x!full"):
            await layer.group_add("seat", channel)
        await layer.send("s.x!full", {"type": "filler"})
        await layer.send("s.x!full", {"type": "filler"})
        nested = {"type": "table.frame", "frame": {"seq": 1, "events": [1, 2]}}
        await layer.group_send("seat", {"type": "table.frame", "text": "{}"})  # "full" misses it, the rest go on
        await layer.group_send("seat", nested)
        nested["frame"]["seq"] = 99  # the sender's later change reaches nobody
        got_a = [await layer.receive("s.x!a"), await layer.receive("s.x!a")]
        got_b = [await layer.receive("s.x!b"), await layer.receive("s.x!b")]
        got_a[1]["frame"]["events"].append(3)  # one receiver's change reaches nobody else
        full = [await layer.receive("s.x!full"), await layer.receive("s.x!full")]
        return got_a, got_b, full

    got_a, got_b, full = async_to_sync(scenario)()
    assert got_a[0] == got_b[0] == {"type": "table.frame", "text": "{}"}
    assert got_a[0] is not got_b[0]
    assert got_b[1] == {"type": "table.frame", "frame": {"seq": 1, "events": [1, 2]}}
    assert got_a[1]["frame"]["seq"] == 1
    assert [m["type"] for m in full] == ["filler", "filler"]


@pytest.mark.django_db
def test_the_public_frame_is_rendered_only_when_someone_watches() -> None:
    from games import services
    from games.runtime import fanout
    from games.wire import spectating
    from tests.platform.live_helpers import started_rigged

    table, hand, users = started_rigged("pf")
    seats = list(table.seats.all())
    engine = services.decoded_engine(hand)
    groups = set(fanout.hand_frames(hand, engine, seats, []).texts)
    assert groups == {fanout.seat_group(table.pk, p) for p in range(4)}
    spectating.watcher_joined(table.pk)
    groups = set(fanout.hand_frames(hand, engine, seats, []).texts)
    assert fanout.public_group(table.pk) in groups and len(groups) == 5
    public = json.loads(fanout.hand_frames(hand, engine, seats, []).texts[fanout.public_group(table.pk)])
    assert public["you"] is None and public["table"]["watchers"] == 1


@pytest.mark.django_db
def test_every_frame_is_its_readers_snapshot_with_the_steps_seq_and_events() -> None:
    """The fan-out renders shared parts once and splices the JSON: each frame must still be
    exactly what rendering that reader's snapshot alone gives (the definition of an update)."""
    from games import services
    from games.engine.state import DISCARD, Action
    from games.engine.tiles import parse_tile
    from games.runtime import fanout
    from games.wire import spectating
    from games.wire.protocol import render_state
    from tests.platform.live_helpers import started_rigged

    table, hand, users = started_rigged("fr")
    spectating.watcher_joined(table.pk)
    seats = list(table.seats.all())
    engine = services.decoded_engine(hand)
    events = engine.apply(Action(0, DISCARD, tile=parse_tile("6s")))  # East's discard opens a window
    events += engine.apply(Action(2, "pass"))  # (private answers stay with their seat)
    frames = fanout.hand_frames(hand, engine, seats, events).texts  # no base kept: whole frames
    assert len(frames) == 5
    for position in [None, 0, 1, 2, 3]:
        group = fanout.public_group(table.pk) if position is None else fanout.seat_group(table.pk, position)
        reader = hand.engine_seat(position) if position is not None else None
        expected = render_state(table, seats, hand, engine, position)
        expected.update(type="update", seq=hand.seq, events=[e.for_seat(reader) for e in events])
        expected["table"]["watchers"] = 1
        if position is None:  # watchers are told how late they see play (games.wire.spectating)
            expected["table"]["spectator_delay"] = spectating.delay_seconds()
        got = json.loads(frames[group])
        for frame in (got, expected):
            frame["hand"].pop("deadline_in_ms")  # a clock reading
        assert got == expected
        mine = [p for p in got["hand"]["view"]["players"] if p["hand"] is not None]
        assert [p["seat"] for p in mine] == ([] if position is None else ["ESWN"[reader]])
