"""A hand's engine and event log rebuilt from its record.

A step of a running hand appends its actions (``HandAction``, one row per action) and bumps the
hand's ``seq``; the whole engine snapshot is rewritten only every ``CAISHEN_SNAPSHOT_EVERY`` steps
and at the hand's end (``Hand.snapshot`` at ``Hand.snapshot_seq``).  So the hand at any ``seq`` is
the last snapshot written at or before it, with the logged actions of the steps after it applied
again.  The engine is deterministic and every logged action was validated when it was played, so
applying them again (``apply_trusted``) gives the very state, and the very events, of the live
step — which is how the event log of a hand is read too: derived from its actions, not stored.

Who rebuilds: a process whose engine cache misses (another process applied the last step, or
it restarted), readers rendering a snapshot, and replays.  The process that applies the steps
keeps its engine between them (games.runtime.engine_cache) and rebuilds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from games.engine import Action, Event, load_hand
from games.engine import Hand as EngineHand
from games.models import Hand, HandAction, HandStart


class RecordBroken(Exception):
    """The record cannot give the state asked for (a missing start, an action count that does
    not match the events it should produce): a corrupted or pre-record hand."""


def engine_from(snapshot: dict[str, Any], actions: Iterable[dict[str, Any]]) -> EngineHand:
    """The engine of ``snapshot`` with ``actions`` (``Action.to_json()`` values) applied in order."""
    engine = load_hand(snapshot)  # claim protection comes with the snapshot
    for action in actions:
        engine.apply_trusted(Action.from_json(action))  # validated when it was played
    return engine


def actions_between(hand_id: int, after_seq: int, upto_seq: int) -> list[dict[str, Any]]:
    """The logged actions of the steps ``after_seq < seq <= upto_seq``, in the order applied."""
    if upto_seq <= after_seq:
        return []
    return list(
        HandAction.objects.filter(hand_id=hand_id, seq__gt=after_seq, seq__lte=upto_seq)
        .order_by("seq", "index")
        .values_list("action", flat=True)
    )


def engine_at(hand_id: int, seq: int, snapshot: dict[str, Any], snapshot_seq: int) -> EngineHand:
    """The hand at ``seq`` from a snapshot written at ``snapshot_seq`` (read together with it).

    A snapshot newer than ``seq`` (the caller's row is older than a step that rewrote it) cannot
    be wound back: the hand is rebuilt from its deal instead."""
    if snapshot_seq > seq:
        start = HandStart.objects.filter(hand_id=hand_id).values_list("snapshot", flat=True).first()
        if start is None:
            raise RecordBroken(f"hand {hand_id}: no dealt snapshot to rebuild seq {seq} from")
        snapshot, snapshot_seq = start, 0
    return engine_from(snapshot, actions_between(hand_id, snapshot_seq, seq))


def engine_of(row: Hand) -> EngineHand:
    """The engine of ``row`` at ``row.seq`` (its snapshot columns as loaded with it)."""
    return engine_at(row.pk, row.seq, row.snapshot, row.snapshot_seq)


def derived_events(start: dict[str, Any], actions: Iterable[HandAction]) -> Iterator[tuple[int, Event]]:
    """The event log of a hand, ``(seq, event)`` in order: its dealt snapshot with its logged
    actions applied again.  Each action must give the number of events logged beside it."""
    engine = load_hand(start)
    for logged in actions:
        events = engine.apply_trusted(Action.from_json(logged.action))
        if len(events) != logged.event_count:
            raise RecordBroken(
                f"hand {logged.hand_id}: action {logged.seq}.{logged.index} gave {len(events)} events, "
                f"{logged.event_count} logged"
            )
        for event in events:
            yield logged.seq, event


def event_log(row: Hand, recorded: tuple[dict[str, Any], list[HandAction]] | None = None) -> list[tuple[int, Event]]:
    """The hand's event log, ``(seq, event)`` in order: the stored one of a hand recorded with
    its events (before they were derived), else derived from the deal and the actions.
    ``recorded``: the dealt snapshot and the actions when the caller read them already."""
    stored = list(row.events.all())
    if stored:
        return [(logged.seq, Event.from_json(logged.event)) for logged in stored]
    start: dict[str, Any] | None
    if recorded is not None:
        start, actions = recorded
    else:
        start = HandStart.objects.filter(hand_id=row.pk).values_list("snapshot", flat=True).first()
        actions = list(row.actions.all())
    if start is None:
        if actions:
            raise RecordBroken(f"hand {row.pk}: actions logged without a dealt snapshot")
        return []
    return list(derived_events(start, actions))
