"""托管 can be left, and taken by choice: ``{"type": "autoplay", "on": ...}``.

After two timeouts the seat plays itself a bot's delay into each of its turns, so a click has to
land within that delay to count.  The switch takes the seat off 托管 at once and gives the
decision the player's whole clock; an own command still ends 托管 too.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.utils import timezone

from games import services
from games.live.routing import websocket_urlpatterns
from games.models import Hand, Seat, Table
from games.records.rebuild import event_log
from tests.platform.live_helpers import WholeFrames, started_rigged, ws_path
from tests.polling import HANDSHAKE_S

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]
APP = URLRouter(websocket_urlpatterns)
BOT_DELAY = 2.0  # seconds; the table's turn_seconds is 20


def seat_of(table: Table, user: Any) -> Seat:
    return Seat.objects.get(table=table, user=user)


def seconds_to_deadline(hand: Hand) -> float:
    hand.refresh_from_db()
    assert hand.deadline_at is not None
    return (hand.deadline_at - timezone.now()).total_seconds()


def test_turning_autoplay_off_on_the_own_turn_gives_the_whole_clock(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = BOT_DELAY
    table, hand, users = started_rigged("ao")
    east = users[0]  # chair 0 is East, to discard
    assert services.set_auto_play(table.pk, east, True)
    seat = seat_of(table, east)
    assert seat.auto_play
    assert seconds_to_deadline(hand) <= BOT_DELAY  # the bot's delay, not the turn's clock
    seq_on = hand.seq

    assert services.set_auto_play(table.pk, east, False)

    seat = seat_of(table, east)
    assert (seat.auto_play, seat.timeouts) == (False, 0)
    assert seconds_to_deadline(hand) > table.turn_seconds - 2  # the player's own clock again
    assert hand.seq == seq_on + 1  # a step: every reader's frame shows the seat off 托管
    assert not services.set_auto_play(table.pk, east, False)  # asking again changes nothing
    assert Hand.objects.get(pk=hand.pk).seq == seq_on + 1


def test_turning_it_on_lets_the_bot_take_the_turn() -> None:
    table, hand, users = started_rigged("an")  # CAISHEN_BOT_DELAY = 0: the bot plays at once

    services.set_auto_play(table.pk, users[0], True)

    hand.refresh_from_db()
    assert hand.seq > 1
    assert seat_of(table, users[0]).auto_play
    events = [e.kind for _, e in event_log(hand)]
    assert "discard" in events, events


def test_after_two_timeouts_the_switch_ends_autoplay(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = BOT_DELAY
    table, hand, users = started_rigged("at")
    Seat.objects.filter(table=table, position=0).update(timeouts=1)
    Hand.objects.filter(pk=hand.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
    hand.refresh_from_db()
    assert services.wake("hand", hand.pk, hand.seq)  # East's second timeout in a row: 托管
    assert seat_of(table, users[0]).auto_play

    services.set_auto_play(table.pk, users[0], False)

    seat = seat_of(table, users[0])
    assert (seat.auto_play, seat.timeouts) == (False, 0)


def test_an_own_command_on_autoplay_is_applied_and_ends_it(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = BOT_DELAY
    table, hand, users = started_rigged("ac")
    services.set_auto_play(table.pk, users[0], True)
    hand.refresh_from_db()

    services.submit(hand.pk, users[0], {"do": "discard", "tile": "C"}, hand.seq)  # within the delay

    assert not seat_of(table, users[0]).auto_play
    assert "discard" in [e.kind for _, e in event_log(Hand.objects.get(pk=hand.pk))]


def test_what_the_switch_refuses() -> None:
    table, hand, users = started_rigged("ar")
    stranger = get_user_model().objects.create_user("ar-stranger", password="pw-123456")
    with pytest.raises(services.Refused, match='"on": true or false'):
        services.set_auto_play(table.pk, users[0], "off")
    with pytest.raises(services.Refused, match="you do not sit at this table"):
        services.set_auto_play(table.pk, stranger, False)
    Seat.objects.filter(table=table, position=1).update(left=True, auto_play=True)
    with pytest.raises(services.Refused, match="you left this match"):
        services.set_auto_play(table.pk, users[1], False)
    waiting = services.create_table(users[0], "zhejiang_caishen", {})
    services.sit(waiting.pk, stranger)
    with pytest.raises(services.Refused, match="only for a running match"):
        services.set_auto_play(waiting.pk, stranger, True)


class Socket:
    def __init__(self, table: Table, user: Any | None) -> None:
        self.comm = WebsocketCommunicator(APP, ws_path(table.pk))
        self.comm.scope["user"] = user
        self.whole = WholeFrames()

    async def open(self) -> dict[str, Any]:
        connected, _ = await self.comm.connect(timeout=HANDSHAKE_S)
        assert connected
        return self.whole(await self.comm.receive_json_from(timeout=5))

    async def until(self, check: Any) -> dict[str, Any]:
        for _ in range(20):
            frame = self.whole(await self.comm.receive_json_from(timeout=5))
            if check(frame):
                return frame
        raise AssertionError("no such frame")


def test_the_socket_message_switches_autoplay_off_and_on(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = BOT_DELAY
    table, hand, users = started_rigged("as")
    services.set_auto_play(table.pk, users[0], True)

    async def scenario() -> None:
        east, watcher = Socket(table, users[0]), Socket(table, None)
        first = await east.open()
        assert first["seats"][0]["auto_play"] is True
        await watcher.open()

        await east.comm.send_json_to({"type": "autoplay", "on": False})
        frame = await east.until(lambda f: f.get("seats") and f["seats"][0]["auto_play"] is False)
        assert frame["hand"]["deadline_in_ms"] > (table.turn_seconds - 2) * 1000
        assert any(a.get("do") == "discard" for a in frame["hand"]["view"]["legal_actions"])

        await east.comm.send_json_to({"type": "autoplay", "on": "yes"})
        refused = await east.until(lambda f: f["type"] == "refused")
        assert refused["reason"] == 'autoplay takes "on": true or false'
        await watcher.comm.send_json_to({"type": "autoplay", "on": True})
        refused = await watcher.until(lambda f: f["type"] == "refused")
        assert refused["reason"] == "spectators cannot use 托管"

        await east.comm.send_json_to({"type": "autoplay", "on": True})
        await east.until(lambda f: f.get("seats") and f["seats"][0]["auto_play"] is True)
        await east.comm.disconnect()
        await watcher.comm.disconnect()

    async_to_sync(scenario)()
    assert seat_of(table, users[0]).auto_play
