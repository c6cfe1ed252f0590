"""Replay analysis: the engine's judgement of every decision in a finished hand.

:func:`analyse` replays a hand from its dealt snapshot and, before each action that is a
*decision* of the acting seat, reads that seat's view (:class:`SeatView` of ``Hand.view(seat)``,
so nothing the seat could not see enters the judgement) and its hints
(:func:`~games.engine.insight.hints.hints`, with the useful tiles of every discard).  The
decisions judged:

* on its own turn, a **discard** (or a self-drawn **win**);
* an **answer to a claim offer**: a chow, pung, kong or win taken, or a pass while the seat held
  an offer.  A pass with nothing to claim (claim protection opens a window after every discard)
  is no decision.

Own-turn kongs and rule sets' own verbs (报听, prompts such as 抢金) are applied but not judged.

The measure (the same as the hints'): first the *distance* (向听) after the choice — a win ranks
above everything, then the lower the distance the better — and, at equal distance, the *gain*:
the unseen copies of the tiles to wait on (when ready) or of the tiles that would lower the
distance (when not).  For a chow or pung the distance and gain are those after its best discard;
for a kong, of the part left; for a pass, of the hand as it is.  ``best`` lists the three
top-ranked choices (the chosen one among them when it ranks there).

**Clearly worse** (``clear_mistake``), with its ``reason`` code:

* ``passed_win``: a win was legal (self-drawn or on the offer) and the seat did anything else;
* ``higher_distance``: a discard whose distance is higher than the best discard's;
* ``fewer_tiles``: a discard at the best distance whose gain is at most half the best's *and*
  at least 4 tiles fewer (so 6 against 8 is a matter of taste, 2 against 8 is not);
* ``worsening_claim``: a chow, pung or kong taken whose claim verdict is ``worsens`` (the hand
  is farther from ready after it and its best discard than before).

Passing a claim that would improve is never marked: an open hand scores less, the choice is a
player's.  The judgement is of the shape only: a rule set's scoring (a bigger hand waited for)
is not weighed.

The per-seat :class:`SeatSummary` counts the decisions and clear mistakes, and
``ready_turns``: the seat's own turns (each ends in a discard or a self-drawn win) after the turn
in which it first became ready (distance 0 after its discard), up to the hand's end; ``None``
when it never did.  Pure engine data: no Django here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine.hand import PLAY, Hand
from games.engine.insight.hints import WORSENS, HintSet, Waits, hints, parts_after, useful_of, waits_of
from games.engine.insight.reader import ShapeReader
from games.engine.insight.seat_view import Offer, SeatView
from games.engine.state import CHOW, DISCARD, KONG, PASS, PUNG, WIN, Action, seat_name
from games.engine.variants import load_hand

# Decision kinds
TURN, CLAIM = "turn", "claim"
# Reasons for a clear mistake (the wire's words; the viewer translates them).
PASSED_WIN, HIGHER_DISTANCE, FEWER_TILES, WORSENING_CLAIM = (
    "passed_win",
    "higher_distance",
    "fewer_tiles",
    "worsening_claim",
)
BEST_SHOWN = 3
FEWER_AT_LEAST = 4  # "fewer_tiles": at least this many unseen tiles fewer than the best ...
FEWER_FRACTION = 0.5  # ... and at most this share of the best's


def _norm(action: Mapping[str, Any]) -> dict[str, Any]:
    return Action.from_json(dict(action)).to_json()


@dataclass(frozen=True, slots=True)
class Choice:
    """One thing the seat could do, as the measure sees it."""

    action: dict[str, Any]  # the action, as the wire writes it
    wins: bool = False
    distance: int | None = None  # after the choice (None for a win)
    waits: Waits | None = None  # when ready after it
    useful: Waits | None = None  # when not ready after it

    @property
    def gain(self) -> int:
        w = self.waits if self.distance == 0 else self.useful
        return w.unseen if w is not None else 0

    def rank(self) -> tuple[int, int]:
        """Lower is better: a win first, then the distance, then the most unseen tiles."""
        if self.wins:
            return (-2, 0)
        return (self.distance if self.distance is not None else 99, -self.gain)

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "wins": self.wins,
            "distance": self.distance,
            "ready": self.distance == 0,
            "waits": self.waits.to_json() if self.waits else None,
            "useful": self.useful.to_json() if self.useful else None,
            "unseen": self.gain,
        }


@dataclass(frozen=True, slots=True)
class Judgement:
    """The engine's view of one decision: action number ``n`` (1-based, as the replay counts)."""

    n: int
    seat: int
    decision: str  # TURN or CLAIM
    chosen: Choice
    before: int | None  # the distance at the decision (see the module docstring)
    best: tuple[Choice, ...]
    clear_mistake: bool
    reason: str | None = None
    verdict: str | None = None  # a claim taken: the hint's verdict (wins/improves/keeps/worsens)

    @property
    def after(self) -> int | None:
        return self.chosen.distance

    @property
    def chosen_is_best(self) -> bool:
        return bool(self.best) and self.chosen.rank() <= self.best[0].rank()

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "seat": seat_name(self.seat),
            "decision": self.decision,
            "action": self.chosen.action,
            "before": self.before,
            "after": self.after,
            "chosen": self.chosen.to_json(),
            "best": [c.to_json() for c in self.best],
            "chosen_is_best": self.chosen_is_best,
            "clear_mistake": self.clear_mistake,
            "reason": self.reason,
            "verdict": self.verdict,
        }


@dataclass(frozen=True, slots=True)
class SeatSummary:
    seat: int
    decisions: int
    clear_mistakes: int
    ready_turns: int | None  # own turns between first becoming ready and the end; None: never

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": seat_name(self.seat),
            "decisions": self.decisions,
            "clear_mistakes": self.clear_mistakes,
            "ready_turns": self.ready_turns,
        }


@dataclass(frozen=True, slots=True)
class HandAnalysis:
    variant: str
    judgements: tuple[Judgement, ...]
    summary: tuple[SeatSummary, ...]  # one per seat, E S W N

    def for_action(self, n: int) -> Judgement | None:
        for j in self.judgements:
            if j.n == n:
                return j
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "judgements": [j.to_json() for j in self.judgements],
            "summary": [s.to_json() for s in self.summary],
        }


# ---------------------------------------------------------------------------- judging
def _part_choice(
    action: dict[str, Any],
    reader: ShapeReader,
    counts: list[int],
    n_melds: int,
    view: SeatView,
    distance: int | None = None,
) -> Choice:
    """A 3n+1 concealed part ``counts`` (changed and restored in place) as a choice's outcome;
    ``distance``: its distance when the caller has it."""
    d = reader.distance(counts, n_melds) if distance is None else distance
    if d == 0:
        return Choice(action, distance=0, waits=waits_of(reader, counts, n_melds, view))
    return Choice(action, distance=d, useful=useful_of(reader, counts, n_melds, d, view))


def _claim_choice(offer: Offer, reader: ShapeReader, counts: list[int], view: SeatView) -> Choice:
    action = _norm(offer.action)
    if offer.kind == WIN:
        return Choice(action, wins=True)
    n = view.n_melds + 1
    # A kong leaves one part; a chow or pung one per discard after it, of which the best counts:
    # the waits or useful tiles (the costly part) only for those at the lowest distance.
    parts = [(reader.distance(part, n), part) for part in parts_after(offer, counts)]
    low = min(d for d, _ in parts)
    return min((_part_choice(action, reader, part, n, view, d) for d, part in parts if d == low), key=Choice.rank)


def _ranked(choices: Sequence[Choice]) -> tuple[Choice, ...]:
    return tuple(sorted(choices, key=Choice.rank)[:BEST_SHOWN])  # stable: hand order breaks ties


def _turn_judgement(n: int, view: SeatView, hs: HintSet, act: Action, win_legal: bool) -> Judgement | None:
    choices: list[Choice] = []
    if win_legal:
        choices.append(Choice({"seat": seat_name(view.seat), "do": WIN}, wins=True))
    for d in hs.discards:
        action = Action(view.seat, DISCARD, tile=d.tile).to_json()
        choices.append(Choice(action, distance=d.distance, waits=d.waits, useful=d.useful))
    if act.kind == WIN:
        chosen = choices[0] if win_legal else None
    else:
        chosen = next((c for c in choices if not c.wins and Action.from_json(c.action).tile == act.tile), None)
    if chosen is None:
        return None
    best = _ranked(choices)
    top = best[0]
    reason: str | None = None
    if not chosen.wins and top.wins:
        reason = PASSED_WIN
    elif not chosen.wins:
        discards = [c for c in choices if not c.wins]
        low = min(c.rank() for c in discards)
        if chosen.distance is not None and chosen.distance > low[0]:
            reason = HIGHER_DISTANCE
        else:
            most = -low[1]
            if chosen.gain <= most * FEWER_FRACTION and most - chosen.gain >= FEWER_AT_LEAST:
                reason = FEWER_TILES
    return Judgement(
        n=n,
        seat=view.seat,
        decision=TURN,
        chosen=chosen,
        before=hs.distance,
        best=best,
        clear_mistake=reason is not None,
        reason=reason,
    )


def _claim_judgement(n: int, view: SeatView, hs: HintSet, act: Action) -> Judgement | None:
    reader = view.reader()
    counts = view.counts()
    choices = [_claim_choice(o, reader, counts, view) for o in view.offers]
    verdicts = {Action.from_json(dict(c.action)): c.verdict for c in hs.claims}
    pass_choice = _part_choice({"seat": seat_name(view.seat), "do": PASS}, reader, counts, view.n_melds, view)
    choices.append(pass_choice)
    if act.kind == PASS:
        chosen: Choice | None = pass_choice
    else:
        chosen = next((c for c in choices[:-1] if Action.from_json(c.action) == act), None)
    if chosen is None:
        return None
    verdict = verdicts.get(act) if act.kind != PASS else None
    reason: str | None = None
    if not chosen.wins and any(c.wins for c in choices):
        reason = PASSED_WIN
    elif verdict == WORSENS:
        reason = WORSENING_CLAIM
    return Judgement(
        n=n,
        seat=view.seat,
        decision=CLAIM,
        chosen=chosen,
        before=hs.distance,
        best=_ranked(choices),
        clear_mistake=reason is not None,
        reason=reason,
        verdict=verdict,
    )


def judge(engine: Hand, act: Action, n: int) -> Judgement | None:
    """The judgement of ``act`` (not yet applied to ``engine``), or None when it is no decision."""
    if act.kind not in (DISCARD, WIN, PASS, CHOW, PUNG, KONG):
        return None
    raw = engine.view(act.seat)
    view = SeatView.from_view(raw)
    if view is None:
        return None
    if view.offers:
        if act.kind == DISCARD:
            return None
        return _claim_judgement(n, view, hints(view), act)
    own_turn = raw.get("window") is None and engine.turn == act.seat and bool(view.discards)
    if not own_turn or act.kind not in (DISCARD, WIN):
        return None
    win_legal = any(a["do"] == WIN for a in raw["legal_actions"])
    return _turn_judgement(n, view, hints(view), act, win_legal)


def analyse(initial_snapshot: Mapping[str, Any], actions: Sequence[Mapping[str, Any]]) -> HandAnalysis:
    """Judge every decision of the hand dealt as ``initial_snapshot`` and played by ``actions``
    (the replay's action objects, in order; trusted: replays validate them first)."""
    engine = load_hand(dict(initial_snapshot))
    judgements: list[Judgement] = []
    decisions = [0, 0, 0, 0]
    mistakes = [0, 0, 0, 0]
    ready_at: list[int | None] = [None, None, None, None]  # own-turn count when first ready
    turns = [0, 0, 0, 0]  # own turns ended (a discard or a self-drawn win)
    for n, raw in enumerate(actions, start=1):
        act = Action.from_json(dict(raw))
        j = judge(engine, act, n) if not engine.ended else None
        own_turn_end = (
            not engine.ended
            and engine.window is None
            and engine.turn == act.seat
            and act.kind in (DISCARD, WIN)
            and engine.phase == PLAY
        )
        if j is not None:
            judgements.append(j)
            decisions[act.seat] += 1
            mistakes[act.seat] += j.clear_mistake
        if own_turn_end:
            turns[act.seat] += 1
            if (
                act.kind == DISCARD
                and ready_at[act.seat] is None
                and j is not None
                and j.decision == TURN
                and j.after == 0
            ):
                ready_at[act.seat] = turns[act.seat]
        engine.apply_trusted(act)
    summary = tuple(
        SeatSummary(
            seat=s,
            decisions=decisions[s],
            clear_mistakes=mistakes[s],
            ready_turns=(turns[s] - r) if (r := ready_at[s]) is not None else None,
        )
        for s in range(4)
    )
    return HandAnalysis(variant=engine.variant.key, judgements=tuple(judgements), summary=summary)
