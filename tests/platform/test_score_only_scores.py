"""Score-only tables (stake 0: tournaments) show the hands' points, not 0 for everyone.

No wallet unit moves there, so the booked units (``Hand.deltas``) are all 0; the table's running
scores (``table.scores``, on the plates and in the hand-end dialog) are the hands' points, as the
tournament's standings count them.  The browser shows the hand's points from ``view.result``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from accounts.models import Wallet
from games import services
from games.models import Hand, Seat, Table
from games.wire.protocol import table_info

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]


def play_out(table: Table) -> None:
    """托管 plays every chair; overdue deadlines are woken, as a sweeper would, to the match's end."""
    Seat.objects.filter(table=table).update(auto_play=True)
    for _ in range(3000):
        table.refresh_from_db()
        if table.status == Table.FINISHED:
            return
        past = timezone.now().replace(year=2000)
        for row in Hand.objects.filter(table=table, deadline_at__isnull=False):
            Hand.objects.filter(pk=row.pk).update(deadline_at=past)
            services.wake("hand", row.pk, row.seq)
        Seat.objects.filter(table=table).update(auto_play=True)
    raise AssertionError("the match never finished")


def chair_points(table: Table) -> dict[str, int]:
    totals = {str(c): 0 for c in range(4)}
    for h in Hand.objects.filter(table=table):
        for engine_seat, wind in enumerate("ESWN"):
            totals[str(h.position_of(engine_seat))] += int(h.result["deltas"][wind])
    return totals


def test_a_score_only_match_keeps_the_points_as_its_scores() -> None:
    User = get_user_model()
    people = [User.objects.create_user(f"so{i}", password="pw-123456") for i in range(4)]
    table = services.create_table(people[0], "zhejiang_caishen", {}, stake=0, hands_total=8, score_only=True)
    for u in people:
        services.sit(table.pk, u)
    for u in people:
        services.set_ready(table.pk, u)
    balances = list(Wallet.objects.filter(user__in=people).order_by("user").values_list("balance", flat=True))

    play_out(table)

    table.refresh_from_db()
    expected = chair_points(table)
    assert any(expected.values()), "eight hands without a single point: rerun with another seed"
    assert table.scores == expected
    assert table_info(table)["scores"] == expected
    # Still no wallet moves: the booked units stay 0.
    for h in Hand.objects.filter(table=table):
        assert set(h.deltas.values()) <= {0}
    assert list(Wallet.objects.filter(user__in=people).order_by("user").values_list("balance", flat=True)) == balances


def test_a_staked_table_keeps_its_scores_in_wallet_units(settings: Any) -> None:
    User = get_user_model()
    people = [User.objects.create_user(f"st{i}", password="pw-123456") for i in range(4)]
    table = services.create_table(people[0], "zhejiang_caishen", {}, stake=3, hands_total=2)
    for u in people:
        services.sit(table.pk, u)
    for u in people:
        services.set_ready(table.pk, u)

    play_out(table)

    table.refresh_from_db()
    booked = {str(c): 0 for c in range(4)}
    for h in Hand.objects.filter(table=table):
        for chair, units in h.deltas.items():
            booked[chair] += units
    assert table.scores == booked
