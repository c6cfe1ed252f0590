"""Sending rendered frames to the right sockets, after commit only.

Groups: ``table.<id>.seat.<chair>`` for the seated player's sockets and
``table.<id>.public`` for everyone else (spectators, the lobby's table page).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.engine import SEATS, Action
from games.engine import Hand as EngineHand
from games.models import Hand, Seat, Table
from games.records import disclosure
from games.runtime.process import runtime
from games.wire import fastjson
from games.wire.deltas import Comparisons, make_delta, state_of
from games.wire.frame_cache import Received
from games.wire.frames import Snapshot
from games.wire.protocol import hand_common, hand_info, seat_list, table_info
from games.wire.spectating import delay_seconds as spectator_delay
from games.wire.spectating import recent_watcher_count

log = logging.getLogger("caishen.fanout")


def seat_group(table_id: int, position: int) -> str:
    return f"table.{table_id}.seat.{position}"


def public_group(table_id: int) -> str:
    return f"table.{table_id}.public"


def seat_holder(seat: Seat) -> int | None:
    """The user who holds ``seat`` now, for reading its private view: the seated person, unless
    the chair is a bot's or its player walked out of the match (逃跑: 托管 or a house bot plays
    it, and the leaver watches like anyone else)."""
    if seat.is_bot or seat.left:
        return None
    return seat.user_id


def frame_readers(table_id: int, seats: list[Seat]) -> dict[str, tuple[int, int | None]]:
    """Each seat group's rightful reader (the holder's user id) at the moment of the step: a
    consumer forwards a seat frame only if its own user is that reader, so a socket left in a
    group it no longer belongs to (its user stood up, was unseated, walked out) reads nothing
    private (docs/protocol.md, "Who you are")."""
    return {seat_group(table_id, s.position): (s.position, seat_holder(s)) for s in seats}


@dataclass
class StepFrames:
    """One step's frames, rendered inside the step's transaction and sent after its commit.

    ``texts``: group -> the frame serialised once (every socket of a group gets the same text);
    ``bases``: group -> the seq its delta applies to (None: a whole ``update`` frame);
    ``states``: group -> the reader's whole state after the step, remembered on commit as the
    base of the next step's delta (``runtime().last_states``)."""

    hand_id: int
    seq: int
    texts: dict[str, str] = field(default_factory=dict)
    bases: dict[str, int | None] = field(default_factory=dict)
    states: dict[str, dict[str, Any]] = field(default_factory=dict)

    def remember(self) -> None:
        for group, state in self.states.items():
            runtime().last_states.remember(group, self.hand_id, self.seq, state)


def hand_frames(
    row: Hand,
    engine: EngineHand,
    seats: list[Seat],
    events: list[Any],
    legal: Mapping[int, list[Action]] | None = None,
) -> StepFrames:
    """One frame per reader, rendered inside the transaction from the state just saved.

    Protocol v2 (docs/protocol.md, games.wire.deltas): when this process rendered the previous step
    for a reader group, the frame is a ``delta`` from that state; otherwise a whole ``update``
    (the reader's snapshot with the step's ``seq`` and events).  What every reader gets alike —
    the table, the seats, everything public in the engine's view — is rendered once per step,
    not once per reader (docs/performance.md).  ``legal``: every seat's legal actions now, when
    the step has them (its driver's ``Turn.legal``)."""
    table: Table = row.table
    watchers = recent_watcher_count(table.pk)
    about = table_info(table) | {"watchers": watchers}  # watchers: shown to the players
    seat_rows = seat_list(seats)  # the step's locked rows
    shared = f'"table":{_json(about)},"seats":{_json(seat_rows)}'  # for whole frames, serialised once
    # Every socket of the public group counts as a watcher (games.wire.spectating): with none, no
    # public frame is rendered.  One who joins meanwhile gets a snapshot after joining, and one
    # missed in the scaled mode (the count is up to a second old) sees a seq gap and resyncs.
    # A chair nobody holds (a bot's, a leaver's) has no reader: its private frame is not rendered.
    held = [s.position for s in seats if seat_holder(s) is not None]
    readers = [None, *held] if watchers > 0 else held
    engine_seats = {p: (row.engine_seat(p) if p is not None else None) for p in readers}
    views = engine.views(engine_seats.values(), legal)
    common = hand_common(row)
    # The step that ends a hand asks once whether its secrets may go out (a duplicate deal still
    # played at another table: not yet — games.records.disclosure); every other step has none to show.
    disclosed = disclosure.may_disclose(row) if engine.ended else True
    out = StepFrames(row.pk, row.seq)
    compare = Comparisons()  # the readers' states and bases share most values: compared once
    public_about = about | {"spectator_delay": spectator_delay()} if watchers > 0 else about
    if watchers > 0 and table.hands_played > 0:
        # A withheld hand's points stay out of the watchers' match scores (its outcome is secret).
        public_about = public_about | {"scores": disclosure.scores_shown(table, about["scores"])}
    for position, reader in engine_seats.items():
        hand = hand_info(row, engine, position, view=views[reader], disclosed=disclosed, common=common)
        own_events = [e.for_seat(reader) for e in events]
        if not disclosed:
            own_events = disclosure.redact_events(own_events, SEATS[reader] if reader is not None else None)
        group = public_group(table.pk) if position is None else seat_group(table.pk, position)
        # Watchers' states say how late they are (games.wire.spectating), their frames too.
        shown = about if position is not None else public_about
        state = {"table": shown, "seats": seat_rows, "you": position, "hand": hand}
        base = runtime().last_states.base(group, row.pk, row.seq - 1)
        if base is not None:
            body = make_delta(base, state, compare)
            out.texts[group] = (
                f'{{"type":"delta","v":2,"hand_id":{row.pk},"base":{row.seq - 1},"seq":{row.seq},'
                f"{_json(body)[1:-1]},"
                f'"events":{_json(own_events)}}}'
            )
            out.bases[group] = row.seq - 1
        else:
            whole = shared if position is not None else f'"table":{_json(shown)},"seats":{_json(seat_rows)}'
            out.texts[group] = (
                f'{{"type":"update","seq":{row.seq},"you":{_json(position)},{whole},'
                f'"hand":{_json(hand)},"events":{_json(own_events)}}}'
            )
            out.bases[group] = None
        out.states[group] = state
    return out


def kept_answer_frame(row: Hand, position: int, state: Snapshot) -> StepFrames:
    """The snapshot a seat gets when its answer to a protected claim window is kept (same seq):
    sent to its group whole, and remembered as that group's base, so the next step's delta
    takes its ``answered`` away again."""
    out = StepFrames(row.pk, row.seq)
    group = seat_group(row.table_id, position)
    out.texts[group] = _json(state)
    out.bases[group] = None
    out.states[group] = state_of(state)
    return out


def _json(value: Any) -> str:
    return fastjson.dumps(value)  # compact; Chinese text as itself (UTF-8), not \u escapes


def _send_all(messages: list[tuple[str, dict[str, Any]]]) -> None:
    runtime().outbox.put(messages)


def send_hand_frames(table_id: int, frames: StepFrames, readers: dict[str, tuple[int, int | None]]) -> None:
    """Remember the step's states (the bases of the next deltas) and hand its frames to the layer.

    Each message carries the serialised text, forwarded as is by consumers, and beside it what a
    consumer needs without parsing the text: ``hand``/``seq``/``base`` (what it delivers and what
    a delta applies to), and for a seat group its chair (``seat``) and the only user whose
    sockets may forward it (``reader``: frame_readers); the public frame has neither."""
    frames.remember()
    messages = []
    for group, text in frames.texts.items():
        seat, reader = readers.get(group, (None, None))
        if seat is not None:
            # Kept for catch-up here too, not only where the group's sockets receive it: a seat
            # whose only socket dropped has nobody in the group, and its reconnect comes back to
            # the writer's process in the embedded mode (``runtime().history``).
            runtime().history.record(group, Received(frames.hand_id, frames.seq, frames.bases.get(group), text, reader))
        message = {
            "type": "table.frame",
            "text": text,
            "hand": frames.hand_id,
            "seq": frames.seq,
            "base": frames.bases.get(group),
            "seat": seat,
            "reader": reader,
        }
        messages.append((group, message))
    _send_all(messages)


def table_changed(table_id: int) -> None:
    """Seats, readiness or the match changed: every socket of the table re-reads its snapshot."""
    groups = [public_group(table_id), *(seat_group(table_id, p) for p in range(4))]
    _send_all([(group, {"type": "table.changed"}) for group in groups])
