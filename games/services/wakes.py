"""What a timer's wake-up does (spec/DESIGN.md §4): the timers' and the sweeper's one entry point.

A timer never owns state: it asks :func:`wake` with the token it was armed with (a hand's seq, a
table's ready deadline), and a stale or early wake-up changes nothing.  A running hand's deadline
is a step of the hand (``play.timed_out``); a finished hand's opens the match's next hand; a
table's is the ready countdown or the pre-hand question's clock.  The locks are taken through
games.services.locks, in its order.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.models import Hand, Table
from games.runtime import timers
from games.runtime.process import runtime
from games.services import lobby, locks, match, overload, play
from games.services.common import Refused, announce_table_change, deadline_token


def wake(kind: str, obj_id: int, token: int) -> bool:
    """A timer asks.  Returns whether anything changed (stale or early wake-ups change nothing)."""
    if kind == "table":
        return _wake_table(obj_id, token)
    with transaction.atomic():
        try:
            row = locks.lock_hand(obj_id, seats_next=True)
        except Refused:
            return False
        now = timezone.now()
        if row.seq != token or row.deadline_at is None or now < row.deadline_at:
            runtime().rows.put_hand(row)  # a stale or early wake-up: nothing changed
            return False
        if row.status == Hand.FINISHED:
            row.deadline_at = None
            row.save(update_fields=["deadline_at"])
            table = locks.lock_table(row.table_id)  # held already (lock_hand): read afresh
            if (
                table.status == Table.PLAYING
                and table.pre_hand is None
                and not table.hands.filter(number=row.number + 1).exists()
            ):
                match.begin_hand(table)
            return True
        play.timed_out(row, now)
        return True


def _wake_table(table_id: int, token: int) -> bool:
    with transaction.atomic():
        try:
            table = locks.lock_table(table_id)
        except Refused:
            return False
        if table.ready_deadline is None:
            return False
        now = timezone.now()
        if deadline_token(table.ready_deadline) != token or now < table.ready_deadline:
            return False
        question = match.current_question(table)
        if table.status == Table.PLAYING and question is not None and table.pre_hand is not None:
            # Whoever did not answer in time takes the default answer.
            for wind in question.seats:
                table.pre_hand["answers"].setdefault(str((wind + table.dealer_position) % 4), question.default)
            match.advance_pre_hand(table, now)
            return True
        if table.status != Table.WAITING:
            return False
        if table.quick_play:
            lobby.quick_table_due(table)
            return True
        if overload.take_refused_start(table.pk) or runtime().monitor.refusing():
            # The fourth seat tried to ready up and was refused (the process takes no new match
            # while saturated), or may have: unseating it for that would punish the refusal —
            # also when the load has fallen since.  The countdown starts again instead.
            table.ready_deadline = now + timedelta(seconds=settings.CAISHEN_READY_SECONDS)
            table.save(update_fields=["ready_deadline"])
            timers.schedule_on_commit("table", table.pk, deadline_token(table.ready_deadline), table.ready_deadline)
            return True
        for seat in locks.lock_seats(table, user__isnull=False, ready=False):
            lobby.vacate(seat)
        table.ready_deadline = None
        table.save(update_fields=["ready_deadline"])
        announce_table_change(table)
        return True


def due_wakeups(now: datetime | None = None) -> list[tuple[str, int, int]]:
    """Every deadline that has passed: the sweeper's safety net for lost timers."""
    now = now or timezone.now()
    hands = Hand.objects.filter(deadline_at__lte=now).values_list("pk", "seq")
    waiting = Table.objects.filter(ready_deadline__lte=now).values_list("pk", "ready_deadline")
    tables = [(pk, at) for pk, at in waiting if at is not None]
    return [("hand", pk, seq) for pk, seq in hands] + [("table", pk, deadline_token(at)) for pk, at in tables]


def wakeups_between(start: datetime, end: datetime) -> list[tuple[str, int, int, datetime]]:
    """The deadlines in (start, end], with when each is due: what the celery sweeper arms ahead
    (games.runtime.timers.arm_upcoming)."""
    hands = Hand.objects.filter(deadline_at__gt=start, deadline_at__lte=end).values_list("pk", "seq", "deadline_at")
    waiting = Table.objects.filter(ready_deadline__gt=start, ready_deadline__lte=end).values_list(
        "pk", "ready_deadline"
    )
    return [("hand", pk, seq, at) for pk, seq, at in hands if at is not None] + [
        ("table", pk, deadline_token(at), at) for pk, at in waiting if at is not None
    ]
