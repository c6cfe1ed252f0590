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

import asyncio
import copy
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from games.engine import Hand as EngineHand
from games.models import Hand, HandAction, HandStart, Table
from games.records import disclosure, rebuild
from games.wire.frames import Snapshot
from games.wire.protocol import hand_info, render_state

WATCHER_KEY = "caishen:watchers:{}"


def delay_seconds() -> float:
    return max(0.0, float(settings.CAISHEN_SPECTATOR_DELAY))


# --------------------------------------------------------------------------- count
def watcher_count(table_id: int) -> int:
    return max(0, int(cache.get(WATCHER_KEY.format(table_id), 0)))


_recent: dict[int, tuple[float, int, int]] = {}  # table -> (read at, count, its generation then)
_generation: dict[int, int] = {}  # table -> joins and leaves seen by this process


def recent_watcher_count(table_id: int, max_age: float | None = None) -> int:
    """The watcher count as of at most ``max_age`` seconds ago: every step's frames show it,
    and in the scaled mode each read is a Redis round trip on the database thread.

    A join or a leave in this process forgets the table's count at once (its generation moves
    on, so a read that raced it is not kept).  With a cache of this process's own (the embedded
    mode) no other process changes the count, so a count is kept much longer: the steps of a
    table without watchers then read nothing at all."""
    if max_age is None:
        max_age = 1.0 if _counts_shared() else 60.0
    now = time.monotonic()
    generation = _generation.get(table_id, 0)
    hit = _recent.get(table_id)
    if hit is not None and hit[2] == generation and now - hit[0] < max_age:
        return hit[1]
    count = watcher_count(table_id)
    if len(_recent) > 10000:
        _recent.clear()
    _recent[table_id] = (now, count, generation)
    return count


def _counts_shared() -> bool:
    """Whether other processes change the counts too (any cache but Django's per-process one)."""
    backend: str = settings.CACHES["default"]["BACKEND"]
    return not backend.endswith("LocMemCache")


def forget_watcher_counts() -> None:
    _recent.clear()
    _generation.clear()


def _moved(table_id: int) -> None:
    """After the count changed: a read that saw the old count carries the old generation."""
    if len(_generation) > 10000:
        _generation.clear()
        _recent.clear()  # (a kept count's generation could otherwise match again)
    _generation[table_id] = _generation.get(table_id, 0) + 1
    _recent.pop(table_id, None)


def watcher_joined(table_id: int) -> int:
    key = WATCHER_KEY.format(table_id)
    cache.add(key, 0, timeout=None)
    value = int(cache.incr(key))
    _moved(table_id)
    return value


def watcher_left(table_id: int) -> int:
    key = WATCHER_KEY.format(table_id)
    cache.add(key, 0, timeout=None)
    value = int(cache.decr(key))
    if value < 0:
        cache.set(key, 0, timeout=None)
        value = 0
    _moved(table_id)
    return value


# -------------------------------------------------------------------- delayed view
class PublicViews:
    """The engine's public view of a hand at a seq, rendered once per process.

    Rebuilding the hand from its deal for every watcher's snapshot would cost, for 20 watchers
    resyncing 19 times a second, 380 replays a second on the database thread the seated
    players' steps share.  The public view at ``(hand, seq)`` never changes once that
    seq exists, so it is kept here (least recently used out first) and every watcher of the
    table at the same moment shares it.  Keys carry the hand's ``started_at`` beside its id: an
    id reused after a rollback (SQLite, tests) is another hand.  The secrets of an ended hand
    (seed, revealed hands) are in the cached view; ``protocol.hand_info`` takes them out per
    reader on every render, asking ``games.records.disclosure`` afresh, so the cache never keeps a
    verdict.  Read-only for callers: one dict is shared by every snapshot built from it.
    """

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self._entries: OrderedDict[tuple[int, datetime, int], dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[int, datetime, int]) -> dict[str, Any] | None:
        with self._lock:
            view = self._entries.get(key)
            if view is None:
                self.misses += 1
                return None
            self.hits += 1
            self._entries.move_to_end(key)
            return view

    def put(self, key: tuple[int, datetime, int], view: dict[str, Any]) -> None:
        with self._lock:
            self._entries[key] = view
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


PUBLIC_VIEWS = PublicViews()  # this process's (games.runtime.process: ``runtime().public_views``)


def _seq_at(row: Hand, cutoff: datetime) -> int:
    """The last step of ``row`` logged by ``cutoff`` (0: none yet): one query, nothing replayed.
    A step's actions share its seq, so the view shows whole steps, never half of one."""
    found = (
        HandAction.objects.filter(hand_id=row.pk, created_at__lte=cutoff)
        .order_by("-seq")
        .values_list("seq", flat=True)
        .first()
    )
    return int(found or 0)


def _replayed(row: Hand, applied: int) -> EngineHand | None:
    """The hand as dealt (``HandStart``) with the steps up to ``applied``; None without a start."""
    start = HandStart.objects.filter(hand_id=row.pk).values_list("snapshot", flat=True).first()
    if start is None:
        return None
    return rebuild.engine_from(start, rebuild.actions_between(row.pk, 0, applied))


def _saved(row: Hand, seq: int) -> EngineHand | None:
    """The hand at ``seq`` from its latest snapshot if it is still at ``seq`` (a step may have
    moved it on since ``row`` was read: then the caller replays, so the cache never files a state
    under the wrong seq)."""
    found = Hand.objects.filter(pk=row.pk, seq=seq).values_list("snapshot", "snapshot_seq").first()
    if found is None:
        return None
    return rebuild.engine_at(row.pk, seq, *found)


def public_view(row: Hand, applied: int) -> dict[str, Any] | None:
    """The public view of ``row`` after its step ``applied`` (its current seq: the saved
    snapshot; an earlier one: replayed from the deal), from :data:`PUBLIC_VIEWS` when it can.
    None for a past step of a hand logged before ``HandStart`` existed."""
    key = (row.pk, row.started_at, applied)
    view = PUBLIC_VIEWS.get(key)
    if view is None:
        engine = _saved(row, applied) if applied == row.seq else None
        engine = engine or _replayed(row, applied)
        if engine is None:
            return None
        view = engine.view(None)
        PUBLIC_VIEWS.put(key, view)
    return view


def _finished_until(table: Table, cutoff: datetime) -> tuple[dict[str, int], int]:
    """Match scores (settled hands) and hands played as of ``cutoff``, counted as the table's
    own scores are (``disclosure.hand_gain``: units, or points on a score-only table), less the
    hands whose outcome is withheld (``games.records.disclosure``)."""
    totals = {str(p): 0 for p in range(4)}
    done = list(
        Hand.objects.filter(table=table, finished_at__lte=cutoff).only(
            "pk", "settled", "deltas", "result", "dealer_position", "status"
        )
    )
    secret = {h.pk for h in disclosure.withheld_hands(table, finished_by=cutoff)} if done else set()
    for row in done:
        if not row.settled or row.pk in secret:
            continue
        for chair, units in disclosure.hand_gain(row, int(table.stake)).items():
            totals[chair] = totals.get(chair, 0) + units
    return totals, len(done)


def spectator_state(table: Table, now: datetime | None = None, delay: float | None = None) -> Snapshot:
    """The public snapshot of ``table`` as it was ``delay`` seconds ago."""
    delay = delay_seconds() if delay is None else delay
    now = now or timezone.now()
    seats = list(table.seats.all())  # names come from games.wire.names, not a join
    state = render_state(table, seats, None, None, None)
    hands = table.hands.defer("snapshot").order_by("-number")  # the snapshot only on a cache miss
    if delay <= 0:
        row = hands.first()
        view = public_view(row, row.seq) if row is not None else None
        if row is not None and view is not None:
            state["hand"] = hand_info(row, None, None, view=view)
    else:
        cutoff = now - timedelta(seconds=delay)
        row = hands.filter(started_at__lte=cutoff).first()
        if row is not None:
            over = row.status == Hand.FINISHED and row.finished_at is not None and row.finished_at <= cutoff
            # (at most the row's seq: a step committed since the row was read belongs to a later
            # snapshot, and the row's status must describe the state shown)
            applied = row.seq if over else min(_seq_at(row, cutoff), row.seq)
            view = public_view(row, applied)
            if view is not None:
                shown = row
                if not over:
                    shown = copy.copy(row)
                    shown.seq = max(applied, 1)  # start_hand saves the deal as seq 1, actions or not
                    shown.deadline_at = None  # the clock of the moment shown is long gone
                    if applied != row.seq or row.status != Hand.FINISHED:  # not yet ended then
                        shown.status, shown.deltas, shown.seed = Hand.PLAYING, None, ""
                state["hand"] = hand_info(shown, None, None, view=view)
        state["table"]["scores"], state["table"]["hands_played"] = _finished_until(table, cutoff)
    if delay <= 0 and table.hands_played > 0:  # (the delayed scores above leave withheld hands out)
        state["table"]["scores"] = disclosure.scores_shown(table, state["table"]["scores"])
    state["table"]["watchers"] = watcher_count(table.pk)
    state["table"]["spectator_delay"] = delay
    return state


class SharedRenders:
    """Watchers of one table asking at the same moment share one render of its snapshot.

    A watcher's resync or ping is answered at most once a second per socket (the consumer), but
    20 sockets can ask in the same instant: 20 renders back to back on the database thread held a
    seated player's command up by half a second.  Here requests for the same key that arrive
    while no render of it has *started* yet join the next one, so every answer is still computed
    after its request arrived (never an older state), and a burst costs one or two renders.  Per
    process and per event loop (the sockets' own: daphne has one; tests start many).  The state
    is shared between the sockets: read-only.
    """

    def __init__(self) -> None:
        # loop -> (key -> the next render, not started yet; key -> its lock)
        self._loops: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, tuple[dict[Hashable, asyncio.Future[Any]], dict[Hashable, asyncio.Lock]]
        ] = weakref.WeakKeyDictionary()
        self.renders = 0

    async def get(self, key: Hashable, render: Callable[[], Awaitable[Any]]) -> Any:
        loop = asyncio.get_running_loop()
        waiting, locks = self._loops.setdefault(loop, ({}, {}))
        future = waiting.get(key)
        if future is None:
            future = waiting[key] = loop.create_future()
            loop.create_task(self._run(key, future, render, waiting, locks))
        # shield: a socket closing while it waits must not cancel the others' answer
        return await asyncio.shield(future)

    async def _run(
        self,
        key: Hashable,
        future: asyncio.Future[Any],
        render: Callable[[], Awaitable[Any]],
        waiting: dict[Hashable, asyncio.Future[Any]],
        locks: dict[Hashable, asyncio.Lock],
    ) -> None:
        lock = locks.setdefault(key, asyncio.Lock())
        try:
            async with lock:  # one render of a key at a time: later requests wait for the next
                if waiting.get(key) is future:
                    del waiting[key]  # started: requests from now on join the next render
                self.renders += 1
                result = await render()
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:  # every waiter gets the failure, as its own render would have
            future.set_exception(exc)
        else:
            future.set_result(result)
        finally:
            if key not in waiting and not lock.locked():  # (a queued render keeps its key waiting)
                locks.pop(key, None)
