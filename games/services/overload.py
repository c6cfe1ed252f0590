"""Refusing new tables and matches while this process's running tables need protecting.

Whether they do is the saturation monitor's to say (``runtime().monitor``,
games/runtime/saturation.py, which says why and how: the tables' step latency and queue); this
module refuses by it where a new table or match would start, and remembers a refused match start
for the ready countdown.  Running matches are never refused.
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext as _

from games.runtime.process import runtime
from games.services.common import Refused


class Overloaded(Refused):
    """A new table or match refused because this process is saturated; ``retry_after``: the
    seconds to wait before trying again (the REST API's Retry-After)."""

    code = "overloaded"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def message() -> str:
    # Translated (zh-Hans / English) in the language active for the request: the REST API's
    # ``detail``, the lobby's and the table page's messages show it as is.
    return _(
        "The server is busy and is not starting new tables or matches for now. "
        "Games already running are not affected. Try again in a minute."
    )


def refuse_new_work() -> None:
    """Raise ``Overloaded`` if this process is saturated: called where a new table is created or
    a new match would start, never on a running match's path."""
    monitor = runtime().monitor
    if monitor.refusing():
        monitor.refusals += 1  # from several threads: a count for the log and /healthz, not exact
        raise Overloaded(message(), monitor.thresholds.retry_after_s)


_REFUSED_START_KEY = "caishen:overload:refused-start:{}"


def remember_refused_start(table_id: int) -> None:
    """Note that a match start at this table was refused (in the shared cache: the countdown may
    run out in another process).  Kept for two ready countdowns."""
    seconds = 2 * int(settings.CAISHEN_READY_SECONDS)
    cache.set(_REFUSED_START_KEY.format(table_id), 1, timeout=seconds)


def take_refused_start(table_id: int) -> bool:
    """Was a match start at this table refused since the countdown last ran out?  (Forgets it.)"""
    key = _REFUSED_START_KEY.format(table_id)
    refused = cache.get(key) is not None
    if refused:
        cache.delete(key)
    return refused
