"""Socket security: foreign Origins refused, anonymous sockets cannot act, a seat cannot act for another."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model

from games import services
from games.models import Hand
from mahjong_platform.asgi import application
from tests.platform.live_helpers import ORIGIN, started, ws_path
from tests.polling import HANDSHAKE_S

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def live_settings(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_CLAIM_PROTECTION = "pause"  # quick windows (the uniform one: test_claim_protection.py)
    settings.CAISHEN_SWEEP_SECONDS = 0
    settings.CAISHEN_SPECTATOR_DELAY = 0


def test_foreign_origin_is_refused() -> None:
    table, _, _ = started()

    async def run() -> tuple[bool, Any]:
        comm = WebsocketCommunicator(
            application,
            ws_path(table.pk),
            headers=[(b"origin", b"http://evil.example"), (b"host", b"127.0.0.1")],
        )
        connected, code = await comm.connect(timeout=HANDSHAKE_S)
        await comm.disconnect()
        return connected, code

    connected, _ = async_to_sync(run)()
    assert not connected


def test_anonymous_socket_watches_but_cannot_act() -> None:
    table, hand, _ = started()

    async def run() -> list[dict[str, Any]]:
        comm = WebsocketCommunicator(application, ws_path(table.pk), headers=ORIGIN)
        connected, _ = await comm.connect(timeout=HANDSHAKE_S)
        assert connected
        snapshot = await comm.receive_json_from(timeout=5)
        await comm.send_json_to(
            {"type": "act", "hand": hand.pk, "seq": hand.seq, "action": {"do": "discard", "tile": "1m"}}
        )
        reply = await comm.receive_json_from(timeout=5)
        while reply["type"] != "refused":  # watcher-count snapshots may come first
            reply = await comm.receive_json_from(timeout=5)
        await comm.disconnect()
        return [snapshot, reply]

    snapshot, reply = async_to_sync(run)()
    assert snapshot["you"] is None
    assert all(p["hand"] is None for p in snapshot["hand"]["view"]["players"])
    assert reply["type"] == "refused"
    assert Hand.objects.get(pk=hand.pk).seq == hand.seq


def test_a_seat_cannot_act_for_another() -> None:
    _, hand, users = started()
    # It is East's (chair 0's) turn; South tries to discard one of its own tiles out of turn.
    south_tile = hand.snapshot["players"][1]["hand"].split()[0][-2:]
    with pytest.raises(services.Refused):
        services.submit(hand.pk, users[1], {"do": "discard", "tile": south_tile}, hand.seq)
    assert Hand.objects.get(pk=hand.pk).seq == hand.seq


def test_a_flood_and_oversized_frames_are_dropped_without_harm(settings: Any) -> None:
    settings.CAISHEN_SOCKET_RATE = 5
    table, hand, users = started()

    async def run() -> list[dict[str, Any]]:
        comm = WebsocketCommunicator(application, ws_path(table.pk), headers=ORIGIN)
        comm.scope["user"] = users[1]
        connected, _ = await comm.connect(timeout=HANDSHAKE_S)
        assert connected
        await comm.receive_json_from(timeout=5)
        await comm.send_to(text_data="x" * 20000)
        for _ in range(30):
            await comm.send_json_to({"type": "ping", "seq": hand.seq})
        replies = []
        while not await comm.receive_nothing(timeout=0.3):
            replies.append(await comm.receive_json_from(timeout=5))
        await comm.disconnect()
        return replies

    replies = async_to_sync(run)()
    reasons = [r.get("reason", "") for r in replies if r["type"] == "error"]
    assert any("too large" in r for r in reasons)
    assert any("slow down" in r for r in reasons)
    assert any(r["type"] == "pong" for r in replies)  # the burst allowance still answered
    assert Hand.objects.get(pk=hand.pk).seq == hand.seq


def test_failed_sign_ins_are_rate_limited(settings: Any, client: Any) -> None:
    settings.CAISHEN_LOGIN_ATTEMPTS = 3
    get_user_model().objects.create_user("victim", password="right-password-1")
    for _ in range(3):
        response = client.post("/accounts/login/", {"username": "victim", "password": "wrong"})
        assert response.status_code == 200
    blocked = client.post("/accounts/login/", {"username": "victim", "password": "right-password-1"})
    assert blocked.status_code == 429
    assert "_auth_user_id" not in client.session
