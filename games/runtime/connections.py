"""What the rooms above hand this process at start-up: the timers' wake-ups and broker queue, the
settlement's queue for the scaled mode's worker (GamesConfig.ready, once).  The rooms below the
services cannot import them, so they are handed down and kept on the process's object
(games/runtime/process.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


class WakeServices(Protocol):
    """What the timers and the sweeper ask of the live services (``games.services`` is one)."""

    def wake(self, kind: str, obj_id: int, token: int) -> bool: ...

    def due_wakeups(self, now: datetime | None = None) -> list[tuple[str, int, int]]: ...

    def wakeups_between(self, start: datetime, end: datetime) -> list[tuple[str, int, int, datetime]]: ...

    def record_sweep(self) -> None: ...


# Queue a wake-up on the broker for when it is due (celery backend): kind, id, token, at.
QueueWake = Callable[[str, int, int, datetime], None]

NOT_CONNECTED = "the timers are not connected: GamesConfig.ready connects them at start-up"


@dataclass
class Connections:
    """The start-up wiring (``None`` until GamesConfig.ready has run)."""

    wake_services: WakeServices | None = None
    queue_wake: QueueWake | None = None
    settle_later: Callable[[int], None] | None = None

    def services(self) -> WakeServices:
        if self.wake_services is None:
            raise RuntimeError(NOT_CONNECTED)
        return self.wake_services

    def queue(self) -> QueueWake:
        if self.queue_wake is None:
            raise RuntimeError(NOT_CONNECTED)
        return self.queue_wake
