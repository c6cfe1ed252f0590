"""Celery tasks of the scaled mode: timers that ask, the deadline sweeper, settlement.

Each task only calls the same service function the embedded mode calls inline.
"""

from __future__ import annotations

from datetime import datetime

from celery import shared_task

from games import services
from games.runtime import timers


@shared_task(name="games.wake", ignore_result=True)  # type: ignore[untyped-decorator]
def wake_task(kind: str, obj_id: int, token: int) -> bool:
    return services.wake(kind, obj_id, token)


@shared_task(name="games.sweep", ignore_result=True)  # type: ignore[untyped-decorator]
def sweep_task() -> int:
    """Beat runs this every few seconds: wake everything overdue (lost or late timers), queue the
    wake-ups of the deadlines coming due before the next sweep (far ones are not queued when they
    are set: games.runtime.timers), and settle finished hands whose settlement task was lost."""
    due = services.due_wakeups()
    for kind, obj_id, token in due:
        services.wake(kind, obj_id, token)
    timers.arm_upcoming()
    lost = services.unsettled_hands()
    for hand_id in lost:
        services.settle_finished_hand(hand_id)
    services.record_sweep()
    return len(due) + len(lost)


@shared_task(name="games.settle", ignore_result=True)  # type: ignore[untyped-decorator]
def settle_task(hand_id: int) -> None:
    services.settle_finished_hand(hand_id)


def queue_wake(kind: str, obj_id: int, token: int, at: datetime) -> None:
    """Queue :func:`wake_task` for when the deadline is due (handed to games.runtime.timers at start-up)."""
    wake_task.apply_async(args=(kind, obj_id, token), eta=at)


def queue_settlement(hand_id: int) -> None:
    """Queue :func:`settle_task` (handed to games.services.settlement at start-up)."""
    settle_task.delay(hand_id)
