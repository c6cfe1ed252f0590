"""What every part of the table services shares: the refusal, the table-changed signal."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime

from django.db import transaction

from games.engine import IllegalAction, JSONValue
from games.models import Table
from games.runtime import fanout

log = logging.getLogger("caishen.table")

AUTO_AFTER_TIMEOUTS = 2  # consecutive timeouts before a seat goes to 托管
AUTO_AFTER_DISCONNECTS = 3  # "连续三次断线以上" (004 text): three in a row, no own action between


class Refused(ValueError):
    """A command the platform refuses; the message (English) is shown to the player.

    ``code`` (snake_case, stable) and ``params`` (JSON values) say the same for a machine: the
    table socket's ``refused`` frames carry them and the table page translates by them
    (static/js/refusals.js; docs/protocol.md lists the codes).  A refusal of the rules keeps
    the engine's code and parameters: ``Refused.of(illegal_action)``.
    """

    code: str = "refused"  # a subclass names its own; every raise site names one

    def __init__(self, reason: str, code: str | None = None, params: Mapping[str, JSONValue] | None = None) -> None:
        super().__init__(reason)
        if code is not None:
            self.code = code
        self.params: dict[str, JSONValue] = dict(params) if params else {}

    @classmethod
    def of(cls, exc: IllegalAction) -> Refused:
        """The engine's refusal as the platform's, with its code and parameters."""
        return cls(str(exc), exc.code, exc.params)


def deadline_token(at: datetime) -> int:
    """A table deadline as a timer's token: a wake-up for another deadline changes nothing."""
    return int(at.timestamp() * 1000)


def announce_table_change(table: Table) -> None:
    """After commit, every socket of the table re-reads its snapshot (seats, readiness, the match)."""
    transaction.on_commit(lambda: fanout.table_changed(table.pk), robust=True)
