"""The variant framework: a rule set is a ``Variant`` whose hooks the hand machine calls.

Adding a rule set?  Read docs/engine.md first: it says how, and which shared files you may
touch (only additively, with defaults that keep every other rule set unchanged).

Defaults here are the plain rules most sets share; a variant overrides only
what its text changes.  Hooks that may refuse an action return a
:class:`~games.engine.refusals.Refusal` (``refuse(code, english_template, **params)``: the
reason shown to the player, with the code the table page translates by) or ``None``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine.hand import ClaimWindow, Hand, WinContext, WinVerdict
from games.engine.insight.reader import ShapeReader, plain_reader
from games.engine.options import OptionsError, OptionsSchema
from games.engine.refusals import Refusal, refuse
from games.engine.rule_state import RuleState
from games.engine.state import CHOW, KONG, PUNG, WIN, Action, BreakdownItem, Event, Meld, Player, Result
from games.engine.tiles import Tile, format_tiles, parse_tiles, standard_set, tile_str
from games.engine.wall import Wall, break_order, new_seed, rigged_wall, seed_commitment, shuffled_tiles

# Claim priority classes: a higher number wins the window.
CLAIM_RANK = {WIN: 3, KONG: 2, PUNG: 2, CHOW: 1}
_NO_STAND_INS: Mapping[Tile, Tile] = {}
# The verdict on most hands a turn or claim window asks about: made once, returned by every rule set.
NOT_A_WIN = refuse("not_a_win", "not a winning hand")


class ScenarioError(ValueError):
    """A rigged hand that cannot exist (too many copies, wrong hand sizes, ...)."""


@dataclass(frozen=True, slots=True)
class PreHandQuestion:
    """A choice some seats make before the deal (温州 买底/顶底, 东北 飘).

    The platform asks a variant's questions in order, each after the previous one is
    answered (so later askers see earlier answers), then deals with the resulting context.
    """

    key: str  # the context key the answers fill
    label: str  # what players read, e.g. "买底"
    seats: tuple[int, ...]  # the engine seats (winds) asked
    choices: tuple[Any, ...]  # allowed answers, JSON values
    default: Any  # the answer of a bot or of a seat that does not answer in time

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "seats": list(self.seats),
            "choices": list(self.choices),
            "default": self.default,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PreHandQuestion:
        return cls(d["key"], d["label"], tuple(d["seats"]), tuple(d["choices"]), d["default"])


class Variant:
    key: str = ""
    display_name: str = ""
    source: str = ""  # the rule document in spec/rules
    spec_section: str = ""  # e.g. "D0"
    options_schema: OptionsSchema = OptionsSchema()
    context_keys: frozenset[str] = frozenset()
    hand_size = 13  # a non-dealer's dealt tiles; the dealer has one more
    kong_after_claim = False  # may a player kong on the turn they chowed/punged?
    state_type: type[RuleState] = RuleState  # what a hand records of this rule set (saved in snapshots)
    added_kong_robbable = True

    # ------------------------------------------------------------ configuration
    def validate_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        return self.options_schema.validate(options, self.key)

    def validate_context(self, context: Mapping[str, Any] | None) -> dict[str, Any]:
        context = dict(context or {})
        unknown = set(context) - self.context_keys
        if unknown:
            known = ", ".join(sorted(self.context_keys)) or "none"
            raise OptionsError(f"unknown context key(s) {sorted(unknown)} for {self.key}; known: {known}")
        return context

    def tile_set(self, options: Mapping[str, Any]) -> list[Tile]:
        return standard_set()

    # ------------------------------------------------------------------ set-up
    def new_hand(
        self,
        options: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
        seed: str | None = None,
        *,
        open_empty_windows: bool = False,
    ) -> Hand:
        """A real hand: shuffle by seed, roll, break (:meth:`break_wall`), deal (:meth:`deal`),
        then the variant's set-up (:meth:`after_deal`).  ``open_empty_windows``: claim
        protection (:class:`~games.engine.hand.Hand`)."""
        opts = self.validate_options(options)
        ctx = self.validate_context(context)
        seed = seed if seed is not None else new_seed()
        ring, dice = shuffled_tiles(self.tile_set(opts), seed)
        tiles, roll = self.break_wall(ring, dice, opts)
        wall = Wall(tiles=tiles)
        players = [Player() for _ in range(4)]
        self.deal(wall, players)
        state = self.state_type.from_json(roll)
        hand = Hand(
            self,
            opts,
            ctx,
            wall,
            players,
            state=state,
            seed=seed,
            seed_hash=seed_commitment(seed),
            open_empty_windows=open_empty_windows,
        )
        self.after_deal(hand)
        return hand

    def break_wall(
        self, ring: list[Tile], dice: tuple[int, int], options: Mapping[str, Any]
    ) -> tuple[list[Tile], dict[str, Any]]:
        """The ring in head order after the break, and what the hand records of the roll (fields
        of the rule set's :attr:`state_type`).

        D0's rule by default: count the dice sum from the dealer, start at stack smaller-die + 1.
        """
        return break_order(ring, dice), {"dice": list(dice)}

    def deal(self, wall: Wall, players: list[Player]) -> None:
        """Deal from the head in :meth:`deal_order`."""
        for seat, count in self.deal_order():
            for _ in range(count):
                players[seat].add(wall.draw_head())

    def deal_order(self) -> list[tuple[int, int]]:
        """(seat, tiles) in dealing order: 4 at a time for 3 rounds, then dealer 2, others 1."""
        order = [(seat, 4) for _ in range(3) for seat in range(4)]
        order += [(0, 2), (1, 1), (2, 1), (3, 1)]
        return order

    def after_deal(self, hand: Hand) -> None:
        """Flip indicators, choose wilds, replace flowers... (nothing by default)."""

    def rigged_hand(
        self,
        hands: Sequence[Sequence[Tile]],
        flipped: Tile | None,
        head: Sequence[Tile],
        tail: Sequence[Tile],
        options: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
        *,
        open_empty_windows: bool = False,
    ) -> Hand:
        """A hand dealt as given (the scenario runner's), unlisted tiles filled deterministically."""
        opts = self.validate_options(options)
        ctx = self.validate_context(context)
        sizes = [self.hand_size + 1] + [self.hand_size] * 3
        for seat, (tiles, size) in enumerate(zip(hands, sizes, strict=True)):
            if len(tiles) != size:
                raise ScenarioError(f"seat {'ESWN'[seat]} must be dealt {size} tiles, got {len(tiles)}")
        pool = self.tile_set(opts)
        left: dict[Tile, int] = {}
        for t in pool:
            left[t] = left.get(t, 0) + 1
        used = [t for h in hands for t in h] + list(head) + list(tail)
        if flipped is not None:
            used.append(flipped)
        for t in used:
            if left.get(t, 0) == 0:
                raise ScenarioError(f"the scenario uses more {tile_str(t)} than the {self.key} tile set has")
            left[t] -= 1
        filler = [t for t in sorted(left) for _ in range(left[t])]
        random.Random(0).shuffle(filler)  # deterministic, and not all of one kind first
        total = len(pool) - sum(sizes)
        wall = self.rig_wall(total, flipped, head, tail, filler)
        players = [Player(hand=list(h)) for h in hands]
        hand = Hand(self, opts, ctx, wall, players, open_empty_windows=open_empty_windows)
        self.after_rig(hand, flipped)
        return hand

    def rig_wall(
        self, total: int, flipped: Tile | None, head: Sequence[Tile], tail: Sequence[Tile], filler: Sequence[Tile]
    ) -> Wall:
        if flipped is not None:
            raise ScenarioError(f"{self.key} has no flipped tile")
        return rigged_wall(total, head, tail, filler)

    def after_rig(self, hand: Hand, flipped: Tile | None) -> None:
        """Set the variant's state from a rigged wall (wild from the flipped tile, ...)."""

    # -------------------------------------------------------------------- rules
    def wild_kinds(self, hand: Hand) -> frozenset[Tile]:
        return hand.wild_set

    def discard_refusal(self, hand: Hand, seat: int, tile: Tile) -> Refusal | None:
        return None

    def chow_refusal(self, hand: Hand, seat: int, tile: Tile, rest: list[Tile]) -> Refusal | None:
        return None

    def pung_refusal(self, hand: Hand, seat: int, tile: Tile) -> Refusal | None:
        return None

    def kong_refusal(self, hand: Hand, seat: int, tile: Tile, kind: str) -> Refusal | None:
        return None

    def chow_stand_ins(self, hand: Hand) -> Mapping[Tile, Tile]:
        """Tiles that may play another face in a chow, as {physical kind: face} (e.g. 白板
        standing for the wild's face).  A chow action names the physical tiles."""
        return _NO_STAND_INS

    def evaluate_win(self, hand: Hand, ctx: WinContext) -> WinVerdict | Refusal:
        """A verdict for a legal win, or the reason it is not one."""
        raise NotImplementedError

    def pick_claim(self, hand: Hand, window: ClaimWindow) -> Action | None:
        """The claim that takes the tile: highest class, then nearest the discarder (截和)."""
        best: Action | None = None
        best_key: tuple[int, int] | None = None
        for seat, act in window.responses.items():
            if act.kind not in CLAIM_RANK:
                continue
            key = (CLAIM_RANK[act.kind], -((seat - window.seat) % 4))
            if best_key is None or key > best_key:
                best, best_key = act, key
        return best

    def can_draw(self, hand: Hand) -> bool:
        """May the next normal draw happen?  False means an exhaustive draw."""
        return hand.wall.remaining() > 0

    def forced_action(self, hand: Hand, seat: int) -> Action | None:
        """An action the rules make for the player (报听 auto-discard...), if any."""
        return None

    def extra_own_turn_actions(self, hand: Hand, seat: int) -> list[Action]:
        return []

    def extra_refusal(self, hand: Hand, action: Action) -> Refusal | None:
        return refuse("unknown_action", "unknown action {verb!r}", verb=action.kind)

    def apply_extra(self, hand: Hand, action: Action, events: list[Event]) -> None:
        raise NotImplementedError(action.kind)

    # ----------------------------------------------------------------- prompts
    def prompt(self, hand: Hand) -> dict[int, list[Action]] | None:
        """A question the variant puts outside the claim windows (漳州 抢金 before play, 抢暗杠
        before a draw): the seats that still owe an answer, each with its options (``pass`` is
        implied and is the timeout default), or ``None`` (the default) when none is open.

        While one is open, the asked seats' actions go to :meth:`answer_prompt`; other seats
        wait, except the player whose turn it is in the play phase.  Never an empty dict.
        """
        return None

    def answer_prompt(self, hand: Hand, action: Action, events: list[Event]) -> None:
        """Record an (already validated) answer to the open prompt, resolving it when complete."""
        raise NotImplementedError(action.kind)

    def before_draw(self, hand: Hand, seat: int, events: list[Event]) -> bool:
        """Called before each normal draw; True holds the draw back (the variant opened a
        prompt and makes the draw itself once it is answered)."""
        return False

    # ------------------------------------------------------------------- hooks
    def after_draw(self, hand: Hand, seat: int, tile: Tile, events: list[Event]) -> None:
        """Flowers, automatic actions..."""

    def after_discard(self, hand: Hand, seat: int, tile: Tile, events: list[Event]) -> None:
        """Furiten bookkeeping..."""

    def after_meld(self, hand: Hand, seat: int, meld: Meld, events: list[Event]) -> None:
        """相公 and similar flags."""

    def on_claim_answer(self, hand: Hand, action: Action) -> None:
        """Record a pass on a win (过胡) and similar."""

    # ----------------------------------------------------------------- scoring
    def settle_win(self, hand: Hand, ctx: WinContext, verdict: WinVerdict) -> Result:
        raise NotImplementedError

    def settle_draw(self, hand: Hand) -> Result:
        return Result(status="draw", breakdown=[BreakdownItem("exhaustive_draw", "流局")])

    # ------------------------------------------------------------ before the deal
    def first_dealer(self, seed: str, options: Mapping[str, Any]) -> int:
        """The chair (0..3, counted in turn order from the East chair) that deals the match's
        first hand; ``seed`` is the platform's fresh random seed.  East by default."""
        return 0

    def pre_hand_questions(self, options: Mapping[str, Any], context: Mapping[str, Any]) -> list[PreHandQuestion]:
        """The choices to make before this hand is dealt (none by default)."""
        return []

    def apply_pre_hand_answers(
        self, context: Mapping[str, Any], question: PreHandQuestion, answers: Mapping[int, Any]
    ) -> dict[str, Any]:
        """The context with one question's answers (engine seat -> answer) folded in."""
        raise NotImplementedError(question.key)

    # Leaving a running match (逃跑).  0: no penalty, the seat is played by 托管 to the end.
    escape_penalty_bases = 0  # multiples of the 底注 the leaver forfeits to the system

    def escape_settlement(self, hand: Hand) -> list[BreakdownItem]:
        """What is settled at once when a player walks out, before the penalty (e.g. 杠分)."""
        return []

    def next_dealer_offset(self, result: Result) -> int:
        """Seats from this hand's dealer to the next hand's dealer (0 = stays)."""
        return 0

    def next_context(self, result: Result, context: Mapping[str, Any]) -> dict[str, Any]:
        """Pre-hand state for the next hand (dealer streaks...)."""
        return {}

    # ---------------------------------------------------------------- insight
    def shape_reader(self, table: Mapping[str, Any]) -> ShapeReader:
        """How hints read a concealed hand here, from the view's public ``table`` part only
        (:mod:`games.engine.insight.reader`).  Default: the kinds it names as ``wilds`` are
        wild, melds and a pair win."""
        return plain_reader(parse_tiles(table.get("wilds") or ""))

    # ------------------------------------------------------------ presentation
    def public_info(self, hand: Hand) -> dict[str, Any]:
        """What the table centre shows to everyone (the wild, the indicator...)."""
        wilds = sorted(self.wild_kinds(hand))
        return {"wilds": format_tiles(wilds)} if wilds else {}

    def public_flags(self, flags: Mapping[str, Any]) -> dict[str, Any]:
        """Player flags everyone may see (e.g. 相公)."""
        return dict(flags)

    def describe(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "display_name": self.display_name,
            "source": self.source,
            "spec_section": self.spec_section,
            "options": [o.describe() for o in self.options_schema.all()],
        }


class FlipsHeadTile(Variant):
    """A rule set that turns the first tile to be drawn face up in place, never to be drawn
    (D0's 财神前导牌, D1's 得): the flip on a real deal and in rigged scenarios."""

    flipped_name = "the face-up tile"  # for the scenario error

    def after_deal(self, hand: Hand) -> None:
        wall = hand.wall
        pos = wall.head
        while wall.taken[pos]:
            pos += 1
        wall.mark_face_up(pos, drawable=False)
        self.on_flipped(hand, wall.tiles[pos])

    def rig_wall(
        self, total: int, flipped: Tile | None, head: Sequence[Tile], tail: Sequence[Tile], filler: Sequence[Tile]
    ) -> Wall:
        if flipped is None:
            raise ScenarioError(f"{self.key} needs 'flipped': {self.flipped_name}")
        wall = rigged_wall(total, head, tail, filler, fixed={0: flipped})
        wall.mark_face_up(0, drawable=False)
        return wall

    def after_rig(self, hand: Hand, flipped: Tile | None) -> None:
        assert flipped is not None
        self.on_flipped(hand, flipped)

    def on_flipped(self, hand: Hand, tile: Tile) -> None:
        """Set the hand's wilds (and whatever else) from the flipped tile."""
        raise NotImplementedError
