"""The wire format of the live table (docs/protocol.md): parsing commands, rendering state.

Every rendered state is for one reader: a chair (0..3) or the public.  The engine's
``view`` already hides what that reader may not see; this module only adds the
table around it (names, chairs, winds, the clock) and never adds a tile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from games.engine import SEATS, Action, get_variant, parse_tile, parse_tiles
from games.engine import Hand as EngineHand
from games.models import Hand, Seat, Table
from games.records import disclosure
from games.wire.frames import Snapshot
from games.wire.hints import hints_for
from games.wire.names import display_names


def parse_action(command: Any, engine_seat: int) -> Action:
    """``{"do": "discard", "tile": "5m"}`` -> an engine Action for ``engine_seat``."""
    if not isinstance(command, dict):
        raise ValueError('an action is an object like {"do": "discard", "tile": "5m"}')
    verb = command.get("do")
    if not isinstance(verb, str) or not verb:
        raise ValueError("the action needs a verb in 'do'")
    tile = command.get("tile")
    tiles = command.get("tiles")
    if tile is not None and not isinstance(tile, str):
        raise ValueError("'tile' is a tile in notation, e.g. \"5m\"")
    if tiles is not None and not isinstance(tiles, str):
        raise ValueError("'tiles' is a meld in notation, e.g. \"345m\"")
    return Action(
        engine_seat,
        verb,
        tile=parse_tile(tile) if tile is not None else None,
        tiles=tuple(sorted(parse_tiles(tiles))) if tiles is not None else None,
    )


def seat_list(seats: list[Seat]) -> list[dict[str, Any]]:
    names = display_names(s.user_id for s in seats if not s.is_bot)
    out = []
    for s in seats:
        name = None
        if s.is_bot:
            name = f"Bot {s.position + 1}"
        elif s.user_id is not None:
            name = names.get(s.user_id)
        out.append(
            {
                "position": s.position,
                "name": name,
                "user_id": s.user_id,
                "is_bot": s.is_bot,
                "bot_level": s.bot_level if s.is_bot else None,
                "ready": s.ready,
                "connected": s.connected or s.is_bot,
                "auto_play": s.auto_play,
                "left": s.left,
            }
        )
    return out


def match_scores(table: Table) -> dict[str, int]:
    """Wallet units won or lost per chair over the finished hands of this match — points on a
    score-only table (stake 0) — kept on the table row by settlement: no query on the hot path."""
    return {str(p): int((table.scores or {}).get(str(p), 0)) for p in range(4)}


def table_info(table: Table) -> dict[str, Any]:
    rules = get_variant(table.variant)
    return {
        "scores": match_scores(table),
        "id": table.pk,
        "variant": table.variant,
        "variant_name": rules.display_name,
        "options": table.options,
        "stake": table.stake,
        "hands_total": table.hands_total,
        "hands_played": table.hands_played,
        "status": table.status,
        "is_private": table.is_private,
        "quick_play": table.quick_play,  # ready_deadline: when bots take the empty chairs
        "hints": table.hints,  # 听牌 hints for the seated players (games/wire/hints.py)
        "turn_seconds": table.turn_seconds,
        "claim_seconds": table.claim_seconds,
        "owner_id": table.owner_id,
        "dealer_position": table.dealer_position,
        "ready_deadline": table.ready_deadline.isoformat() if table.ready_deadline else None,
        "pre_hand": pre_hand_info(table),
    }


def pre_hand_info(table: Table) -> dict[str, Any] | None:
    """The open pre-hand question (买底/顶底, 飘): public, like the bets themselves."""
    ph = table.pre_hand
    if not ph:
        return None
    q = ph["questions"][ph["index"]]
    deadline_ms = None
    if table.ready_deadline is not None:
        deadline_ms = max(0, int((table.ready_deadline - timezone.now()).total_seconds() * 1000))
    return {
        "key": q["key"],
        "label": q["label"],
        "choices": q["choices"],
        "default": q["default"],
        "asked": [(wind + table.dealer_position) % 4 for wind in q["seats"]],  # chairs
        "answers": dict(ph["answers"]),  # chair -> answer so far
        "decided": dict(table.context),  # earlier questions' outcome (the dealer's 买底 before 顶底)
        "deadline_in_ms": deadline_ms,
    }


@dataclass(frozen=True, slots=True)
class HandCommon:
    """What every reader's ``hand`` shows alike and :func:`hand_info` would work out per reader:
    the chairs' winds and the clock.  The fan-out works it out once per step and shares it (one
    object for every reader: its deltas compare it once)."""

    winds: dict[str, str]
    deadline: str | None
    deadline_in_ms: int | None


# Chair -> seat wind for each dealer's chair: one dict per dealer, shared by every step's frames
# (read-only), so a step's delta finds the winds unchanged by identity, not by comparing them.
_WINDS: tuple[dict[str, str], ...] = tuple({str(p): SEATS[(p - dealer) % 4] for p in range(4)} for dealer in range(4))


def hand_common(row: Hand) -> HandCommon:
    deadline_ms = None
    if row.deadline_at is not None:
        deadline_ms = max(0, int((row.deadline_at - timezone.now()).total_seconds() * 1000))
    return HandCommon(
        winds=_WINDS[row.dealer_position % 4],  # chair -> seat wind (E: the dealer)
        deadline=row.deadline_at.isoformat() if row.deadline_at else None,
        deadline_in_ms=deadline_ms,
    )


def hand_info(
    row: Hand,
    engine: EngineHand | None,
    position: int | None,
    view: dict[str, Any] | None = None,
    disclosed: bool | None = None,
    common: HandCommon | None = None,
) -> dict[str, Any]:
    """``view``: the engine's view for this reader when the caller rendered it already
    (the fan-out renders every reader's at once: ``Hand.views``; spectators' is cached).
    ``disclosed``: the caller's :func:`games.records.disclosure.may_disclose` verdict for a finished
    hand, asked here when not given.  ``common``: :func:`hand_common` of the row, when the caller
    renders several readers.  A finished hand whose secrets are withheld (a duplicate
    deal still played elsewhere) loses its seed; a seated player keeps only their own and the
    winner's revealed hand, a watcher sees nothing of the outcome (``disclosure.redact_view``)."""
    engine_seat = row.engine_seat(position) if position is not None else None
    if common is None:
        common = hand_common(row)
    if view is None:
        assert engine is not None, "hand_info needs the engine or the view"
        view = engine.view(engine_seat)
    finished = row.status == Hand.FINISHED
    withheld = None
    ended = finished or "revealed" in view  # (an ended view under a stale row: withheld, safe side)
    if ended and not (disclosure.may_disclose(row) if disclosed is None else disclosed):
        view = disclosure.redact_view(view, seated=position is not None)
        withheld = disclosure.WITHHELD
    shown = _with_own_answer(row, engine_seat, view)
    return {
        "id": row.pk,
        "number": row.number,
        "seq": row.seq,
        "status": row.status,
        "dealer_position": row.dealer_position,
        "winds": common.winds,  # chair -> seat wind this hand (E is the dealer)
        "seed_hash": row.seed_hash,
        "seed": row.seed if finished and withheld is None else None,
        "withheld": withheld,  # why the seed (and for watchers the revealed hands) is not shown
        "deadline": common.deadline,
        "deadline_in_ms": common.deadline_in_ms,
        "view": shown,
        # (a watcher of a withheld hand learns only that it is over: not what it moved)
        "deltas": row.deltas if finished and (withheld is None or position is not None) else None,
        # 听牌 hints for this seat when the table has them (games/wire/hints.py); None otherwise.
        # Watchers have none: ask before touching row.table (a watcher's row may not carry it).
        "hints": None if finished or position is None else hints_for(row.table, shown, position),
    }


def _with_own_answer(row: Hand, engine_seat: int | None, view: dict[str, Any]) -> dict[str, Any]:
    """A seat that has answered a protected claim window sees its answer and no more buttons;
    the window stays open for everyone else until its deadline, or until every person it asks
    has answered (services.play)."""
    answered = (row.window_answers or {}).get(str(engine_seat)) if engine_seat is not None else None
    if answered is None:
        return view
    # (the kept answer's mark of who gave it, play.BY_SETTING, is the server's own business)
    shown = {k: v for k, v in answered.items() if k != "by_setting"}
    return {**view, "legal_actions": [], "answered": shown}


def render_state(
    table: Table,
    seats: list[Seat],
    row: Hand | None,
    engine: EngineHand | None,
    position: int | None,
) -> Snapshot:
    """The full snapshot for the reader at chair ``position`` (``None``: a watcher)."""
    return {
        "type": "snapshot",
        "table": table_info(table),
        "seats": seat_list(seats),
        "you": position,
        "hand": hand_info(row, engine, position) if row is not None and engine is not None else None,
    }
