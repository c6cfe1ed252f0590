"""Deadlines that only ask: a timer wakes ``services.wake(kind, id, token)`` and nothing else.

This module imports neither the services (which import it to schedule) nor the Celery tasks
(which import both): GamesConfig.ready hands it what it calls, through :func:`connect`.

Two backends behind one function, chosen by ``CAISHEN_TIMERS``:

* ``inprocess`` (embedded default): asyncio ``call_later`` on daphne's event loop,
  plus a sweeper every ``CAISHEN_SWEEP_SECONDS`` that wakes anything overdue
  (lost timers, a restart).  Bound to the loop by the first ASGI request.
* ``celery`` (scaled): an ETA task queued on commit for a deadline that is near, plus a beat
  sweeper task that wakes anything overdue and arms the deadlines coming due (``arm_upcoming``).
  A far deadline — a 120 s turn — is not queued when it is set: almost every one is superseded
  by the player's move long before it is due, and each queued one cost the broker, the worker's
  reservation and ack, and a stale wake-up (half the worker's tasks at 100 tables).

A wake-up that is stale (``seq`` moved on) or early changes nothing, so
duplicate or late timers are harmless.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.runtime.connections import QueueWake, WakeServices
from games.runtime.process import runtime

log = logging.getLogger("caishen.timers")


def connect(services: WakeServices, queue_wake: QueueWake) -> None:
    """Hand the timers what they call (GamesConfig.ready does, once per process).  ``services``
    is asked for its functions at each call, so a test may replace one where it lives."""
    connected = runtime().connected
    connected.wake_services = services
    connected.queue_wake = queue_wake


def _services() -> WakeServices:
    return runtime().connected.services()


def backend_name() -> str:
    return str(settings.CAISHEN_TIMERS)


def schedule_on_commit(kind: str, obj_id: int, token: int, at: datetime) -> None:
    # robust: a broker that is down must not undo the step's other after-commit work (the
    # sweeper finds the deadline on the row and wakes it later).
    transaction.on_commit(lambda: schedule(kind, obj_id, token, at), robust=True)


def schedule(kind: str, obj_id: int, token: int, at: datetime) -> None:
    if backend_name() == "celery":
        ahead = (at - timezone.now()).total_seconds()
        if ahead > commit_horizon():
            return  # far off: the sweeper arms it when it comes near (arm_upcoming)
        local = runtime().timers
        if ahead <= local_upto() and local.serving():
            local.schedule(kind, obj_id, token, at)  # CAISHEN_LOCAL_TIMERS_UPTO
            return
        _queue_wake_task(kind, obj_id, token, at)
    else:
        runtime().timers.schedule(kind, obj_id, token, at)


def local_upto() -> float:
    """Celery backend: deadlines this close are fired by the web process that set them."""
    return float(settings.CAISHEN_LOCAL_TIMERS_UPTO)


# The celery backend's timing.  With P the sweep period, a sweep at t arms the deadlines in
# (t + P/2, t + 2P]: a window 1.5 P long, so the next sweep (due P later, late by up to P/2)
# always finds a deadline before it leaves the window, at least P/2 ahead of it.  Deadlines set
# within 2P of now are queued on commit instead; they never reach a later sweep's window unless
# they are longer than P/2 (duplicates are harmless: the second wake-up finds the seq moved on).
# Whatever is still missed — a sweeper down, a lost task — is overdue at a later sweep and woken then.


def _sweep_period() -> float:
    return float(settings.CAISHEN_SWEEP_SECONDS or 2)


def arming_window(now: datetime) -> tuple[datetime, datetime]:
    period = _sweep_period()
    return now + timedelta(seconds=period / 2), now + timedelta(seconds=commit_horizon())


def commit_horizon() -> float:
    """Seconds ahead within which a deadline is queued when it is set (celery backend)."""
    return 2 * _sweep_period()


def arm_upcoming(now: datetime | None = None) -> int:
    """The sweeper's second job (celery backend): queue the wake-ups of the deadlines that come
    due before the next sweep can.  Returns how many it queued."""
    if backend_name() != "celery":
        return 0  # in-process timers are armed when set, whatever the delay
    start, end = arming_window(now or timezone.now())
    upcoming = _services().wakeups_between(start, end)
    for kind, obj_id, token, at in upcoming:
        _queue_wake_task(kind, obj_id, token, at)
    return len(upcoming)


def _queue_wake_task(kind: str, obj_id: int, token: int, at: datetime) -> None:
    runtime().connected.queue()(kind, obj_id, token, at)
