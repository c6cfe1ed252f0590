"""Open table sockets per user and per client address (games/runtime/socket_counts.py): the
counter itself, and the table socket refusing one past a cap with an error frame and 4429.

Real daphne sockets that never read are in tests/platform/test_socket_send_bound.py."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from games.live.routing import websocket_urlpatterns
from games.runtime.process import runtime
from games.runtime.socket_counts import Refusal, SocketCounts, Ticket
from games.wire.frames import CLOSE_TOO_MANY_SOCKETS
from tests.platform.live_helpers import started
from tests.polling import HANDSHAKE_S

APP = URLRouter(websocket_urlpatterns)
SHOP = "198.51.100.7"


# -- the counter -----------------------------------------------------------------------------------


@pytest.fixture
def caps(settings: Any) -> Any:
    settings.CAISHEN_SOCKETS_PER_USER = 2
    settings.CAISHEN_SOCKETS_PER_ADDRESS = 3
    return settings


def test_a_user_past_the_cap_is_refused_and_the_refusal_holds_no_place(caps: Any) -> None:
    counts = SocketCounts()
    first, second = counts.take("7", SHOP), counts.take("7", SHOP)
    assert isinstance(first, Ticket) and isinstance(second, Ticket)

    assert counts.take("7", SHOP) == Refusal("user", 2)
    assert counts.take("7", "203.0.113.1") == Refusal("user", 2)  # from anywhere
    assert (counts.open_for_user("7"), counts.open_for_address(SHOP)) == (2, 2)
    assert isinstance(counts.take("8", SHOP), Ticket)  # another user at that address


def test_an_address_past_the_cap_is_refused_whoever_asks(caps: Any) -> None:
    counts = SocketCounts()
    for user in (None, None, "7"):
        assert isinstance(counts.take(user, SHOP), Ticket)
    assert counts.take(None, SHOP) == Refusal("address", 3)
    assert counts.take("9", SHOP) == Refusal("address", 3)
    assert isinstance(counts.take(None, "203.0.113.1"), Ticket)


def test_a_release_gives_the_place_back_once_and_never_goes_below_zero(caps: Any) -> None:
    counts = SocketCounts()
    first, second = counts.take("7", SHOP), counts.take("7", SHOP)
    assert isinstance(first, Ticket) and isinstance(second, Ticket)
    counts.release(first)
    counts.release(first)  # again (a disconnect after an error): nothing more is given back
    assert (counts.open_for_user("7"), counts.open_for_address(SHOP)) == (1, 1)
    counts.release(second)
    counts.release(second)
    assert (counts.open_for_user("7"), counts.open_for_address(SHOP)) == (0, 0)
    # Nothing of a released address or user stays behind.
    assert not counts._by_user and not counts._by_address
    # And the full cap is available again: the double releases did not lend extra places.
    assert [isinstance(counts.take("7", SHOP), Ticket) for _ in range(3)] == [True, True, False]


def test_a_cap_of_zero_is_no_cap(settings: Any) -> None:
    settings.CAISHEN_SOCKETS_PER_USER = 0
    settings.CAISHEN_SOCKETS_PER_ADDRESS = 0
    counts = SocketCounts()
    assert all(isinstance(counts.take("7", SHOP), Ticket) for _ in range(500))


# -- the table socket -----------------------------------------------------------------------------


def socket_of(table_id: int, user: Any, address: str = SHOP) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(APP, f"/ws/table/{table_id}/?v=2")
    comm.scope["user"] = user
    comm.scope["client"] = (address, 40000)
    return comm


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("instant_play")
def test_the_table_socket_past_the_user_cap_is_closed_4429_and_a_closed_one_frees_its_place(caps: Any) -> None:
    table, _hand, users = started("cap")
    counts = runtime().sockets
    user_key = str(users[0].pk)

    async def scenario() -> None:
        open_ = []
        for _ in range(2):
            comm = socket_of(table.pk, users[0])
            connected, _ = await comm.connect(timeout=HANDSHAKE_S)
            assert connected
            assert (await comm.receive_json_from(timeout=5))["type"] == "snapshot"
            open_.append(comm)
        assert counts.open_for_user(user_key) == 2

        third = socket_of(table.pk, users[0], address="203.0.113.9")
        connected, _ = await third.connect(timeout=HANDSHAKE_S)
        assert connected  # accepted, so that the browser can read why it is closed
        assert await third.receive_json_from(timeout=5) == {
            "type": "error",
            "reason": "too many open table sockets: at most 2 per account",
            "code": "too_many_sockets_per_user",
            "params": {"limit": 2},
        }
        assert await third.receive_output(timeout=5) == {"type": "websocket.close", "code": CLOSE_TOO_MANY_SOCKETS}
        await third.disconnect()
        assert counts.open_for_user(user_key) == 2  # the refused socket never counted
        assert counts.open_for_address("203.0.113.9") == 0

        await open_.pop().disconnect()
        assert counts.open_for_user(user_key) == 1
        again = socket_of(table.pk, users[0])
        connected, _ = await again.connect(timeout=HANDSHAKE_S)
        assert connected
        assert (await again.receive_json_from(timeout=5))["type"] == "snapshot"
        for comm in [*open_, again]:
            await comm.disconnect()
        assert counts.open_for_user(user_key) == 0 and counts.open_for_address(SHOP) == 0

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("instant_play")
def test_the_table_socket_past_the_address_cap_is_closed_4429(caps: Any) -> None:
    table, _hand, users = started("addr")

    async def scenario() -> None:
        open_ = []
        for user in users[:3]:
            comm = socket_of(table.pk, user)
            connected, _ = await comm.connect(timeout=HANDSHAKE_S)
            assert connected
            open_.append(comm)
        fourth = socket_of(table.pk, users[3])
        await fourth.connect(timeout=HANDSHAKE_S)
        refusal = await fourth.receive_json_from(timeout=5)
        assert (refusal["code"], refusal["params"]) == ("too_many_sockets_per_address", {"limit": 3})
        assert await fourth.receive_output(timeout=5) == {"type": "websocket.close", "code": CLOSE_TOO_MANY_SOCKETS}
        await fourth.disconnect()
        for comm in open_:
            await comm.disconnect()
        assert runtime().sockets.open_for_address(SHOP) == 0

    async_to_sync(scenario)()
