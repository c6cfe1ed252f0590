"""A rated duplicate table that finishes its match while another table still plays one of its
deals is not rated at once (the Elo change would tell the other table how the deal went): the
rating waits until the deal is disclosed everywhere, then moves."""

from __future__ import annotations

import pytest

from games.models import Table
from ratings.models import DeferredRating, RatedMatch, RatingChange
from ratings.services import is_rated
from tests.platform.test_duplicate_disclosure import Event, begin_next_hand, finish_hand, live_settings
from tournaments import round_actions

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["live_settings"]  # the fixture, used here too


def play_match(table: Table) -> None:
    finish_hand(table, 1)
    begin_next_hand(table)
    finish_hand(table, 2)
    table.refresh_from_db()
    assert table.status == Table.FINISHED


def test_the_rating_waits_until_the_deal_is_finished_at_every_table() -> None:
    ev = Event()
    assert is_rated(ev.t1) and is_rated(ev.t2)
    play_match(ev.t1)
    # Table 2 still plays hand 1 (and 2): no rating change for table 1's players yet.
    assert not RatedMatch.objects.exists() and not RatingChange.objects.exists()
    assert DeferredRating.objects.filter(table=ev.t1).exists()
    finish_hand(ev.t2, 1)
    begin_next_hand(ev.t2)
    assert not RatedMatch.objects.filter(table=ev.t1).exists()  # hand 2 is still open at table 2
    finish_hand(ev.t2, 2)
    # The last deal is over at table 2: both matches are rated now, once each.
    assert set(RatedMatch.objects.values_list("table_id", flat=True)) == {ev.t1.pk, ev.t2.pk}
    assert RatingChange.objects.count() == 8
    assert not DeferredRating.objects.exists()


def test_aborting_the_other_table_releases_the_rating() -> None:
    ev = Event()
    play_match(ev.t1)
    assert not RatedMatch.objects.exists()
    round_actions.abort(ev.event.pk, ev.organiser, 2)
    assert RatedMatch.objects.filter(table=ev.t1).exists()
    assert not RatedMatch.objects.filter(table=ev.t2).exists()  # an aborted match is never rated
