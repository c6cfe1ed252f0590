"""Timers that only ask, the sweeper, the configuration checks, and Celery settlement."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model
from django.core.checks import run_checks
from django.utils import timezone

from accounts.models import Wallet
from games import services
from games.models import Hand, Table
from games.runtime.local_timers import InProcessTimers
from games.runtime.process import runtime

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]


def started_table(hands: int = 1) -> tuple[Table, Any]:
    owner = get_user_model().objects.create_user("owner", password="pw-123456")
    table = services.create_table(owner, "zhejiang_caishen", {}, stake=2, hands_total=hands)
    services.sit(table.pk, owner)
    services.add_bots(table.pk, owner)
    services.set_ready(table.pk, owner)
    table.refresh_from_db()
    return table, owner


# How often a test looks (every 50 ms) for the timer's step before failing: 30 s, a ceiling only a
# failure reaches (a busy machine can hold the step up for seconds).
FIRE_POLLS = 600


def overdue(hand: Hand) -> None:
    Hand.objects.filter(pk=hand.pk).update(deadline_at=timezone.now().replace(year=2000))


def test_in_process_timer_fires_the_service_on_its_loop() -> None:
    table, _ = started_table()
    hand = Hand.objects.get(table=table)
    overdue(hand)

    async def run() -> None:
        timers = InProcessTimers(runtime().connected, runtime().steps)
        timers.bind(asyncio.get_running_loop())
        timers.schedule("hand", hand.pk, hand.seq, timezone.now())
        for _ in range(FIRE_POLLS):
            await asyncio.sleep(0.05)
            if await asyncio.to_thread(lambda: Hand.objects.get(pk=hand.pk).seq) > hand.seq:
                return

    async_to_sync(run)()
    assert Hand.objects.get(pk=hand.pk).seq == hand.seq + 1


def test_sweeper_wakes_overdue_hands_and_records_its_run() -> None:
    table, _ = started_table()
    hand = Hand.objects.get(table=table)
    overdue(hand)
    async_to_sync(InProcessTimers(runtime().connected, runtime().steps).sweep_once)()
    assert Hand.objects.get(pk=hand.pk).seq == hand.seq + 1
    assert services.last_sweep() is not None


def test_ready_countdown_unseats_the_fourth() -> None:
    User = get_user_model()
    users = [User.objects.create_user(f"u{i}", password="pw-123456") for i in range(4)]
    table = services.create_table(users[0], "zhejiang_caishen", {})
    for u in users:
        services.sit(table.pk, u)
    for u in users[:3]:
        services.set_ready(table.pk, u)
    table.refresh_from_db()
    assert table.ready_deadline is not None
    token = int(table.ready_deadline.timestamp() * 1000)
    assert not services.wake("table", table.pk, token)  # early: nothing
    Table.objects.filter(pk=table.pk).update(ready_deadline=timezone.now().replace(year=2000))
    table.refresh_from_db()
    assert table.ready_deadline is not None
    assert services.wake("table", table.pk, int(table.ready_deadline.timestamp() * 1000))
    assert not table.seats.filter(user=users[3]).exists()
    assert table.seats.filter(user__isnull=False).count() == 3


def test_checks_refuse_celery_timers_on_the_in_memory_layer(settings: Any) -> None:
    settings.CAISHEN_TIMERS = "celery"
    ids = {e.id for e in run_checks()}
    assert "caishen.E002" in ids
    settings.CAISHEN_TIMERS = "inprocess"
    assert "caishen.E002" not in {e.id for e in run_checks()}


# A web process, started fresh: it queues from whichever thread ran the step (daphne's
# sync_to_async threads, on commit).  Printed: the app and broker each of two threads would use.
_WEB_PROCESS_QUEUES = """
import threading, django
django.setup()
from games.tasks import settle_task, wake_task
def look():
    print(wake_task.app.main, settle_task.app.main, wake_task.app.conf.broker_url, wake_task.app.conf.task_acks_late)
look()
thread = threading.Thread(target=look)
thread.start()
thread.join()
"""


def test_a_web_process_queues_its_tasks_through_the_configured_celery_app_from_every_thread() -> None:
    """Given only REDIS_URL (CELERY_BROKER_URL defaults to it), a web process's wake-ups and
    settlements go to that broker with the project's CELERY_* settings, not through Celery's
    fallback app (no settings, a broker of amqp://localhost)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if not k.startswith("CELERY_")}
    env.update(REDIS_URL="redis://127.0.0.1:6379/9", DJANGO_SETTINGS_MODULE="mahjong_platform.settings")
    done = subprocess.run(
        [sys.executable, "-c", _WEB_PROCESS_QUEUES],
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.split("\n")[-3:-1]
    assert lines == ["caishen caishen redis://127.0.0.1:6379/9 True"] * 2, done.stdout


def test_celery_settlement_settles_once(settings: Any) -> None:
    from mahjong_platform.celery import app

    settings.CAISHEN_SETTLEMENT = "celery"
    app.conf.task_always_eager = True
    try:
        table, owner = started_table()
        for _ in range(300):
            hand = Hand.objects.filter(table=table).order_by("-number").first()
            assert hand is not None
            if hand.status == Hand.FINISHED:
                break
            overdue(hand)
            services.wake("hand", hand.pk, hand.seq)
        hand.refresh_from_db()
        assert hand.status == Hand.FINISHED and hand.settled
        balance = Wallet.objects.get(user=owner).balance
        assert balance == 1000 + hand.deltas[str(table.seats.get(user=owner).position)]
        assert not services.settle_finished_hand(hand.pk)  # already settled: nothing
        assert Wallet.objects.get(user=owner).balance == balance
    finally:
        app.conf.task_always_eager = False


def test_the_sweeper_settles_a_hand_whose_settlement_task_was_lost(settings: Any, monkeypatch: Any) -> None:
    from datetime import timedelta

    from games.tasks import sweep_task

    settings.CAISHEN_SETTLEMENT = "celery"
    lost: list[int] = []
    monkeypatch.setattr(services.settlement, "queue_settlement", lost.append)  # the broker loses the task
    table, owner = started_table()
    _play_out(table)
    hand = Hand.objects.get(table=table)
    assert hand.status == Hand.FINISHED and not hand.settled and lost == [hand.pk]
    sweep_task()
    hand.refresh_from_db()
    assert not hand.settled  # only just finished: its task may still be on its way
    Hand.objects.filter(pk=hand.pk).update(finished_at=timezone.now() - timedelta(seconds=30))
    sweep_task()
    hand.refresh_from_db()
    assert hand.settled
    balance = Wallet.objects.get(user=owner).balance
    assert balance == 1000 + hand.deltas[str(table.seats.get(user=owner).position)]
    sweep_task()  # and never twice
    assert Wallet.objects.get(user=owner).balance == balance


def test_timer_scheduled_on_commit_inside_sync_to_async_fires() -> None:
    """The real path: a command committed in a database_sync_to_async thread schedules the timer."""
    from channels.db import database_sync_to_async

    table, _ = started_table()
    hand = Hand.objects.get(table=table)
    overdue(hand)

    async def run() -> None:
        local = runtime().timers
        old = local.loop
        local.loop = None
        local.bind(asyncio.get_running_loop())
        try:

            def schedule_in_a_transaction() -> None:
                from django.db import transaction

                from games.runtime import timers

                with transaction.atomic():
                    timers.schedule_on_commit("hand", hand.pk, hand.seq, timezone.now())

            await database_sync_to_async(schedule_in_a_transaction)()
            for _ in range(FIRE_POLLS):
                await asyncio.sleep(0.05)
                if await database_sync_to_async(lambda: Hand.objects.get(pk=hand.pk).seq)() > hand.seq:
                    return
        finally:
            local.loop = old

    # asyncio.run, not async_to_sync: like daphne, no outer sync thread, so database_sync_to_async
    # uses its single-thread executor and marks the context (the path the bug lived on).
    asyncio.run(run())
    assert Hand.objects.get(pk=hand.pk).seq == hand.seq + 1


def _play_out(table: Table) -> None:
    """Time out every decision until the match is over (the owner's turns default, bots play)."""
    for _ in range(3000):
        table.refresh_from_db()
        hand = Hand.objects.filter(table=table).order_by("-number").first()
        assert hand is not None
        if table.status == Table.FINISHED and hand.status == Hand.FINISHED:
            return
        overdue(hand)
        services.wake("hand", hand.pk, hand.seq)
    raise AssertionError("the match did not end")


def _summed(table: Table) -> dict[str, int]:
    totals = {str(p): 0 for p in range(4)}
    for deltas in Hand.objects.filter(table=table, settled=True).values_list("deltas", flat=True):
        for chair, units in (deltas or {}).items():
            totals[chair] += int(units)
    return totals


@pytest.mark.parametrize("settlement", ["inline", "celery"])
def test_the_tables_running_scores_are_the_sum_of_its_settled_hands(settings: Any, settlement: str) -> None:
    from mahjong_platform.celery import app

    settings.CAISHEN_SETTLEMENT = settlement
    app.conf.task_always_eager = True
    try:
        table, _ = started_table(hands=3)
        _play_out(table)
    finally:
        app.conf.task_always_eager = False
    table.refresh_from_db()
    assert Hand.objects.filter(table=table, settled=True).count() == 3
    assert table.scores == _summed(table)
    assert sum(table.scores.values()) == 0  # bots play for the house: still a zero-sum table
    frame_scores = services.state_for(table, None)["table"]["scores"]
    assert frame_scores == table.scores


# --- the celery backend: near deadlines queued on commit, far ones armed by the sweeper ---------


@pytest.fixture
def queued(settings: Any, monkeypatch: Any) -> list[tuple[tuple[Any, ...], Any]]:
    """The celery backend with the broker as the boundary: what apply_async was given."""
    from games.tasks import wake_task

    settings.CAISHEN_TIMERS = "celery"
    settings.CAISHEN_SWEEP_SECONDS = 2
    sent: list[tuple[tuple[Any, ...], Any]] = []
    monkeypatch.setattr(wake_task, "apply_async", lambda args, eta: sent.append((tuple(args), eta)))
    return sent


def test_a_near_deadline_is_queued_when_set_and_a_far_one_is_left_to_the_sweeper(queued: list[Any]) -> None:
    from datetime import timedelta

    from games.runtime import timers

    soon = timezone.now() + timedelta(seconds=0.6)  # the claim window's pause
    timers.schedule("hand", 7, 12, soon)
    timers.schedule("hand", 7, 13, timezone.now() + timedelta(seconds=120))  # a turn
    assert queued == [(("hand", 7, 12), soon)]


def test_the_sweeper_arms_the_deadlines_coming_due_before_its_next_run(queued: list[Any]) -> None:
    from datetime import timedelta

    from games.runtime import timers

    table, _ = started_table()
    hand = Hand.objects.get(table=table)
    now = timezone.now()
    turn = now + timedelta(seconds=120)
    Hand.objects.filter(pk=hand.pk).update(deadline_at=turn)
    assert timers.arm_upcoming(now) == 0  # two minutes off: not yet
    assert timers.arm_upcoming(turn - timedelta(seconds=3)) == 1
    assert queued == [(("hand", hand.pk, hand.seq), turn)]
    assert timers.arm_upcoming(turn - timedelta(seconds=0.5)) == 0  # within P/2 of due: a sweep before armed it
    ready = now + timedelta(seconds=60)
    Table.objects.filter(pk=table.pk).update(ready_deadline=ready)
    timers.arm_upcoming(ready - timedelta(seconds=2))
    assert queued[-1] == (("table", table.pk, int(ready.timestamp() * 1000)), ready)


def test_in_process_timers_are_not_armed_by_a_sweep(settings: Any) -> None:
    from datetime import timedelta

    from games.runtime import timers

    table, _ = started_table()
    Hand.objects.filter(table=table).update(deadline_at=timezone.now() + timedelta(seconds=3))
    assert timers.arm_upcoming() == 0


@pytest.mark.parametrize("period", [0.5, 2.0, 5.0])
def test_every_deadline_is_queued_ahead_of_time_by_the_commit_or_a_sweep(period: float) -> None:
    """The windows' arithmetic, over many deadlines and sweeps whose spacing jitters up to 1.5x
    the period: each deadline is queued before it is due, either when set or by a sweep."""
    import random
    from datetime import UTC, datetime, timedelta

    from django.test import override_settings

    from games.runtime import timers

    rng = random.Random(8)
    base = datetime(2026, 1, 1, tzinfo=UTC)
    with override_settings(CAISHEN_SWEEP_SECONDS=period):
        horizon = timers.commit_horizon()
        for _ in range(2000):
            set_at = rng.uniform(0, 10 * period)
            due = set_at + rng.choice([rng.uniform(0.01, 3 * period), rng.uniform(3 * period, 60 * period)])
            queued_at = set_at if due - set_at <= horizon else None
            sweep = rng.uniform(0, period)
            while queued_at is None and sweep < due:
                start, end = timers.arming_window(base + timedelta(seconds=sweep))
                if sweep >= set_at and start < base + timedelta(seconds=due) <= end:
                    queued_at = sweep
                sweep += rng.uniform(0.5 * period, 1.5 * period)
            assert queued_at is not None and queued_at < due, (set_at, due)


def test_short_deadlines_fire_in_the_web_process_that_set_them_when_configured(
    queued: list[Any], settings: Any, monkeypatch: Any
) -> None:
    """CAISHEN_LOCAL_TIMERS_UPTO: with celery timers, a deadline that close is fired on the
    serving daphne loop; farther ones, and any set outside a server (the worker), go to Celery."""
    from datetime import timedelta

    from games.runtime import timers

    settings.CAISHEN_LOCAL_TIMERS_UPTO = 1
    table, _ = started_table()
    hand = Hand.objects.get(table=table)
    overdue(hand)
    # Queued deadlines now reach 2 × 30 s ahead: the one meant for Celery (30 s) stays past the
    # local 1 s however long a busy machine stalls the scheduling thread.
    settings.CAISHEN_SWEEP_SECONDS = 30
    timers.schedule("hand", hand.pk, hand.seq, timezone.now() + timedelta(seconds=0.5))  # no server loop here
    assert [args for args, _ in queued] == [("hand", hand.pk, hand.seq)]

    local = InProcessTimers(runtime().connected, runtime().steps)
    seen: dict[str, Any] = {}  # what the far deadline's scheduling read, quoted if it was not queued
    far = ("hand", hand.pk + 10_000, 1)  # no hand of this test's: never the real one's key

    def schedule_far() -> None:
        at = timezone.now() + timedelta(seconds=30)
        seen.update(backend=timers.backend_name(), horizon=timers.commit_horizon(), upto=timers.local_upto())
        seen["ahead"] = (at - timezone.now()).total_seconds()
        timers.schedule(*far, at)

    async def run() -> None:
        local.bind(asyncio.get_running_loop(), sweep=False)
        monkeypatch.setattr(runtime(), "timers", local)
        await asyncio.to_thread(timers.schedule, "hand", hand.pk, hand.seq, timezone.now())  # as on commit
        # Its deadline read on the scheduling thread, as on commit: a busy machine's delay in
        # starting the thread must not bring it inside the horizon.
        await asyncio.to_thread(schedule_far)
        for _ in range(FIRE_POLLS):
            await asyncio.sleep(0.05)
            if await asyncio.to_thread(lambda: Hand.objects.get(pk=hand.pk).seq) > hand.seq:
                return

    async_to_sync(run)()
    assert Hand.objects.get(pk=hand.pk).seq == hand.seq + 1  # fired here, not queued
    # The short deadline was not queued again; the long one was.  (The step it fired set the
    # hand's next deadline, which the long horizon queues too, before or after the long one.)
    sent = [args for args, _ in queued]
    assert sent.count(("hand", hand.pk, hand.seq)) == 1
    assert far in sent, (sent, seen)
    assert local._sweeper is None  # beat sweeps in the scaled mode, not the web process


def recording_timers(monkeypatch: Any, fired: list[tuple[str, int, int]]) -> InProcessTimers:
    """In-process timers bound to the running loop, whose wake-ups are recorded in ``fired``
    instead of stepping a hand."""
    timers = InProcessTimers(runtime().connected, runtime().steps)

    async def fire(kind: str, obj_id: int, token: int) -> None:
        fired.append((kind, obj_id, token))

    monkeypatch.setattr(timers, "fire", fire)
    timers.bind(asyncio.get_running_loop(), sweep=False)
    return timers


def test_a_hands_deadline_set_by_a_later_step_supersedes_the_earlier_one(monkeypatch: Any) -> None:
    """A turn answered before its clock ran out: the old deadline's wake-up is dropped, not sent
    to the database thread as a stale hop.  The newest one, a second deadline of the same seq and
    a table's deadlines still fire."""
    fired: list[tuple[str, int, int]] = []

    async def run() -> None:
        timers = recording_timers(monkeypatch, fired)
        soon = timezone.now() + timedelta(milliseconds=50)
        timers.schedule("hand", 41, 5, soon)  # the turn's clock at seq 5
        timers.schedule("hand", 41, 6, soon + timedelta(milliseconds=50))  # answered: seq 6's
        timers.schedule("hand", 42, 9, soon + timedelta(milliseconds=50))
        timers.schedule("hand", 42, 8, soon)  # armed after seq 9's: the hand is past 8
        timers.schedule("hand", 43, 3, soon)
        timers.schedule("hand", 43, 3, soon)  # the same seq's deadline again
        timers.schedule("table", 7, 101, soon)
        timers.schedule("table", 7, 100, soon)
        await asyncio.sleep(0.01)  # (schedule hands each arming to the loop)
        assert timers.armed_hands() == 3
        await asyncio.sleep(0.4)
        assert timers.armed_hands() == 0

    async_to_sync(run)()
    assert sorted(fired) == [
        ("hand", 41, 6),
        ("hand", 42, 9),
        ("hand", 43, 3),
        ("hand", 43, 3),
        ("table", 7, 100),
        ("table", 7, 101),
    ]


def test_a_deadline_superseded_by_one_that_already_came_due_is_still_dropped(monkeypatch: Any) -> None:
    """The newer deadline (the claim pause, the pause between hands) comes due first: the older
    turn clock that comes due after it finds the hand moved on all the same."""
    fired: list[tuple[str, int, int]] = []

    async def run() -> None:
        timers = recording_timers(monkeypatch, fired)
        now = timezone.now()
        timers.schedule("hand", 51, 5, now + timedelta(milliseconds=200))  # seq 5's turn clock
        timers.schedule("hand", 51, 6, now + timedelta(milliseconds=20))  # seq 6's short pause
        await asyncio.sleep(0.4)
        assert timers.armed_hands() == 0

    async_to_sync(run)()
    assert fired == [("hand", 51, 6)]
