"""Quick phrases (emotes) over the table socket: broadcast to seats and watchers, by code only."""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model

from games import services
from games.live import emotes
from games.live.routing import websocket_urlpatterns
from games.models import Table
from tests.polling import HANDSHAKE_S

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]
APP = URLRouter(websocket_urlpatterns)


def sync(test: Callable[[], Awaitable[None]]) -> Callable[[], None]:
    """Run an async test body in an event loop (the project's socket tests do the same)."""

    @functools.wraps(test)
    def run() -> None:
        async_to_sync(test)()

    return run


@pytest.fixture(autouse=True)
def undelayed(settings: Any) -> None:
    # (each seat's emote count starts at none: tests/conftest.py resets the process's state)
    settings.CAISHEN_SPECTATOR_DELAY = 0


async def connect(table: Table, user: Any) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(APP, f"/ws/table/{table.pk}/?v=2")
    comm.scope["user"] = user
    connected, _ = await comm.connect(timeout=HANDSHAKE_S)
    assert connected
    await drain(comm)
    return comm


async def drain(comm: WebsocketCommunicator) -> list[dict[str, Any]]:
    got = []
    while not await comm.receive_nothing(timeout=0.2):
        out = await comm.receive_output(timeout=5)
        if out["type"] == "websocket.close":
            break
        got.append(json.loads(out["text"]))
    return got


def emotes_in(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f for f in frames if f.get("type") == "emote"]


def seated_table() -> tuple[Table, list[Any]]:
    User = get_user_model()
    people = [User.objects.create_user(f"emote{i}", password="pw-123456") for i in range(3)]
    table = services.create_table(people[0], "zhejiang_caishen", {})
    services.sit(table.pk, people[0], 0)
    services.sit(table.pk, people[1], 1)
    return table, people  # people[2] watches


@sync
async def test_an_emote_reaches_every_seat_and_watcher_as_a_code() -> None:
    table, people = await database_sync_to_async(seated_table)()
    sender, other, watcher = [await connect(table, p) for p in people]
    await sender.send_json_to({"type": "emote", "code": "well_played"})
    for comm in (sender, other, watcher):
        assert emotes_in(await drain(comm)) == [{"type": "emote", "position": 0, "code": "well_played"}]
    for comm in (sender, other, watcher):
        await comm.disconnect()


@sync
async def test_unknown_codes_and_free_text_are_refused_and_sent_to_nobody() -> None:
    table, people = await database_sync_to_async(seated_table)()
    sender, other = [await connect(table, p) for p in people[:2]]
    for code in ("nope", "你好 everyone", 7, None):
        await sender.send_json_to({"type": "emote", "code": code})
        frames = await drain(sender)
        assert [f["code"] for f in frames if f.get("type") == "refused"] == ["unknown_emote"]
        assert not emotes_in(frames)
    assert not emotes_in(await drain(other))
    await sender.disconnect()
    await other.disconnect()


@sync
async def test_watchers_cannot_emote() -> None:
    table, people = await database_sync_to_async(seated_table)()
    seated, watcher = await connect(table, people[0]), await connect(table, people[2])
    await watcher.send_json_to({"type": "emote", "code": "hello"})
    frames = await drain(watcher)
    assert [f["code"] for f in frames if f.get("type") == "refused"] == ["spectator_cannot_emote"]
    assert not emotes_in(await drain(seated))
    await seated.disconnect()
    await watcher.disconnect()


@sync
async def test_a_seat_is_limited_to_a_few_emotes_per_window() -> None:
    table, people = await database_sync_to_async(seated_table)()
    sender, other = [await connect(table, p) for p in people[:2]]
    for _ in range(emotes.RATE_COUNT + 2):
        await sender.send_json_to({"type": "emote", "code": "hurry"})
    frames = await drain(sender)
    assert len(emotes_in(frames)) == emotes.RATE_COUNT
    refused = [f for f in frames if f.get("type") == "refused"]
    assert [f["code"] for f in refused] == ["emote_rate", "emote_rate"]
    assert refused[0]["params"] == {"count": emotes.RATE_COUNT, "seconds": int(emotes.RATE_WINDOW)}
    assert len(emotes_in(await drain(other))) == emotes.RATE_COUNT
    # Another seat has its own count.
    await other.send_json_to({"type": "emote", "code": "thanks"})
    assert emotes_in(await drain(sender)) == [{"type": "emote", "position": 1, "code": "thanks"}]
    await sender.disconnect()
    await other.disconnect()


def test_the_window_frees_up_again() -> None:
    assert all(emotes.allow(1, 0, now=100.0 + i) for i in range(emotes.RATE_COUNT))
    assert not emotes.allow(1, 0, now=103.0)
    assert emotes.allow(1, 0, now=100.0 + emotes.RATE_WINDOW)
