"""What every part of the table services shares: the refusal, settings, the table-changed signal."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction

from games import fanout
from games.models import Table

log = logging.getLogger("caishen.table")

AUTO_AFTER_TIMEOUTS = 2  # consecutive timeouts before a seat goes to 托管
AUTO_AFTER_DISCONNECTS = 3  # "连续三次断线以上" (004 text): three in a row, no own action between


class Refused(ValueError):
    """A command the platform refuses; the message is shown to the player."""


def setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


def deadline_token(at: datetime) -> int:
    """A table deadline as a timer's token: a wake-up for another deadline changes nothing."""
    return int(at.timestamp() * 1000)


def announce_table_change(table: Table) -> None:
    """After commit, every socket of the table re-reads its snapshot (seats, readiness, the match)."""
    transaction.on_commit(lambda: fanout.table_changed(table.pk), robust=True)
