"""托管 after three *consecutive* disconnects (SPEC D4 断线: "连续三次断线以上").

Were every disconnect of a match counted, three short drops spread over an evening of play would
put the seat in 托管.  So a reconnect that lasts through the player's own next action ends the
run, and the count starts again.
"""

from __future__ import annotations

from typing import Any

import pytest

from games import services
from games.models import Hand, Seat, Table
from tests.platform.live_helpers import started_rigged

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]


def drop(table: Table, user: Any, times: int) -> Seat:
    """``user``'s socket opens and closes ``times`` times; the seat as it is then."""
    for _ in range(times):
        services.set_connected(table.pk, user, True)
        services.set_connected(table.pk, user, False)
    return Seat.objects.get(table=table, user=user)


def test_three_disconnects_in_a_row_put_the_seat_in_autoplay() -> None:
    table, _, users = started_rigged("dc")
    seat = drop(table, users[1], 2)
    assert (seat.disconnects, seat.auto_play) == (2, False)
    seat = drop(table, users[1], 1)  # reconnecting between them does not break the run
    assert (seat.disconnects, seat.auto_play) == (3, True)


def test_an_own_action_after_a_reconnect_ends_the_run() -> None:
    table, hand, users = started_rigged("dr")
    east = users[0]  # chair 0 is East, to discard
    assert drop(table, east, 2).disconnects == 2
    services.set_connected(table.pk, east, True)  # back, and it lasts through the discard
    services.submit(hand.pk, east, {"do": "discard", "tile": "C"}, hand.seq)
    assert Hand.objects.get(pk=hand.pk).seq > hand.seq
    seat = Seat.objects.get(table=table, user=east)
    assert (seat.disconnects, seat.auto_play, seat.connected) == (0, False, True)
    services.set_connected(table.pk, east, False)
    seat = drop(table, east, 1)
    assert (seat.disconnects, seat.auto_play) == (2, False)  # two of a new run, not four
    seat = drop(table, east, 1)
    assert (seat.disconnects, seat.auto_play) == (3, True)
