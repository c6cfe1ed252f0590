"""Spectating: what watchers of a table see, and how many there are.

Watchers get the public view only (no concealed tile, no wall order, no seed before the end),
and ``CAISHEN_SPECTATOR_DELAY`` seconds late, so a watcher cannot help a seated friend:

- live frames reach a watcher's socket and are held there for the delay (``TableConsumer``);
- a watcher's snapshot is the table as it was ``delay`` seconds ago: the hand is rebuilt
  from its dealt snapshot (``HandStart``) and the actions logged before that time
  (``HandAction.created_at``), then rendered for the public.

The watcher count lives in the cache (Redis when scaled, so every process sees one count);
a process that dies with open sockets leaves it high until those tables end — it is a
courtesy figure for the players, never used for a decision.
"""

from __future__ import annotations

import copy
import time
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from games.engine.hand import Hand as EngineHand
from games.engine.state import Action
from games.models import Hand, HandStart, Table
from games.protocol import render_state

WATCHER_KEY = "caishen:watchers:{}"


def delay_seconds() -> float:
    return max(0.0, float(getattr(settings, "CAISHEN_SPECTATOR_DELAY", 3)))


# --------------------------------------------------------------------------- count
def watcher_count(table_id: int) -> int:
    return max(0, int(cache.get(WATCHER_KEY.format(table_id), 0)))


_recent: dict[int, tuple[float, int]] = {}


def recent_watcher_count(table_id: int, max_age: float = 1.0) -> int:
    """The watcher count as of at most ``max_age`` seconds ago: every step's frames show it,
    and in the scaled mode each read is a Redis round trip on the database thread."""
    now = time.monotonic()
    hit = _recent.get(table_id)
    if hit is not None and now - hit[0] < max_age:
        return hit[1]
    count = watcher_count(table_id)
    if len(_recent) > 10000:
        _recent.clear()
    _recent[table_id] = (now, count)
    return count


def watcher_joined(table_id: int) -> int:
    _recent.pop(table_id, None)
    key = WATCHER_KEY.format(table_id)
    cache.add(key, 0, timeout=None)
    return int(cache.incr(key))


def watcher_left(table_id: int) -> int:
    _recent.pop(table_id, None)
    key = WATCHER_KEY.format(table_id)
    cache.add(key, 0, timeout=None)
    value = int(cache.decr(key))
    if value < 0:
        cache.set(key, 0, timeout=None)
        value = 0
    return value


# -------------------------------------------------------------------- delayed view
def _engine_at(row: Hand, start: HandStart, cutoff: datetime) -> tuple[EngineHand, int]:
    """The hand as it stood at ``cutoff``: its dealt snapshot and the actions logged by then."""
    engine = EngineHand.from_json(start.snapshot)
    engine.open_empty_windows = True  # as the platform plays it (services._engine)
    seq = 1  # start_hand saves the deal as seq 1, actions or not
    for logged in row.actions.filter(created_at__lte=cutoff).order_by("seq", "index"):
        engine.apply_trusted(Action.from_json(logged.action))  # validated when it was played
        seq = logged.seq
    return engine, seq


def _scores_until(table: Table, cutoff: datetime) -> dict[str, int]:
    totals = {str(p): 0 for p in range(4)}
    done = Hand.objects.filter(table=table, settled=True, finished_at__lte=cutoff).values_list("deltas", flat=True)
    for deltas in done:
        for chair, units in (deltas or {}).items():
            totals[chair] = totals.get(chair, 0) + int(units)
    return totals


def spectator_state(table: Table, now: datetime | None = None, delay: float | None = None) -> dict[str, Any]:
    """The public snapshot of ``table`` as it was ``delay`` seconds ago."""
    delay = delay_seconds() if delay is None else delay
    now = now or timezone.now()
    seats = list(table.seats.all())  # names come from games.names, not a join
    cutoff = now - timedelta(seconds=delay)
    row = table.hands.filter(started_at__lte=cutoff).order_by("-number").first() if delay > 0 else None
    if delay <= 0:
        row = table.hands.order_by("-number").first()
        engine = EngineHand.from_json(row.snapshot) if row is not None else None
        state = render_state(table, seats, row, engine, None)
    else:
        start = HandStart.objects.filter(hand=row).first() if row is not None else None
        engine = None
        shown = None
        if row is not None and row.status == Hand.FINISHED and row.finished_at and row.finished_at <= cutoff:
            engine, shown = EngineHand.from_json(row.snapshot), row
        elif row is not None and start is not None:
            engine, seq = _engine_at(row, start, cutoff)
            shown = copy.copy(row)
            shown.seq = seq
            shown.deadline_at = None  # the clock of the moment shown is long gone
            if not engine.ended:
                shown.status, shown.deltas, shown.seed = Hand.PLAYING, None, ""
        state = render_state(table, seats, shown, engine, None)
        state["table"]["scores"] = _scores_until(table, cutoff)
        state["table"]["hands_played"] = Hand.objects.filter(table=table, finished_at__lte=cutoff).count()
    state["table"]["watchers"] = watcher_count(table.pk)
    state["table"]["spectator_delay"] = delay
    return state


def state_for_reader(table: Table, user: Any) -> dict[str, Any]:
    """The snapshot for a page or API reader: a seated player's own view, else the watcher's
    (delayed, public) — so no side door (the table page, the REST API) shows play undelayed."""
    from games import services

    if services.reads.held_position(list(table.seats.all()), user) is not None:
        state = services.state_for(table, user)
        state["table"]["watchers"] = watcher_count(table.pk)
        return state
    return spectator_state(table)
