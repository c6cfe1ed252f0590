"""听牌 hints at a live table: the engine's :mod:`games.engine.insight.hints` for a seat's view.

A table opts in (``Table.hints``, off by default, never at a tournament's table, never rated);
then each seated player's state carries ``hand.hints`` (docs/protocol.md), computed from the
very view that player is sent — so a hint can only know what its reader may see.  Watchers and
finished hands get none.
"""

from __future__ import annotations

import logging
from typing import Any

from games.engine import SeatView, hints
from games.models import Table

log = logging.getLogger(__name__)


def hints_for(table: Table, view: dict[str, Any], position: int | None) -> dict[str, Any] | None:
    """The hint set for the reader of ``view`` (a seat's engine view, its own answer applied),
    or None: hints off, a watcher, or nothing to hint (no decision and not ready)."""
    if not table.hints or position is None:
        return None
    try:
        seat = SeatView.from_view(view)
        found = hints(seat) if seat is not None else None
    except Exception:  # noqa: BLE001 - a hint is help, never a reason for the step to fail
        # This runs inside the step's transaction (games.runtime.fanout): a fault here would roll back
        # the move it describes.  The player loses the hint for this frame, not the move.
        log.exception("hints failed for table %s, seat %s", table.pk, position)
        return None
    if found is None:
        return None
    if not found.discards and not found.claims and found.waits is None:
        return None
    return found.to_json()
