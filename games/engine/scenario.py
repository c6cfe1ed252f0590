"""The scenario runner (CONTRACT, spec/DESIGN.md §3): ``python -m games.engine.scenario FILE.json``.

Plays a rigged hand and prints one JSON object:
``{"status", "winner", "from", "self_drawn", "deltas", "wall_left", "breakdown", "error"}``.

Scenario actions name only the choices players make.  Draws, replacement
draws and passes are implicit: a claim window closes with everyone not named
passing.  Claims listed right after a discard (or an added kong) are answers in
that window, resolved together by the variant's priority.  ``draw`` closes an
open window and asserts that the named seat is the one to draw.

A malformed scenario exits with status 2 and one line on stderr; an illegal
action yields ``status: "illegal"`` with ``error.index`` and ``error.reason``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

from games.engine.driver import turn
from games.engine.hand import CLAIM, ENDED, HAND_OVER, Hand
from games.engine.options import OptionsError
from games.engine.refusals import refuse
from games.engine.state import (
    CHOW,
    CLAIM_KINDS,
    DISCARD,
    KONG,
    PASS,
    PUNG,
    WIN,
    Action,
    IllegalAction,
    seat_index,
    seat_name,
)
from games.engine.tiles import TileNotationError, parse_tile, parse_tiles
from games.engine.variants import get_variant
from games.engine.variants.base import ScenarioError

TOP_KEYS = {
    "variant",
    "options",
    "context",
    "hands",
    "flipped",
    "wall",
    "tail",
    "actions",
    "then",
    "expect",
    "name",
    "description",
}
DRAW = "draw"
AUTOPLAY_LIMIT = 2000  # actions; a hand cannot last longer than this


class MalformedScenario(ValueError):
    """The scenario file itself is wrong (not an action the rules refuse)."""


def build_hand(sc: Mapping[str, Any], *, open_empty_windows: bool = False) -> Hand:
    """The rigged hand a scenario describes, before any action (``open_empty_windows``: claim
    protection, see :class:`~games.engine.hand.Hand`)."""
    if not isinstance(sc, Mapping):
        raise MalformedScenario("a scenario is a JSON object")
    unknown = set(sc) - TOP_KEYS
    if unknown:
        raise MalformedScenario(f"unknown key(s) {sorted(unknown)}")
    if "variant" not in sc:
        raise MalformedScenario("missing 'variant'")
    try:
        variant = get_variant(sc["variant"])
    except ValueError as exc:
        raise MalformedScenario(str(exc)) from None
    hands_in = sc.get("hands")
    if not isinstance(hands_in, Mapping) or set(hands_in) != {"E", "S", "W", "N"}:
        raise MalformedScenario("'hands' must give the tiles of each of E, S, W, N")
    try:
        hands = [parse_tiles(_text(hands_in[s], f"hands.{s}")) for s in "ESWN"]
        flipped = parse_tile(_text(sc["flipped"], "flipped")) if sc.get("flipped") is not None else None
        head = parse_tiles(_text(sc.get("wall", ""), "wall"))
        tail = parse_tiles(_text(sc.get("tail", ""), "tail"))
        return variant.rigged_hand(
            hands,
            flipped,
            head,
            tail,
            sc.get("options") or {},
            sc.get("context") or {},
            open_empty_windows=open_empty_windows,
        )
    except (TileNotationError, ScenarioError, OptionsError) as exc:
        raise MalformedScenario(str(exc)) from None


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise MalformedScenario(f"'{where}' must be a string of tiles")
    return value


def parse_action(raw: Any, index: int) -> Action:
    if not isinstance(raw, Mapping) or "seat" not in raw or "do" not in raw:
        raise MalformedScenario(f"action {index} must be an object with 'seat' and 'do'")
    try:
        seat = seat_index(raw["seat"])
        tile = parse_tile(_text(raw["tile"], f"actions[{index}].tile")) if raw.get("tile") is not None else None
        tiles = None
        if raw.get("tiles") is not None:
            tiles = tuple(sorted(parse_tiles(_text(raw["tiles"], f"actions[{index}].tiles"))))
    except (TileNotationError, ValueError) as exc:
        raise MalformedScenario(f"action {index}: {exc}") from None
    kind = raw["do"]
    if not isinstance(kind, str):
        raise MalformedScenario(f"action {index}: 'do' must be a string")
    return Action(seat, kind, tile=tile, tiles=tiles)


def close_window(hand: Hand) -> None:
    """Everyone who has not answered the open claim window passes."""
    while hand.phase == CLAIM and hand.window is not None:
        hand.apply(Action(hand.window.waiting_on()[0], PASS))


def close_prompt(hand: Hand) -> None:
    """Every seat a variant prompt (漳州 抢金, 抢暗杠) still asks passes: its default is no."""
    while asked := turn(hand).asked:
        hand.apply(Action(next(iter(asked)), PASS))


# Verbs every rule set shares; any other verb from a seat a prompt asks is an answer to it.
_SHARED_VERBS = frozenset({DISCARD, CHOW, PUNG, KONG, WIN, PASS, DRAW})


def answers_prompt(hand: Hand, act: Action) -> bool:
    """Is ``act`` an answer to the variant prompt open now (a pass, or a verb the prompt offers)?"""
    asked = turn(hand).asked
    if act.seat not in asked:
        return False
    return act.kind == PASS or act.kind not in _SHARED_VERBS or any(a.kind == act.kind for a in asked[act.seat])


def run(sc: Mapping[str, Any]) -> dict[str, Any]:
    # Claims listed after a discard must be judged even when nobody could claim,
    # so every discard opens a window here (as at the live table: claim protection).
    hand = build_hand(sc, open_empty_windows=True)
    raw_actions = sc.get("actions", [])
    if not isinstance(raw_actions, list):
        raise MalformedScenario("'actions' must be a list")
    actions = [parse_action(a, i) for i, a in enumerate(raw_actions)]
    then = sc.get("then", "stop")
    if then not in ("stop", "autoplay"):
        raise MalformedScenario('\'then\' must be "stop" or "autoplay"')
    answered = False
    for i, act in enumerate(actions):
        answered = answers_prompt(hand, act)
        try:
            play_one(hand, act)
        except IllegalAction as exc:
            return output(hand, error={"index": i, "reason": str(exc)})
    if answered:
        close_prompt(hand)  # as with a window: the listed answers were all the answers
    if hand.phase == CLAIM and hand.window is not None and hand.window.responses:
        # The listed answers were the whole answer: everyone not named passes.
        close_window(hand)
    if then == "autoplay":
        autoplay(hand)
    return output(hand)


def play_one(hand: Hand, act: Action) -> None:
    """Apply one scenario action with the implicit passes and draws around it."""
    if _ended(hand, act):
        return
    if turn(hand).asked:
        if answers_prompt(hand, act):
            hand.apply(act)
            return
        # What may go ahead beside the prompt does (漳州: the dealer's first discard while the
        # others decide on 抢金); anything else waits for it, so the seats not named pass.
        if hand.refusal(act) is not None:
            close_prompt(hand)
            if _ended(hand, act):
                return
    if hand.phase == CLAIM:
        window = hand.window
        assert window is not None
        if act.kind == PASS:
            # Only a seat that really has a claim answers; a pass from anyone else changes nothing.
            if act.seat in window.waiting_on() and window.options[act.seat]:
                hand.apply(act)
            return
        if act.kind in CLAIM_KINDS and act.seat != window.seat:
            hand.apply(_physical_chow(hand, _as_claim(act, window.tile)))
            return
        close_window(hand)  # anything else closes the window: unnamed seats pass
        if _ended(hand, act):
            return
        if turn(hand).asked and not answers_prompt(hand, act):
            close_prompt(hand)  # the next draw waited for a prompt (漳州 抢暗杠): the seat asked passes
            if _ended(hand, act):
                return
    elif act.kind == PASS:
        return  # a pass from a seat with nothing to answer changes nothing
    if act.kind == DRAW:
        if act.seat != hand.turn:
            raise IllegalAction(
                refuse(
                    "not_your_draw",
                    "it is {seat}'s turn to draw, not {actor}'s",
                    seat=seat_name(hand.turn),
                    actor=seat_name(act.seat),
                )
            )
        return
    hand.apply(act)


def _ended(hand: Hand, act: Action) -> bool:
    """True if the hand is over and ``act`` only confirms how: a ``draw`` or ``win`` of the seat
    the rules made win by itself (a variant names it in ``its state's ``auto_win````: 漳州 三游 and a
    winning tile among the last four).  Any other action on an ended hand is refused."""
    if hand.phase != ENDED:
        return False
    if act.kind in (DRAW, WIN) and hand.state.auto_win == act.seat:
        return True
    raise IllegalAction(HAND_OVER)


def _as_claim(act: Action, tile: int) -> Action:
    """Normalise a claim to the form the engine lists: pung/win name no tile, a kong names the claimed one."""
    if act.kind == KONG:
        return Action(act.seat, KONG, tile=act.tile if act.tile is not None else tile)
    if act.kind == CHOW:
        return act
    return Action(act.seat, act.kind)


def _physical_chow(hand: Hand, act: Action) -> Action:
    """A chow written by faces (``456m`` for 4m 白板 6m where 白板 plays 5m, SPEC D2) as the
    physical tiles the engine lists; unchanged unless exactly one listed chow reads so."""
    window = hand.window
    if act.kind != CHOW or act.tiles is None or window is None:
        return act
    stand_ins = hand.variant.chow_stand_ins(hand)
    offered = window.options.get(act.seat, [])
    if not stand_ins or act in offered:
        return act
    want = sorted(act.tiles)
    same = [a for a in offered if a.kind == CHOW and sorted(stand_ins.get(t, t) for t in a.tiles or ()) == want]
    return same[0] if len(same) == 1 else act


def autoplay(hand: Hand) -> None:
    """Every seat takes its timeout default until the hand ends: the seats a prompt asks first,
    then those of an open window, then the player whose turn it is."""
    for _ in range(AUTOPLAY_LIMIT):
        t = turn(hand)
        if t.ended:
            return
        if t.asked:
            seat = next(iter(t.asked))
        elif t.in_window and hand.window is not None:
            seat = hand.window.waiting_on()[0]  # in turn order from the discarder, as close_window
        else:
            seat = hand.turn
        act = t.default(seat)
        if act is None:
            raise RuntimeError(f"seat {seat_name(seat)} has no default action")
        hand.apply(act)
    raise RuntimeError("autoplay did not finish the hand")


def output(hand: Hand, error: dict[str, Any] | None = None) -> dict[str, Any]:
    r = hand.result
    if error is not None:
        status = "illegal"
    elif r is None:
        status = "in_progress"
    else:
        status = r.status
    return {
        "status": status,
        "winner": seat_name(r.winner) if r and r.winner is not None else None,
        "from": seat_name(r.from_seat) if r and r.from_seat is not None else None,
        "self_drawn": bool(r.self_drawn) if r else False,
        "deltas": {seat_name(i): (r.deltas[i] if r else 0) for i in range(4)},
        "wall_left": hand.wall_left(),
        "breakdown": [b.to_json() for b in r.breakdown] if r else [],
        "error": error,
    }


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m games.engine.scenario FILE.json", file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8") as f:
            sc = json.load(f)
        result = run(sc)
    except OSError as exc:
        print(f"scenario error: cannot read {args[0]}: {exc.strerror}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:
        print(f"scenario error: {args[0]} is not valid JSON: {exc}", file=sys.stderr)
        return 2
    except MalformedScenario as exc:
        print(f"scenario error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
