"""The hand state machine: ``legal_actions(seat)``, ``apply(action) -> events``.

One ``Hand`` is one deal, from the first discard to a win or an exhaustive draw.
It is deterministic: the wall is fixed when the hand is made, and every change
comes through :meth:`Hand.apply`.  The rule set is a :class:`Variant` whose hooks
the machine calls; the machine itself knows only what every rule set shares:

* turn: draw (automatic), then discard, or win / kong on one's own turn;
* after a discard, a claim window collects an answer from every seat that has
  an option, then resolves by the variant's priority;
* an added kong opens a window in which others may rob it (抢杠 / 拉杠和);
* every kong is followed by a replacement draw from the tail.

Validation and effect are separate: :meth:`refusal` says why an action is
illegal (or ``None``) without touching state, and :meth:`apply_trusted` is the
fast path used for replays of already-validated histories.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from games.engine.refusals import Refusal, refuse
from games.engine.rule_state import RuleState
from games.engine.state import (
    CHOW,
    DISCARD,
    KONG,
    KONG_ADDED,
    KONG_CONCEALED,
    KONG_EXPOSED,
    MELD_CHOW,
    MELD_PUNG,
    PASS,
    PUNG,
    SEATS,
    WIN,
    Action,
    Event,
    IllegalAction,
    Meld,
    Player,
    Result,
    seat_name,
)
from games.engine.tiles import NUM_ALL_KINDS, Tile, format_tiles, is_suited, parse_tile, tile_str
from games.engine.wall import Wall

PLAY, CLAIM, ENDED = "play", "claim", "ended"
# How the player whose turn it is came to hold their tiles.
BY_DEAL, BY_DRAW, BY_REPLACEMENT, BY_CLAIM = "deal", "draw", "replacement", "claim"
# What a claim window is about.
ON_DISCARD, ON_ADDED_KONG = "discard", "added_kong"

# Refusals that legal-action lists and claim windows meet on every turn: made once.
HAND_OVER = refuse("hand_over", "the hand is over")
NO_REPLACEMENT = refuse("no_replacement_tile", "no tile is left for the replacement draw")
NOTHING_TO_ANSWER = refuse("nothing_to_answer", "you have nothing to answer")
NO_WIN_AFTER_CLAIM = refuse("no_win_after_claim", "you cannot win after a chow or pung without a new tile")


@dataclass(slots=True)
class ClaimWindow:
    kind: str  # ON_DISCARD or ON_ADDED_KONG
    seat: int  # the discarder (or the player adding a kong)
    tile: Tile
    options: dict[int, list[Action]]  # every seat that may answer -> its claims (pass is implied)
    responses: dict[int, Action] = field(default_factory=dict)

    def waiting_on(self) -> list[int]:
        return [s for s in self.options if s not in self.responses]

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "seat": self.seat,
            "tile": tile_str(self.tile),
            "options": {str(s): [a.to_json() for a in acts] for s, acts in self.options.items()},
            "responses": {str(s): a.to_json() for s, a in self.responses.items()},
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ClaimWindow:
        return cls(
            kind=d["kind"],
            seat=d["seat"],
            tile=parse_tile(d["tile"]),
            options={int(s): [Action.from_json(a) for a in acts] for s, acts in d["options"].items()},
            responses={int(s): Action.from_json(a) for s, a in d["responses"].items()},
        )


@dataclass(slots=True)
class WinContext:
    """Everything a variant needs to judge and score one win."""

    seat: int
    tile: Tile | None  # the winning tile (None when the win is on the dealt hand)
    source: str  # "self_draw" | "discard" | "robbing_kong"
    from_seat: int | None  # the discarder / the robbed player
    turn_kind: str  # BY_DEAL, BY_DRAW, BY_REPLACEMENT (for self-draws)
    counts: list[int]  # the winner's concealed tiles as a count vector, win tile included
    melds: list[Meld]


@dataclass(slots=True)
class WinVerdict:
    """A variant's judgement of a legal win: the patterns it scores."""

    patterns: list[str]
    data: dict[str, Any]


class RuleSet(Protocol):
    """What the hand machine asks of its rule set: the hooks it calls, nothing more.

    :class:`~games.engine.variants.base.Variant` implements it (its docstrings say what each
    hook is for).  The machine names this protocol rather than ``Variant`` so that the rule
    sets may import the machine while the machine imports no rule set: the engine's imports
    stay a tree (tests/test_architecture.py checks it)."""

    key: str
    state_type: type[RuleState]
    kong_after_claim: bool
    added_kong_robbable: bool

    def wild_kinds(self, hand: Hand) -> frozenset[Tile]: ...
    def discard_refusal(self, hand: Hand, seat: int, tile: Tile) -> Refusal | None: ...
    def chow_refusal(self, hand: Hand, seat: int, tile: Tile, rest: list[Tile]) -> Refusal | None: ...
    def pung_refusal(self, hand: Hand, seat: int, tile: Tile) -> Refusal | None: ...
    def kong_refusal(self, hand: Hand, seat: int, tile: Tile, kind: str) -> Refusal | None: ...
    def chow_stand_ins(self, hand: Hand) -> Mapping[Tile, Tile]: ...
    def evaluate_win(self, hand: Hand, ctx: WinContext) -> WinVerdict | Refusal: ...
    def pick_claim(self, hand: Hand, window: ClaimWindow) -> Action | None: ...
    def can_draw(self, hand: Hand) -> bool: ...
    def forced_action(self, hand: Hand, seat: int) -> Action | None: ...
    def extra_own_turn_actions(self, hand: Hand, seat: int) -> list[Action]: ...
    def extra_refusal(self, hand: Hand, action: Action) -> Refusal | None: ...
    def apply_extra(self, hand: Hand, action: Action, events: list[Event]) -> None: ...
    def prompt(self, hand: Hand) -> dict[int, list[Action]] | None: ...
    def answer_prompt(self, hand: Hand, action: Action, events: list[Event]) -> None: ...
    def before_draw(self, hand: Hand, seat: int, events: list[Event]) -> bool: ...
    def after_draw(self, hand: Hand, seat: int, tile: Tile, events: list[Event]) -> None: ...
    def after_discard(self, hand: Hand, seat: int, tile: Tile, events: list[Event]) -> None: ...
    def after_meld(self, hand: Hand, seat: int, meld: Meld, events: list[Event]) -> None: ...
    def on_claim_answer(self, hand: Hand, action: Action) -> None: ...
    def settle_win(self, hand: Hand, ctx: WinContext, verdict: WinVerdict) -> Result: ...
    def settle_draw(self, hand: Hand) -> Result: ...
    def public_info(self, hand: Hand) -> dict[str, Any]: ...
    def public_flags(self, flags: Mapping[str, Any]) -> dict[str, Any]: ...


def next_seat(seat: int, step: int = 1) -> int:
    return (seat + step) % 4


class Hand:
    """One hand of one rule set.

    A rule set's hooks read the hand's data and move it on only through its public methods
    (:meth:`discard`, :meth:`next_draw`, :meth:`replacement_draw`, :meth:`finish_win`,
    :meth:`finish_draw`, :meth:`end_hand`, the win contexts and :meth:`self_win_refusal`);
    the ``_private`` ones are the machine's own (tests/test_architecture.py checks)."""

    def __init__(
        self,
        variant: RuleSet,
        options: dict[str, Any],
        context: dict[str, Any],
        wall: Wall,
        players: list[Player],
        state: RuleState | None = None,
        seed: str | None = None,
        seed_hash: str | None = None,
        open_empty_windows: bool = False,
    ) -> None:
        self.variant = variant
        self.options = options
        self.context = context
        self.wall = wall
        self.players = players
        # The rule set's own state (its ``state_type``): the indicator, wild kinds, 分饼 ...
        self.state: RuleState = state if state is not None else variant.state_type()
        self.wild_set: frozenset[Tile] = frozenset(self.state.wilds)
        self.seed = seed  # secret until the hand ends
        self.seed_hash = seed_hash
        self.turn = 0
        self.phase = PLAY
        self.turn_kind = BY_DEAL
        self.window: ClaimWindow | None = None
        self.claims_made = False  # any chow / pung / kong so far (地和 needs none)
        self.kongs_made = 0
        self.result: Result | None = None
        # Actions applied.  Not ``seq``: that is the platform's count of saved steps, and one
        # step applies several actions (a discard, the answers to it, the bots' turns).
        self.ply = 0
        # Claim protection: open a claim window after every discard even when nobody can claim,
        # so that the pause after a discard tells nobody whether someone could (the platform and
        # the simulator play so; the scenario runner needs it to judge listed claims).  Saved in
        # the snapshot.  Off: a discard nobody can claim goes straight to the next draw.  Set
        # here only (or by with_claim_protection's new hand): changed mid-hand, it would change
        # the windows the hand has already been played with.
        self._open_empty_windows = open_empty_windows

    @property
    def open_empty_windows(self) -> bool:
        """Claim protection: a claim window after every discard (see ``__init__``)."""
        return self._open_empty_windows

    def with_claim_protection(self, on: bool = True) -> Hand:
        """This hand as it stands, as a new hand that plays with claim protection ``on`` (or off):
        how a prepared deal (rigged, or saved without it) joins a table that plays with it.
        This hand is left as it was."""
        snapshot = copy.deepcopy(self.to_json())
        snapshot["open_empty_windows"] = on
        return Hand.from_json(snapshot, self.variant)

    # ------------------------------------------------------------------ queries
    @property
    def ended(self) -> bool:
        return self.phase == ENDED

    def player(self, seat: int) -> Player:
        return self.players[seat]

    def wilds(self) -> frozenset[Tile]:
        return self.variant.wild_kinds(self)

    def set_wilds(self, kinds: list[Tile]) -> None:
        """Record this hand's wild kinds (kept in the state for snapshots, cached as a set)."""
        self.state.wilds = list(kinds)
        self.wild_set = frozenset(kinds)

    def wall_left(self) -> int:
        return self.wall.face_down_left()

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (``pass`` included where it applies)."""
        if self.phase == ENDED:
            return []
        prompt = self.variant.prompt(self)
        if prompt is not None:  # a variant's question (漳州 抢金, 抢暗杠) is answered first
            if seat in prompt:
                return [*prompt[seat], Action(seat, PASS)]
            if self.phase != PLAY:
                return []  # an open claim window or a held-back draw waits for the answers
        if self.phase == CLAIM:
            assert self.window is not None
            if seat not in self.window.options or seat in self.window.responses:
                return []
            return [*self.window.options[seat], Action(seat, PASS)]
        if seat != self.turn:
            return []
        return self._own_turn_actions(seat)

    def _own_turn_actions(self, seat: int) -> list[Action]:
        p = self.players[seat]
        acts: list[Action] = []
        if self.self_win_refusal(seat) is None:
            acts.append(Action(seat, WIN))
        counts = p.counts
        held = [t for t, n in enumerate(counts) if n]
        pungs = {m.tiles[0] for m in p.melds if m.kind == MELD_PUNG}
        for t in held:
            if counts[t] == 4 or t in pungs:
                a = Action(seat, KONG, tile=t)
                if self._own_kong_refusal(a) is None:
                    acts.append(a)
        for t in held:
            if self.variant.discard_refusal(self, seat, t) is None:
                acts.append(Action(seat, DISCARD, tile=t))
        acts.extend(self.variant.extra_own_turn_actions(self, seat))
        return acts

    # ---------------------------------------------------------------- validation
    def refusal(self, action: Action) -> Refusal | None:
        """Why ``action`` is illegal now, or ``None`` if it is legal."""
        if not 0 <= action.seat < 4:
            return refuse("no_such_seat", "no seat {seat}", seat=action.seat)
        malformed = _malformed(action)
        if malformed is not None:
            return malformed
        if self.phase == ENDED:
            return HAND_OVER
        prompt = self.variant.prompt(self)
        if prompt is not None and (action.seat in prompt or self.phase != PLAY):
            return self._prompt_refusal(prompt, action)
        if self.phase == CLAIM:
            return self._claim_refusal(action)
        if action.kind in (CHOW, PUNG) or action.kind == PASS:
            if action.kind != PASS:
                return refuse("no_discard_to_claim", "there is no discard to {verb}", verb=action.kind)
            return refuse("nothing_to_pass", "there is nothing to pass on")
        if action.seat != self.turn:
            return refuse("not_your_turn", "it is {seat}'s turn", seat=seat_name(self.turn))
        if action.kind == DISCARD:
            return self._discard_refusal(action)
        if action.kind == KONG:
            return self._own_kong_refusal(action)
        if action.kind == WIN:
            return self.self_win_refusal(action.seat)
        return self.variant.extra_refusal(self, action)

    def _prompt_refusal(self, prompt: dict[int, list[Action]], action: Action) -> Refusal | None:
        """While a variant prompt is open only the seats it asks may act: a pass or one of their options."""
        if action.seat not in prompt:
            waiting = ", ".join(seat_name(s) for s in prompt)
            return refuse("waiting_for_prompt", "waiting for {seats} to answer first", seats=waiting)
        if action.kind == PASS or action in prompt[action.seat]:
            return None
        return self.variant.extra_refusal(self, action) or refuse(
            "cannot_now", "you cannot {verb} now", verb=action.kind
        )

    def _discard_refusal(self, action: Action) -> Refusal | None:
        if action.tile is None:
            return refuse("discard_needs_tile", "a discard needs a tile")
        if not self.players[action.seat].counts[action.tile]:
            return refuse("tile_not_in_hand", "{tile} is not in your hand", tile=tile_str(action.tile))
        return self.variant.discard_refusal(self, action.seat, action.tile)

    def _own_kong_refusal(self, action: Action) -> Refusal | None:
        seat, t = action.seat, action.tile
        if t is None:
            return refuse("kong_needs_tile", "a kong needs a tile")
        p = self.players[seat]
        held = p.counts[t]
        if held == 4:
            kind = KONG_CONCEALED
        elif held >= 1 and any(m.kind == MELD_PUNG and m.tiles[0] == t for m in p.melds):
            kind = KONG_ADDED
        else:
            return refuse(
                "no_kong_held",
                "you hold no kong of {tile} (need four in hand, or one added to your pung)",
                tile=tile_str(t),
            )
        if self.turn_kind == BY_CLAIM and not self.variant.kong_after_claim:
            return refuse("discard_after_claim", "after a chow or pung you must discard")
        if self.wall.remaining() == 0:
            return NO_REPLACEMENT
        return self.variant.kong_refusal(self, seat, t, kind)

    def self_win_refusal(self, seat: int) -> Refusal | None:
        """Why ``seat`` may not declare a self-drawn win now, or ``None`` if it may."""
        if seat != self.turn or self.phase != PLAY:
            return refuse("self_win_not_your_turn", "you may only declare a self-drawn win on your own turn")
        if self.turn_kind == BY_CLAIM:
            return NO_WIN_AFTER_CLAIM
        ctx = self.self_win_context(seat)
        verdict = self.variant.evaluate_win(self, ctx)
        return verdict if isinstance(verdict, str) else None

    def self_win_context(self, seat: int) -> WinContext:
        """The :class:`WinContext` of a self-drawn win by ``seat`` on the hand it holds now."""
        p = self.players[seat]
        return WinContext(
            seat=seat,
            tile=p.drawn,
            source="self_draw",
            from_seat=None,
            turn_kind=self.turn_kind,
            counts=list(p.counts),
            melds=list(p.melds),
        )

    def _claim_refusal(self, action: Action) -> Refusal | None:
        w = self.window
        assert w is not None
        seat = action.seat
        if seat == w.seat:
            return refuse("own_tile", "you cannot claim your own tile") if action.kind != PASS else NOTHING_TO_ANSWER
        if seat in w.responses:
            return refuse("already_answered", "you have already answered this tile")
        if action.kind == PASS:
            return None if seat in w.options else NOTHING_TO_ANSWER
        if action.kind not in (CHOW, PUNG, KONG, WIN):
            waiting = ", ".join(seat_name(s) for s in w.waiting_on())
            return refuse(
                "waiting_for_answers",
                "waiting for answers on {tile} from {seats}",
                tile=tile_str(w.tile),
                seats=waiting,
            )
        if action in w.options.get(seat, ()):
            return None
        # Not among the options: explain why.
        return self._claim_reason(action) or refuse(
            "cannot_claim_now", "you cannot {verb} {tile} now", verb=action.kind, tile=tile_str(w.tile)
        )

    def _claim_reason(self, action: Action) -> Refusal | None:
        """The specific reason a claim on the open window is refused (or None if it is fine)."""
        w = self.window
        assert w is not None
        seat, t, p = action.seat, w.tile, self.players[action.seat]
        if w.kind == ON_ADDED_KONG and action.kind != WIN:
            return refuse("added_kong_robbed_by_win_only", "an added kong can only be robbed by a win")
        if action.kind == CHOW:
            if seat != next_seat(w.seat):
                return refuse("chow_next_player_only", "only the discarder's 下家 (next player) may chow")
            meld = action.tiles
            if meld is None or len(meld) != 3:
                return refuse("chow_names_three_tiles", "a chow names its three tiles, e.g. 345m")
            if t not in meld:
                return refuse("chow_must_hold_discard", "the chow must contain the discarded {tile}", tile=tile_str(t))
            stand_ins = self.variant.chow_stand_ins(self)  # a 白板 may play the wild's face
            faces = [stand_ins.get(x, x) for x in meld] if stand_ins else list(meld)
            if not all(is_suited(x) for x in faces) or len({x // 9 for x in faces}) != 1:
                return refuse("chow_not_a_run", "a chow is three consecutive tiles of one suit")
            s = sorted(faces)
            if s[1] != s[0] + 1 or s[2] != s[1] + 1:
                return refuse(
                    "chow_not_consecutive", "a chow is three consecutive tiles of one suit (9 and 1 do not connect)"
                )
            rest = sorted(meld)
            rest.remove(t)
            if not (p.counts[rest[0]] and p.counts[rest[1]]):
                return refuse(
                    "chow_tiles_missing",
                    "you need {tiles} in hand to chow {tile}",
                    tiles=format_tiles(rest),
                    tile=tile_str(t),
                )
            return self.variant.chow_refusal(self, seat, t, rest)
        if action.kind == PUNG:
            if p.counts[t] < 2:
                return refuse("pung_needs_two", "a pung needs two {tile} in hand", tile=tile_str(t))
            return self.variant.pung_refusal(self, seat, t)
        if action.kind == KONG:
            if action.tile is not None and action.tile != t:
                return refuse("kong_must_be_discard", "the kong must be of the discarded {tile}", tile=tile_str(t))
            if p.counts[t] < 3:
                return refuse(
                    "exposed_kong_needs_three", "an exposed kong needs three {tile} in hand", tile=tile_str(t)
                )
            if self.wall.remaining() == 0:
                return NO_REPLACEMENT
            return self.variant.kong_refusal(self, seat, t, KONG_EXPOSED)
        if action.kind == WIN:
            verdict = self.variant.evaluate_win(self, self.claim_win_context(seat, w.kind, w.seat, w.tile))
            return verdict if isinstance(verdict, str) else None
        return None

    def claim_win_context(self, seat: int, kind: str, from_seat: int, tile: Tile) -> WinContext:
        """The :class:`WinContext` of ``seat`` winning on ``tile`` from ``from_seat`` (``kind``:
        :data:`ON_DISCARD` or :data:`ON_ADDED_KONG`, a robbed kong)."""
        p = self.players[seat]
        counts = list(p.counts)
        counts[tile] += 1
        return WinContext(
            seat=seat,
            tile=tile,
            source="discard" if kind == ON_DISCARD else "robbing_kong",
            from_seat=from_seat,
            turn_kind=BY_CLAIM,
            counts=counts,
            melds=list(p.melds),
        )

    def _claim_options(self, kind: str, seat: int, tile: Tile) -> dict[int, list[Action]]:
        """Every seat's possible claims on ``tile`` (seats with none are left out).

        This runs on every discard, so it checks counts directly instead of
        going through :meth:`_claim_reason`; the two must agree (a test checks).
        """
        variant = self.variant
        out: dict[int, list[Action]] = {}
        for step in (1, 2, 3):
            s = (seat + step) % 4
            counts = self.players[s].counts
            acts: list[Action] = []
            verdict = variant.evaluate_win(self, self.claim_win_context(s, kind, seat, tile))
            if not isinstance(verdict, str):
                acts.append(Action(s, WIN))
            if kind == ON_DISCARD:
                held = counts[tile]
                if held >= 3 and self.wall.remaining() and variant.kong_refusal(self, s, tile, KONG_EXPOSED) is None:
                    acts.append(Action(s, KONG, tile=tile))
                if held >= 2 and variant.pung_refusal(self, s, tile) is None:
                    acts.append(Action(s, PUNG))
                if step == 1 and tile < 27:
                    for lo in (tile - 2, tile - 1, tile):
                        if lo < 0 or lo // 9 != tile // 9 or (lo + 2) // 9 != tile // 9:
                            continue
                        rest = [x for x in (lo, lo + 1, lo + 2) if x != tile]
                        if counts[rest[0]] and counts[rest[1]] and variant.chow_refusal(self, s, tile, rest) is None:
                            acts.append(Action(s, CHOW, tiles=(lo, lo + 1, lo + 2)))
                if step == 1:
                    acts.extend(self._stand_in_chows(s, tile))
            if acts or self._open_empty_windows:
                out[s] = acts
        return out

    def _stand_in_chows(self, seat: int, tile: Tile) -> list[Action]:
        """Chows in which a stand-in (``Variant.chow_stand_ins``) plays a face; the plain
        ones come from the loop in :meth:`_claim_options`.  Actions name physical tiles."""
        stand_ins = self.variant.chow_stand_ins(self)
        if not stand_ins:
            return []
        counts = self.players[seat].counts
        face = stand_ins.get(tile, tile)
        if face >= 27:
            return []
        acts: list[Action] = []
        for lo in (face - 2, face - 1, face):
            if lo < 0 or lo // 9 != face // 9 or (lo + 2) // 9 != face // 9:
                continue
            choices = []
            for need in (x for x in (lo, lo + 1, lo + 2) if x != face):
                held = [x for x in (need, *(p for p, f in stand_ins.items() if f == need)) if counts[x]]
                choices.append(held)
            for a in choices[0]:
                for b in choices[1]:
                    if not {a, b, tile} & stand_ins.keys():
                        continue  # no stand-in involved: a plain chow
                    if self.variant.chow_refusal(self, seat, tile, [a, b]) is None:
                        acts.append(Action(seat, CHOW, tiles=tuple(sorted((a, b, tile)))))
        return acts

    # ------------------------------------------------------------------- effect
    def apply(self, action: Action) -> list[Event]:
        """Validate and apply one action; on refusal raise IllegalAction and change nothing."""
        reason = self.refusal(action)
        if reason is not None:
            raise IllegalAction(reason)
        return self.apply_trusted(action)

    def apply_trusted(self, action: Action) -> list[Event]:
        """Apply an action already known to be legal (replays)."""
        self.ply += 1
        events: list[Event] = []
        prompt = self.variant.prompt(self)
        if prompt is not None and action.seat in prompt:
            self.variant.answer_prompt(self, action, events)
            return events
        if self.phase == CLAIM:
            assert self.window is not None
            self.window.responses[action.seat] = action
            self.variant.on_claim_answer(self, action)
            if not self.window.waiting_on():
                self._resolve_window(events)
            return events
        if action.kind == DISCARD:
            assert action.tile is not None
            self.discard(action.seat, action.tile, events)
        elif action.kind == KONG:
            assert action.tile is not None
            self._own_kong(action.seat, action.tile, events)
        elif action.kind == WIN:
            p = self.players[action.seat]
            self.finish_win(self.self_win_context(action.seat), events)
            p.drawn = None
        else:
            self.variant.apply_extra(self, action, events)
        return events

    def discard(self, seat: int, tile: Tile, events: list[Event]) -> None:
        """``seat`` discards ``tile``: the rule set's :meth:`after_discard`, then the claim window
        (or, nobody able to claim, the next draw)."""
        p = self.players[seat]
        p.remove(tile)
        p.discards.append(tile)
        p.drawn = None
        events.append(Event("discard", seat, {"tile": tile_str(tile)}))
        self.variant.after_discard(self, seat, tile, events)
        self._open_window(ON_DISCARD, seat, tile, events)

    def _open_window(self, kind: str, seat: int, tile: Tile, events: list[Event]) -> None:
        options = self._claim_options(kind, seat, tile)
        if not options:
            self._after_window_passed(kind, seat, tile, events)
            return
        self.phase = CLAIM
        self.window = ClaimWindow(kind=kind, seat=seat, tile=tile, options=options)
        # No event: an open window tells that *someone* can claim.  Each seat learns
        # only its own options, through legal_actions / view(seat).

    def _resolve_window(self, events: list[Event]) -> None:
        w = self.window
        assert w is not None
        self.window = None
        self.phase = PLAY
        chosen = self.variant.pick_claim(self, w)
        if chosen is None:
            self._after_window_passed(w.kind, w.seat, w.tile, events)
            return
        if chosen.kind == WIN:
            self.finish_win(self.claim_win_context(chosen.seat, w.kind, w.seat, w.tile), events)
            return
        self._take_discard(w, chosen, events)

    def _after_window_passed(self, kind: str, seat: int, tile: Tile, events: list[Event]) -> None:
        if kind == ON_ADDED_KONG:
            self._complete_added_kong(seat, tile, events)
        else:
            self.next_draw(next_seat(seat), events)

    def _take_discard(self, w: ClaimWindow, action: Action, events: list[Event]) -> None:
        seat, t = action.seat, w.tile
        p = self.players[seat]
        discarder = self.players[w.seat]
        discarder.claimed_discards.append(len(discarder.discards) - 1)
        self.claims_made = True
        if action.kind == CHOW:
            assert action.tiles is not None
            rest = list(action.tiles)
            rest.remove(t)
            for x in rest:
                p.remove(x)
            meld = Meld(MELD_CHOW, tuple(sorted(action.tiles)), claimed=t, from_seat=w.seat)
        elif action.kind == PUNG:
            for _ in range(2):
                p.remove(t)
            meld = Meld(MELD_PUNG, (t, t, t), claimed=t, from_seat=w.seat)
        else:
            for _ in range(3):
                p.remove(t)
            meld = Meld(KONG_EXPOSED, (t, t, t, t), claimed=t, from_seat=w.seat)
        p.melds.append(meld)
        self.turn = seat
        self.turn_kind = BY_CLAIM
        p.drawn = None
        events.append(
            Event(action.kind, seat, {"tile": tile_str(t), "meld": meld.to_json(), "from": seat_name(w.seat)})
        )
        self.variant.after_meld(self, seat, meld, events)
        if meld.is_kong:
            self.kongs_made += 1
            self.replacement_draw(seat, events)

    def _own_kong(self, seat: int, tile: Tile, events: list[Event]) -> None:
        p = self.players[seat]
        p.drawn = None
        if p.counts[tile] == 4:
            for _ in range(4):
                p.remove(tile)
            meld = Meld(KONG_CONCEALED, (tile,) * 4)
            p.melds.append(meld)
            self.claims_made = True
            self.kongs_made += 1
            events.append(Event("kong", seat, {"meld": meld.public_json()}, {"meld": meld.to_json()}))
            self.variant.after_meld(self, seat, meld, events)
            self.replacement_draw(seat, events)
            return
        # Added kong: others may rob it before it stands.
        p.remove(tile)
        self.claims_made = True
        events.append(Event("add_kong", seat, {"tile": tile_str(tile)}))
        if self.variant.added_kong_robbable:
            self._open_window(ON_ADDED_KONG, seat, tile, events)
        else:
            self._complete_added_kong(seat, tile, events)

    def _complete_added_kong(self, seat: int, tile: Tile, events: list[Event]) -> None:
        p = self.players[seat]
        for i, m in enumerate(p.melds):
            if m.kind == MELD_PUNG and m.tiles[0] == tile:
                p.melds[i] = Meld(KONG_ADDED, (tile,) * 4, claimed=m.claimed, from_seat=m.from_seat)
                meld = p.melds[i]
                break
        else:  # pragma: no cover - guarded by validation
            raise AssertionError("added kong without its pung")
        self.kongs_made += 1
        self.turn = seat
        events.append(Event("kong", seat, {"meld": meld.to_json()}))
        self.variant.after_meld(self, seat, meld, events)
        self.replacement_draw(seat, events)

    def next_draw(self, seat: int, events: list[Event]) -> None:
        """``seat``'s normal draw from the head, or the exhaustive draw when the rule set allows
        none; the rule set may hold it back behind a prompt (:meth:`before_draw`)."""
        self.turn = seat
        if not self.variant.can_draw(self):
            self.finish_draw(events)
            return
        if self.variant.before_draw(self, seat, events):
            return  # the variant opened a prompt first (漳州 抢暗杠) and makes the draw itself later
        self._give(seat, self.wall.draw_head(), BY_DRAW, events)

    def replacement_draw(self, seat: int, events: list[Event]) -> None:
        """``seat``'s replacement draw from the tail (after a kong, a flower, ...), or the
        exhaustive draw when no tile is left."""
        self.turn = seat
        if self.wall.remaining() == 0:
            self.finish_draw(events)
            return
        self._give(seat, self.wall.draw_tail(), BY_REPLACEMENT, events)

    def _give(self, seat: int, tile: Tile, kind: str, events: list[Event]) -> None:
        p = self.players[seat]
        p.add(tile)
        p.drawn = tile
        p.draws += 1
        self.turn_kind = kind
        self.phase = PLAY
        events.append(
            Event("draw", seat, {"from": "tail" if kind == BY_REPLACEMENT else "head"}, {"tile": tile_str(tile)})
        )
        self.variant.after_draw(self, seat, tile, events)

    def finish_win(self, ctx: WinContext, events: list[Event]) -> None:
        """End the hand on the (legal) win ``ctx``: the rule set judges and settles it."""
        verdict = self.variant.evaluate_win(self, ctx)
        assert not isinstance(verdict, str), verdict
        self.result = self.variant.settle_win(self, ctx, verdict)
        if ctx.source != "self_draw" and ctx.tile is not None:
            # The claimed tile joins the winning hand (shown at the end); a discard stays
            # in the river marked as taken, like a tile chowed or punged.
            if ctx.source == "discard" and ctx.from_seat is not None:
                discarder = self.players[ctx.from_seat]
                discarder.claimed_discards.append(len(discarder.discards) - 1)
            self.players[ctx.seat].add(ctx.tile)
        self.end_hand(
            events,
            Event(
                "win", ctx.seat, {"tile": tile_str(ctx.tile) if ctx.tile is not None else None, "source": ctx.source}
            ),
        )

    def finish_draw(self, events: list[Event]) -> None:
        """End the hand in an exhaustive draw, settled by the rule set."""
        self.result = self.variant.settle_draw(self)
        self.end_hand(events, Event("exhaustive_draw"))

    def end_hand(self, events: list[Event], first: Event) -> None:
        """End the hand on the result already set: ``first`` (the event saying why), then
        ``hand_end`` with the result, every concealed hand and the seed."""
        assert self.result is not None
        self.phase = ENDED
        self.window = None
        events.append(first)
        events.append(
            Event(
                "hand_end",
                None,
                {
                    "result": self.result.to_json(),
                    "hands": {seat_name(i): format_tiles(p.hand) for i, p in enumerate(self.players)},
                    "seed": self.seed,
                },
            )
        )

    # ----------------------------------------------------------------- defaults
    def timeout_action(self, seat: int) -> Action | None:
        """What the system does for a seat that does not answer in time.

        Pass every claim; never win or kong; discard the tile just drawn (the
        dealer's first turn: the last dealt tile) or, where the rules forbid it,
        the rightmost tile the rules allow.
        """
        prompt = self.variant.prompt(self)
        if prompt is not None and (seat in prompt or self.phase != PLAY):
            return Action(seat, PASS) if seat in prompt else None  # a prompt's default is no
        if self.phase == CLAIM:
            assert self.window is not None
            return Action(seat, PASS) if seat in self.window.waiting_on() else None
        if self.phase != PLAY or seat != self.turn:
            return None
        forced = self.variant.forced_action(self, seat)
        if forced is not None:
            return forced
        p = self.players[seat]
        drawn = p.drawn if p.drawn is not None else (p.hand[-1] if self.turn_kind == BY_DEAL and p.hand else None)
        if drawn is not None and self.variant.discard_refusal(self, seat, drawn) is None:
            return Action(seat, DISCARD, tile=drawn)
        for t in reversed(p.hand):
            if self.variant.discard_refusal(self, seat, t) is None:
                return Action(seat, DISCARD, tile=t)
        return None

    # -------------------------------------------------------------------- views
    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know (``None``: the public view, no concealed tile)."""
        return self.views([seat])[seat]

    def views(
        self, seats: Iterable[int | None], legal: Mapping[int, list[Action]] | None = None
    ) -> dict[int | None, dict[str, Any]]:
        """:meth:`view` for several readers at once (the fan-out renders five per step): what
        everyone may see is built once and shared between the views (treat them as read-only);
        each seat's own player entry, claim window and legal actions are its own.  ``legal``:
        every seat's legal actions now, when the caller has them (the driver's ``Turn.legal``,
        which a step computed already: a seat it leaves out has none)."""
        public_players = [self._player_view(i, own=False) for i in range(len(self.players))]
        common: dict[str, Any] = {
            "variant": self.variant.key,
            "options": dict(self.options),
            "turn": seat_name(self.turn),
            "phase": self.phase,
            "wall_left": self.wall_left(),
            "face_up": format_tiles(self.wall.face_up_tiles()),
            "table": self.variant.public_info(self),
            "seed_hash": self.seed_hash,
            "result": self.result.to_json() if self.result else None,
        }
        if self.ended:
            common["revealed"] = {seat_name(i): format_tiles(p.hand) for i, p in enumerate(self.players)}
            common["seed"] = self.seed
        waiting_on = self.window.waiting_on() if self.window is not None else ()
        out: dict[int | None, dict[str, Any]] = {}
        for seat in seats:
            players = public_players
            if seat is not None:
                players = list(public_players)
                players[seat] = self._own_player_view(seat, public_players[seat])
            window = None
            # Only a seat that may answer sees the open window: to anyone else it would
            # reveal that somebody holds a claim on the tile.
            if self.window is not None and seat is not None and seat in waiting_on:
                window = {
                    "on": self.window.kind,
                    "seat": seat_name(self.window.seat),
                    "tile": tile_str(self.window.tile),
                }
            out[seat] = {
                **common,
                "seat": seat_name(seat) if seat is not None else None,
                "players": players,
                "window": window,
                "legal_actions": [
                    a.to_json() for a in (legal.get(seat, ()) if legal is not None else self.legal_actions(seat))
                ]
                if seat is not None
                else [],
                "held_back": self.held_back(seat) if seat is not None else {},
            }
        return out

    def held_back(self, seat: int) -> dict[str, dict[str, Any]]:
        """On ``seat``'s own turn, each kind it holds but may not discard, with why (the
        refusal's code, params and English reason): the table dims those tiles and says why
        (温州's single honours, 报听's lock, 东北's last four, 漳州's 双游).  Empty otherwise."""
        if self.phase != PLAY or seat != self.turn or self.variant.prompt(self) is not None:
            return {}
        out: dict[str, dict[str, Any]] = {}
        for t, n in enumerate(self.players[seat].counts):
            if n:
                why = self.variant.discard_refusal(self, seat, t)
                if why is not None:
                    out[tile_str(t)] = {"code": why.code, "params": dict(why.params), "reason": str(why)}
        return out

    def _own_player_view(self, i: int, public: dict[str, Any]) -> dict[str, Any]:
        """``_player_view(i, own=True)``, from the public entry already built: only the concealed
        hand, the drawn tile and the melds (a concealed kong's tiles) differ."""
        p = self.players[i]
        return {
            **public,
            "hand": format_tiles(p.hand),
            "drawn": tile_str(p.drawn) if p.drawn is not None else None,
            "melds": [m.to_json() for m in p.melds],
        }

    def _player_view(self, i: int, own: bool) -> dict[str, Any]:
        p = self.players[i]
        return {
            "seat": seat_name(i),
            "hand": format_tiles(p.hand) if own else None,
            "hand_count": len(p.hand),
            "drawn": tile_str(p.drawn) if own and p.drawn is not None else None,
            "melds": [m.to_json() if own else m.public_json() for m in p.melds],
            "discards": format_tiles(p.discards),
            "claimed_discards": list(p.claimed_discards),
            "flowers": format_tiles(p.flowers),
            "flags": self.variant.public_flags(p.flags),
        }

    def public_view(self) -> dict[str, Any]:
        return self.view(None)

    # ---------------------------------------------------------------- snapshots
    def to_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant.key,
            "options": dict(self.options),
            "context": dict(self.context),
            "wall": self.wall.to_json(),
            "players": [p.to_json() for p in self.players],
            "state": self.state.to_json(),
            "seed": self.seed,
            "seed_hash": self.seed_hash,
            "turn": self.turn,
            "phase": self.phase,
            "turn_kind": self.turn_kind,
            "window": self.window.to_json() if self.window else None,
            "claims_made": self.claims_made,
            "kongs_made": self.kongs_made,
            "result": self.result.to_json() if self.result else None,
            "ply": self.ply,
            "open_empty_windows": self.open_empty_windows,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any], variant: RuleSet) -> Hand:
        """The hand a :meth:`to_json` snapshot of ``variant`` saved.  The registry's
        :func:`~games.engine.variants.load_hand` finds the rule set by the snapshot's key and
        brings an older snapshot's keys up to date first."""
        if d["variant"] != variant.key:
            raise ValueError(f"a {d['variant']!r} snapshot cannot load as {variant.key!r}")
        h = cls(
            variant=variant,
            options=dict(d["options"]),
            context=dict(d["context"]),
            wall=Wall.from_json(d["wall"]),
            players=[Player.from_json(p) for p in d["players"]],
            state=variant.state_type.from_json(d["state"]),
            seed=d["seed"],
            seed_hash=d["seed_hash"],
            open_empty_windows=d["open_empty_windows"],
        )
        h.turn = d["turn"]
        h.phase = d["phase"]
        h.turn_kind = d["turn_kind"]
        h.window = ClaimWindow.from_json(d["window"]) if d["window"] else None
        h.claims_made = d["claims_made"]
        h.kongs_made = d["kongs_made"]
        h.result = Result.from_json(d["result"]) if d["result"] else None
        h.ply = d["ply"]
        return h


S = TypeVar("S", bound=RuleState)


def state_of(hand: Hand, cls: type[S]) -> S:
    """``hand.state`` as the rule set's own type (a rule set reads only its own hands)."""
    state = hand.state
    if not isinstance(state, cls):
        raise TypeError(f"{hand.variant.key} keeps a {type(state).__name__}, not a {cls.__name__}")
    return state


# Which fields each shared verb carries: (tile, tiles).  Variant verbs check their own.
_FIELDS = {
    DISCARD: (True, False),
    KONG: (True, False),
    CHOW: (False, True),
    PUNG: (False, False),
    WIN: (False, False),
    PASS: (False, False),
}


def _malformed(action: Action) -> Refusal | None:
    """A reason if the action's fields do not fit its verb or name no real tile."""
    for t in ((action.tile,) if action.tile is not None else ()) + (action.tiles or ()):
        if not isinstance(t, int) or not 0 <= t < NUM_ALL_KINDS:
            return refuse("no_such_tile", "no tile has code {value}", value=repr(t))
    shape = _FIELDS.get(action.kind)
    if shape is None:
        return None
    wants_tile, wants_tiles = shape
    if (action.tile is not None) != wants_tile:
        if wants_tile:
            return refuse("needs_one_tile", "a {verb} names one tile", verb=action.kind)
        return refuse("needs_no_tile", "a {verb} names no tile", verb=action.kind)
    if (action.tiles is not None) != wants_tiles:
        if wants_tiles:
            return refuse("needs_three_tiles", "a {verb} names its three tiles", verb=action.kind)
        return refuse("needs_no_meld", "a {verb} names no meld", verb=action.kind)
    return None


__all__ = [
    "Hand",
    "ClaimWindow",
    "RuleSet",
    "WinContext",
    "WinVerdict",
    "PLAY",
    "CLAIM",
    "ENDED",
    "SEATS",
    "next_seat",
    "state_of",
]
