"""The step benchmark (games/tools/loadtest/stepbench.py) plays real hands through the live services
and times the reference's actions on the same rows."""

from __future__ import annotations

import pytest

from games.models import Hand, HandAction, Table
from games.runtime import fanout
from games.tools.loadtest import stepbench

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.slow
def test_it_plays_whole_hands_and_times_both_servers() -> None:
    sent_before = fanout._send_all
    timings = stepbench.run(tables=1, hands=1)
    assert fanout._send_all is sent_before, "delivery was not put back"
    hand = Hand.objects.get()
    assert hand.status == Hand.FINISHED and hand.result is not None  # played to its end
    # One command timed per player action the services applied (the deal is not a command);
    # the reference's UPDATEs moved the row's seq on by as many steps again.
    commands = HandAction.objects.filter(hand=hand).values("seq").distinct().count()
    assert len(timings.real) >= commands - 1 > 10
    assert len(timings.reference) == len(timings.real)
    assert hand.seq >= 2 * len(timings.real)
    assert all(t > 0 for t in timings.real)
    s = timings.summary()
    assert s["real"]["count"] == len(timings.real) and s["ratio"] is not None and s["ratio"] > 0
    assert Table.objects.get().status == Table.ABORTED  # nothing left for timers
