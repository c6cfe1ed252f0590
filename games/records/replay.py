"""Replays (牌谱): a finished hand as JSON lines, and back again through the engine.

Format ``caishen-replay/1``, one JSON object a line:

1. ``{"type": "header", ...}``: the variant, its options and pre-hand context, the seed and
   its hash (commit–reveal: anyone can re-derive the wall), the dealt hands and the wall in
   CONTRACT notation, and ``initial``, the engine snapshot as dealt (``Hand.to_json``).
2. For every action applied to the hand, in order: ``{"type": "action", "n": k, "action":
   {"seat": "S", "do": "discard", "tile": "5m"}}`` followed by one ``{"type": "event", "n": k,
   "event": ...}`` line per engine event it produced (``Event.to_json``: the public part and
   the acting seat's private part; the hand is over, so nothing is secret any more).
3. ``{"type": "end", "result": ..., "actions": N, "events": M}``.

The export adds the engine's analysis (:mod:`games.engine.insight.analysis`): an ``"analysis"``
object on every action line that was a judged decision, and a ``"summary"`` list (one object per
seat) on the end line.  They are extra keys, so a replay without them (exported before) is the
same format; :func:`load` neither needs nor reads them — the analysis of a loaded replay is
recomputed from its validated actions (:meth:`Replay.analyse`), never taken from the file.

:func:`load` trusts nothing: it rebuilds the dealt hand (from the seed when there is one,
checking it re-derives the very snapshot of the header), replays every action through the
validated ``Hand.apply`` and compares each event with the log.  Any disagreement raises
:class:`ReplayError` naming the line and the reason.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache

from core.jsonlimits import loads_bounded
from games.engine import (
    Action,
    HandAnalysis,
    IllegalAction,
    TileNotationError,
    analyse,
    current_snapshot,
    format_tiles,
    get_variant,
    load_hand,
    seed_commitment,
)
from games.engine import Hand as EngineHand
from games.models import Hand
from games.records import disclosure, rebuild

log = logging.getLogger(__name__)
FORMAT = "caishen-replay/1"
# Characters in one line: as much as the check endpoint takes in a whole body (ReplayCheckView).
# Depth and numbers keep loads_bounded's limits, far beyond any replay this module writes.
MAX_LINE = 2_000_000
# The analysis of a finished hand never changes: cached (a long hand takes about a second).
# The version changes whenever the analysis' JSON or its judgement does.
ANALYSIS_VERSION = 1
NOT_FROM_SEED = "the seed does not deal the hands and wall of the initial snapshot"
ANALYSIS_CACHE_SECONDS = 7 * 24 * 3600


class ReplayError(ValueError):
    """A replay refused: ``line`` (1-based) and ``reason``."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


class NotReplayable(ValueError):
    """The hand cannot be exported (still running, or played before actions were logged)."""


class Withheld(NotReplayable):
    """The hand is over but its deal is still being played elsewhere (``games.records.disclosure``)."""


@dataclass
class Step:
    action: dict[str, Any]
    events: list[dict[str, Any]]


@dataclass
class Replay:
    header: dict[str, Any]
    steps: list[Step] = field(default_factory=list)
    final: EngineHand | None = None

    def analyse(self) -> HandAnalysis:
        """The engine's analysis of the loaded hand, from its validated actions."""
        return analyse(self.header["initial"], [s.action for s in self.steps])


def _plain(value: Any) -> Any:
    """JSON's view of a value (tuples become lists), so logged and replayed events compare."""
    return json.loads(json.dumps(value))


def _dealt(engine: EngineHand) -> dict[str, Any]:
    return {
        "hands": {"ESWN"[i]: format_tiles(p.hand) for i, p in enumerate(engine.players)},
        "wall": format_tiles(engine.wall.tiles),
        "face_up": format_tiles(engine.wall.face_up_tiles()),
    }


def _new_engine(snapshot: dict[str, Any]) -> EngineHand:
    return load_hand(snapshot)  # claim protection comes with the snapshot


# --------------------------------------------------------------------------- export
def _recorded(row: Hand) -> tuple[dict[str, Any], list[Any]]:
    """A finished, disclosed hand's dealt snapshot and its logged actions (rows), or NotReplayable."""
    if row.status != Hand.FINISHED:
        raise NotReplayable("the hand is still being played; its replay opens when it ends")
    if disclosure.withheld(row):  # the same deal still runs at another table (duplicate rounds)
        raise Withheld(disclosure.WITHHELD)
    start = getattr(row, "start", None)  # a missing one-to-one raises AttributeError
    actions = list(row.actions.all())
    if start is None or not actions:
        raise NotReplayable("this hand was played before replays were recorded")
    return start.snapshot, actions


def _analysis_key(row: Hand, n_actions: int) -> str:
    finished = row.finished_at.timestamp() if row.finished_at else 0
    return f"hand-analysis:{ANALYSIS_VERSION}:{row.pk}:{finished}:{n_actions}:{row.seed_hash or ''}"


def analysis_json(row: Hand, recorded: tuple[dict[str, Any], list[Any]] | None = None) -> dict[str, Any]:
    """The analysis of a finished hand (``HandAnalysis.to_json``), cached per hand; refuses as
    :func:`export_lines` does (NotReplayable, Withheld)."""
    initial, actions = recorded if recorded is not None else _recorded(row)
    key = _analysis_key(row, len(actions))
    found = cache.get(key)
    if isinstance(found, dict):
        return found
    data = analyse(initial, [logged.action for logged in actions]).to_json()
    cache.set(key, data, ANALYSIS_CACHE_SECONDS)
    return data


# What a replay shows when its analysis failed: no judgement, and the replay itself intact.
NO_ANALYSIS: dict[str, Any] = {"judgements": [], "summary": None}


def analysis_or_none(row: Hand, recorded: tuple[dict[str, Any], list[Any]] | None = None) -> dict[str, Any]:
    """:func:`analysis_json`, or :data:`NO_ANALYSIS` when the analysis itself fails: the replay
    (the record of the hand) must stay downloadable and viewable whatever the engine's judgement
    does.  Refusals (NotReplayable, Withheld) still raise: they are answers, not faults."""
    try:
        return analysis_json(row, recorded)
    except NotReplayable:
        raise
    except Exception:  # noqa: BLE001 - the analysis is an extra; log it and show the replay
        log.exception("the analysis of hand %s failed", row.pk)
        return NO_ANALYSIS


def export_lines(
    row: Hand, *, with_analysis: bool = True, recorded: tuple[dict[str, Any], list[Any]] | None = None
) -> list[str]:
    """The replay of a finished hand, one JSON text a line (no newlines inside); with the
    engine's analysis on the judged action lines and the end line unless ``with_analysis`` is off.
    ``recorded``: the hand's ``_recorded`` rows when the caller read them already."""
    initial, actions = recorded if recorded is not None else _recorded(row)
    judged: dict[int, dict[str, Any]] = {}
    summary: list[dict[str, Any]] | None = None
    if with_analysis:
        analysis = analysis_or_none(row, (initial, actions))
        judged = {j["n"]: j for j in analysis["judgements"]}
        summary = analysis["summary"]
    engine = _new_engine(initial)
    header = {
        "type": "header",
        "format": FORMAT,
        "hand": row.pk,
        "table": row.table_id,
        "number": row.number,
        "dealer_position": row.dealer_position,
        "variant": initial["variant"],
        "options": initial["options"],
        "context": initial["context"],
        "seed": row.seed or None,
        "seed_hash": row.seed_hash or None,
        **_dealt(engine),
        "initial": initial,
    }
    out = [header]
    events = iter(_event_log(row, (initial, actions)))
    total = 0
    for n, logged in enumerate(actions, start=1):
        line: dict[str, Any] = {"type": "action", "n": n, "action": logged.action}
        if n in judged:
            line["analysis"] = judged[n]
        out.append(line)
        for _ in range(logged.event_count):
            ev = next(events, None)
            if ev is None:
                raise NotReplayable("the event log is shorter than the action log")
            out.append({"type": "event", "n": n, "event": ev[1].to_json()})
            total += 1
    end: dict[str, Any] = {"type": "end", "result": row.result, "actions": len(actions), "events": total}
    if summary is not None:
        end["summary"] = summary
    out.append(end)
    return [json.dumps(line, ensure_ascii=False, separators=(",", ":")) for line in out]


def _event_log(row: Hand, recorded: tuple[dict[str, Any], list[Any]]) -> list[tuple[int, Any]]:
    try:
        return rebuild.event_log(row, recorded)
    except rebuild.RecordBroken as exc:
        raise NotReplayable(str(exc)) from None
    except (ValueError, KeyError, IndexError) as exc:
        # The recorded actions do not apply to the recorded deal: the record was altered after
        # the fact (verify_hand names the cause).  An answer, never a 500.
        raise NotReplayable(f"the recorded actions do not replay from the recorded deal ({exc})") from None


def export_text(row: Hand, *, with_analysis: bool = True) -> str:
    return "\n".join(export_lines(row, with_analysis=with_analysis)) + "\n"


# --------------------------------------------------------------------------- import
def _obj(line_no: int, text: str) -> dict[str, Any]:
    try:
        # Bounded: a replay is client input (the check endpoint), and a line nested a few thousand
        # deep would otherwise end in a RecursionError (a 500) instead of this line's error.
        data = loads_bounded(text, max_length=MAX_LINE)
    except ValueError as exc:
        raise ReplayError(line_no, f"not JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ReplayError(line_no, 'each line is a JSON object with a "type"')
    return data


def _start(header: dict[str, Any]) -> EngineHand:
    """The dealt hand the header describes, checked against its seed and its notation."""
    if header.get("format") != FORMAT:
        raise ReplayError(1, f"unknown format {header.get('format')!r} (expected {FORMAT})")
    initial = header.get("initial")
    if not isinstance(initial, dict):
        raise ReplayError(1, "the header has no initial snapshot")
    try:
        get_variant(str(header.get("variant")))
    except ValueError:
        raise ReplayError(1, f"unknown rule set {header.get('variant')!r}") from None
    for key in ("variant", "options", "context"):
        if _plain(initial.get(key)) != _plain(header.get(key)):
            raise ReplayError(1, f"the header's {key} differs from its initial snapshot")
    try:
        engine = _new_engine(initial)
    except (KeyError, TypeError, ValueError, TileNotationError) as exc:
        raise ReplayError(1, f"the initial snapshot is malformed ({exc})") from None
    if engine.ply != 0 or engine.result is not None:
        raise ReplayError(1, "the initial snapshot is not a hand as dealt")
    seed, seed_hash = header.get("seed"), header.get("seed_hash")
    if (seed or None) != (initial.get("seed") or None) or (seed_hash or None) != (initial.get("seed_hash") or None):
        raise ReplayError(1, "the header's seed differs from its initial snapshot")
    if seed:
        if seed_commitment(str(seed)) != seed_hash:
            raise ReplayError(1, "the seed does not match its hash")
        try:
            from_seed = _dealt_from_seed(header, initial, engine, str(seed))
        except (KeyError, TypeError, ValueError) as exc:  # OptionsError is a ValueError
            # The options were compared with the snapshot's by value, where 0 == false: an option
            # the rule set refuses can get this far, and must not escape as a 500.
            raise ReplayError(1, f"the header's options or context are not valid ({exc})") from None
        if not from_seed:
            raise ReplayError(1, NOT_FROM_SEED)
    for key, value in _dealt(engine).items():
        if _plain(header.get(key)) != _plain(value):
            raise ReplayError(1, f"the header's {key} differs from its initial snapshot")
    return engine


def load(lines: Iterable[str]) -> Replay:
    """Re-validate a replay; raises ReplayError(line, reason) on the first disagreement."""
    numbered = [(i, text) for i, text in enumerate(lines, start=1) if text.strip()]
    if not numbered:
        raise ReplayError(1, "the replay is empty")
    first_no, first = numbered[0]
    header = _obj(first_no, first)
    if header["type"] != "header":
        raise ReplayError(first_no, "the first line must be the header")
    engine = _start(header)
    replay = Replay(header=header)
    expected: list[dict[str, Any]] = []  # events the last action produced, not yet matched
    ended = False
    events_seen = 0
    for line_no, text in numbered[1:]:
        data = _obj(line_no, text)
        kind = data["type"]
        if ended:
            raise ReplayError(line_no, "nothing may follow the end line")
        if kind == "action":
            if expected:
                raise ReplayError(line_no, f"the previous action produced {len(expected)} more event(s) than logged")
            if data.get("n") != len(replay.steps) + 1:
                raise ReplayError(line_no, f"action number {data.get('n')!r}, expected {len(replay.steps) + 1}")
            raw = data.get("action")
            try:
                if not isinstance(raw, dict):
                    raise ValueError("an action is an object")
                action = Action.from_json(raw)
            except (KeyError, TypeError, ValueError, TileNotationError) as exc:
                raise ReplayError(line_no, f"malformed action ({exc})") from None
            if engine.ended:
                raise ReplayError(line_no, "the hand is already over")
            try:
                produced = engine.apply(action)
            except IllegalAction as exc:
                raise ReplayError(line_no, f"illegal action {action}: {exc}") from None
            expected = [_plain(e.to_json()) for e in produced]
            replay.steps.append(Step(action=_plain(action.to_json()), events=list(expected)))
        elif kind == "event":
            if data.get("n") != len(replay.steps) or not replay.steps:
                raise ReplayError(line_no, "an event line must follow its action and carry its number")
            if not expected:
                raise ReplayError(line_no, "the engine produced no such event for this action")
            want = expected.pop(0)
            if _plain(data.get("event")) != want:
                got = data.get("event")
                got_kind = got.get("kind") if isinstance(got, dict) else got
                raise ReplayError(
                    line_no,
                    f"event differs from the engine's: logged {got_kind!r}, the engine says {want['kind']!r}"
                    if got_kind != want["kind"]
                    else f"event {want['kind']!r} differs from the engine's ({json.dumps(want, ensure_ascii=False)})",
                )
            events_seen += 1
        elif kind == "end":
            if expected:
                raise ReplayError(line_no, f"the last action produced {len(expected)} more event(s) than logged")
            if not engine.ended or engine.result is None:
                raise ReplayError(line_no, "the actions do not finish the hand")
            if _plain(data.get("result")) != _plain(engine.result.to_json()):
                raise ReplayError(line_no, "the result differs from the engine's")
            if data.get("actions") != len(replay.steps) or data.get("events") != events_seen:
                raise ReplayError(line_no, "the counts of actions and events are wrong")
            ended = True
        else:
            raise ReplayError(line_no, f"unknown line type {kind!r}")
    if not ended:
        raise ReplayError(numbered[-1][0] + 1, "the replay has no end line (truncated?)")
    replay.final = engine
    return replay


def loads(text: str) -> Replay:
    return load(text.splitlines())


# ---------------------------------------------------------------------------- viewer
def _table_state(engine: EngineHand) -> dict[str, Any]:
    """Everything on the table, all hands open; the viewer hides what a chosen seat may not see."""
    return {
        "turn": "ESWN"[engine.turn],
        "phase": engine.phase,
        "wall_left": engine.wall_left(),
        "face_up": format_tiles(engine.wall.face_up_tiles()),
        "wilds": format_tiles(sorted(engine.wild_set)),
        "players": [
            {
                "seat": "ESWN"[i],
                "hand": format_tiles(p.hand),
                "drawn": format_tiles([p.drawn]) if p.drawn is not None else None,
                "melds": [m.to_json() for m in p.melds],
                "melds_public": [m.public_json() for m in p.melds],
                "discards": format_tiles(p.discards),
                "flowers": format_tiles(p.flowers),
            }
            for i, p in enumerate(engine.players)
        ],
        "result": engine.result.to_json() if engine.result else None,
    }


def viewer_data(row: Hand) -> dict[str, Any]:
    """The replay page's frames of a finished hand with its (cached) analysis: the hand's
    records read once, the text exported without the analysis the frames carry apart."""
    recorded = _recorded(row)
    text = "\n".join(export_lines(row, with_analysis=False, recorded=recorded)) + "\n"
    return viewer_frames(text, analysis_or_none(row, recorded))


def viewer_frames(text: str, analysis: dict[str, Any] | None = None) -> dict[str, Any]:
    """The steps the replay page walks through: one frame per action that changed the table.

    Passes that close nothing produce no event; they fold into the next frame.  Each frame
    carries the judgements of its actions (``analysis``: ``HandAnalysis.to_json`` of this very
    hand, e.g. :func:`analysis_json`'s cached one; computed from the loaded replay when not
    given — never read from the text), and the result the per-seat ``summary``.
    """
    replay = loads(text)
    if analysis is None:
        try:
            analysis = replay.analyse().to_json()
        except Exception:  # noqa: BLE001 - as analysis_or_none: the replay is shown without it
            log.exception("the analysis of a loaded replay failed")
            analysis = NO_ANALYSIS
    judged = {j["n"]: j for j in analysis["judgements"]}
    engine = _new_engine(replay.header["initial"])
    frames = [{"n": 0, "actions": [], "events": [], "judgements": [], "state": _table_state(engine)}]
    pending: list[dict[str, Any]] = []
    pending_judged: list[dict[str, Any]] = []
    for n, step in enumerate(replay.steps, start=1):
        engine.apply_trusted(Action.from_json(step.action))  # validated by loads above
        pending.append(step.action)
        if n in judged:
            pending_judged.append(judged[n])
        if step.events:
            frames.append(
                {
                    "n": n,
                    "actions": pending,
                    "events": step.events,
                    "judgements": pending_judged,
                    "state": _table_state(engine),
                }
            )
            pending, pending_judged = [], []
    header = {k: v for k, v in replay.header.items() if k != "initial"}
    return {"header": header, "frames": frames, "summary": analysis["summary"]}


def _deal_not_from_seed(row: Hand) -> str | None:
    """Why the hand's recorded deal is not what its seed deals, if it is not (a record whose
    actions no longer replay was most likely altered there: say so, as :func:`loads` would)."""
    if not row.seed:
        return None
    try:
        initial, _ = _recorded(row)
        from_seed = _dealt_from_seed(initial, initial, _new_engine(initial), str(row.seed))
    except (NotReplayable, KeyError, TypeError, ValueError):
        return None
    return None if from_seed else NOT_FROM_SEED


def _dealt_from_seed(deal: dict[str, Any], initial: dict[str, Any], engine: EngineHand, seed: str) -> bool:
    """Whether ``seed``, dealt with ``deal``'s rule set, options and context, deals exactly the
    hands and wall of the ``initial`` snapshot (``engine``: that snapshot as dealt).  Raises what
    the rule set raises for options or a context it refuses."""
    dealt = get_variant(str(deal["variant"])).new_hand(
        deal["options"], deal["context"], seed=seed, open_empty_windows=engine.open_empty_windows
    )
    return bool(_plain(dealt.to_json()) == _plain(current_snapshot(initial)))


def verify_hand(row: Hand) -> dict[str, Any]:
    """Re-derive a finished hand's wall from its revealed seed and replay its log through the engine.

    The fairness check anyone can run (spec/DESIGN.md "commit-reveal walls"): the seed must hash to the
    commitment shown at the start, deal exactly the recorded hands and wall, and every recorded
    action must be legal where it was played and give exactly the logged events (derived from
    the actions for hands recorded since events stopped being stored) and the recorded result.
    """
    try:
        replay = loads(export_text(row, with_analysis=False))
    except Withheld as exc:
        return {"hand": row.pk, "ok": False, "line": None, "reason": str(exc)}
    except NotReplayable as exc:
        return {"hand": row.pk, "ok": False, "line": None, "reason": _deal_not_from_seed(row) or str(exc)}
    except ReplayError as exc:
        return {"hand": row.pk, "ok": False, "line": exc.line, "reason": exc.reason}
    header = replay.header
    return {
        "hand": row.pk,
        "ok": True,
        "seed": header.get("seed"),
        "seed_hash": header.get("seed_hash"),
        "wall_from_seed": bool(header.get("seed")),  # rigged hands (tests) have no seed to re-derive
        "actions": len(replay.steps),
    }
