"""Who must act next: the one answer every player of hands asks.

The live table (``games.services.play``), the simulator, the benchmarks, the scenario runner's
autoplay, replays and spectating all drive a hand through :func:`turn`, so a hand follows one
action sequence wherever it is played.  :func:`turn` says who owes a decision now and what each
may do, what the rules do by themselves (:attr:`Turn.forced`), what the clock does for a seat
that does not answer (:meth:`Turn.default`), and which seats in an open claim window have
nothing to claim (:attr:`Turn.idle`: :func:`idle_passes` answers for them).  Nothing in
:func:`turn` changes the hand.

:func:`advance` is the play loop, written once: it applies what the rules force and the
automatic seats' (bots', 托管's) decisions until a person must decide, and both the live table
(``HandStep.advance``) and the simulator play through it.  :func:`decide` is the bot
self-play of the property tests: every seat that owes a decision answers at once.

A ``Turn`` describes the hand at the moment it was taken: take a new one after every action.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from games.engine.hand import CLAIM, ENDED, PLAY, ClaimWindow, Hand
from games.engine.state import PASS, Action
from games.engine.variants.base import Variant

if TYPE_CHECKING:  # (the bots import the rule sets: only their type is needed here)
    from games.engine.bots import Bot

# No rule set needs anywhere near this many actions (136 tiles, each drawn, discarded and
# answered at most once or twice); reaching it means a loop.
MAX_ACTIONS = 2000

Chooser = Callable[[Hand, int, list[Action]], Action]
"""An automatic seat's decision: ``(hand, seat, the seat's legal actions) -> one of them``."""


@dataclass(slots=True)
class Turn:
    """Who owes a decision on ``hand`` now, and what the rules and the clock do about it."""

    hand: Hand
    # Every seat that owes a decision -> its legal actions (``pass`` included where it applies),
    # in seat order: the claim window's seats that have not answered, the player whose turn it
    # is, and the seats a rule set's question asks.
    legal: Mapping[int, list[Action]]
    # An action the rules make for a player now (报听's discard, 温州's win on a hand of 财神):
    # applied before anyone is asked.
    forced: Action | None
    # A rule set's open question (漳州 抢金 before play, 抢暗杠 before a draw): the seats it still
    # asks -> their options (``pass`` is implied and is the default).  Empty when none is open.
    asked: Mapping[int, list[Action]]

    @property
    def claimants(self) -> frozenset[int]:
        """The seats holding a real choice, more than a pass: a claim in the open window, an
        option in the open question.  The clock counts only their silence as a timeout."""
        seats = {s for s, options in self.asked.items() if options}
        window = self.hand.window
        if window is not None:
            seats.update(s for s, options in window.options.items() if options)
        return frozenset(seats)

    @property
    def ended(self) -> bool:
        return self.hand.phase == ENDED

    @property
    def owed(self) -> list[int]:
        """The seats that owe a decision, in seat order."""
        return list(self.legal)

    @property
    def in_window(self) -> bool:
        """Is a claim window open (answers to a discard or an added kong)?"""
        return self.hand.phase == CLAIM

    @property
    def window_seats(self) -> frozenset[int]:
        """The seats the open claim window asks, answered or not, claim or none (claim
        protection asks all three others)."""
        window = self.hand.window
        return frozenset(window.options) if window is not None else frozenset()

    @property
    def idle(self) -> list[int]:
        """The seats in the open claim window with nothing to claim, whose only answer is a pass,
        in the window's order (round the table from the discarder).  Claim protection opens a
        window after every discard, so there usually are some."""
        window = self.hand.window
        if not self.in_window or self.asked or window is None:
            return []
        return [s for s in window.waiting_on() if not window.options.get(s)]

    def has_claim(self, seat: int) -> bool:
        """Does ``seat`` hold a real choice (more than a pass) in the open window or question?"""
        if self.asked.get(seat):
            return True
        window = self.hand.window
        return window is not None and bool(window.options.get(seat))

    def default(self, seat: int) -> Action | None:
        """What the system does for ``seat`` when it does not answer in time (``None``: nothing
        is asked of it).  Pass every claim and question; on one's own turn, never win or kong:
        discard the tile just drawn, or the rightmost one the rules allow."""
        return self.hand.timeout_action(seat)


def turn(hand: Hand) -> Turn:
    """Who owes a decision on ``hand`` now (see :class:`Turn`)."""
    if hand.phase == ENDED:
        return Turn(hand, {}, None, {})
    variant = hand.variant
    asked = variant.prompt(hand) or {}
    window = hand.window
    legal: dict[int, list[Action]] = {}
    if asked:  # a rule set's question: Hand.legal_actions says who else may act beside it
        for seat in range(4):
            acts = hand.legal_actions(seat)
            if acts:
                legal[seat] = acts
    elif hand.phase == CLAIM and window is not None:
        # What Hand.legal_actions gives every seat, read off the window at once (this runs
        # before every action the simulator applies: most of them are answers to windows).
        for seat in sorted(window.options):
            if seat not in window.responses:
                legal[seat] = [*window.options[seat], Action(seat, PASS)]
    else:
        acts = hand.legal_actions(hand.turn)
        if acts:
            legal[hand.turn] = acts
    forced = None
    # The rules force a move only on the player whose turn it is (报听's discard, 温州's win on a
    # hand of 财神; tests/engine/test_driver.py holds every seat to it), and most force nothing.
    if hand.phase == PLAY and hand.turn in legal and type(variant).forced_action is not Variant.forced_action:
        forced = variant.forced_action(hand, hand.turn)
    return Turn(hand, legal, forced, asked)


def idle_passes(hand: Hand) -> list[Action]:
    """The passes of the seats in the open claim window that have nothing to claim, in the
    window's order (none when no window is open).  Applying them in order is always legal: a pass changes no
    other seat's options, and only the last one can close the window (when nobody could claim)."""
    return [Action(s, PASS) for s in turn(hand).idle]


def claim_taken(hand: Hand, kept: Mapping[int, Action]) -> Action | None:
    """The claim that would take the open window's tile now, if any: with the answers ``kept``
    aside (claim protection keeps people's answers off the engine until the window closes), the
    seats with nothing to claim passing, and a claimant that has not answered leaving it open
    (``None``).  A window that would close with no claim gives ``None`` as well."""
    window = hand.window
    if hand.phase != CLAIM or window is None:
        return None
    t = turn(hand)
    responses = dict(window.responses)
    for seat in window.waiting_on():
        if seat in kept:
            responses[seat] = kept[seat]
        elif t.has_claim(seat):
            return None
        else:
            responses[seat] = Action(seat, PASS)
    trial = ClaimWindow(
        kind=window.kind, seat=window.seat, tile=window.tile, options=window.options, responses=responses
    )
    return hand.variant.pick_claim(hand, trial)


def decision_rng(hand: Hand, seat: int) -> random.Random:
    """A bot's randomness for one decision: from the hand's seed, its ply and the seat alone, so
    the same hand plays the same whether it runs in one process (the simulator) or step by step
    across processes and restarts (the live table)."""
    return random.Random(f"{hand.seed or ''}:{hand.ply}:{seat}")


def bot_chooser(bots: Sequence[Bot], rng: random.Random | None = None) -> Chooser:
    """The :data:`Chooser` of ``bots`` (one per seat): each decides with
    :func:`decision_rng`, or with ``rng`` when it is given (one stream for the whole hand)."""

    def choose(hand: Hand, seat: int, legal: list[Action]) -> Action:
        return bots[seat].choose(hand, seat, rng if rng is not None else decision_rng(hand, seat), legal)

    return choose


def _decision(hand: Hand, seat: int, legal: list[Action], choose: Chooser) -> Action:
    """The automatic seat's action: its only legal one (a pass with nothing to claim, most
    often) without asking, else its chooser's."""
    return legal[0] if len(legal) == 1 else choose(hand, seat, legal)


def advance(
    hand: Hand,
    choose: Chooser,
    apply: Callable[[Action], object] | None = None,
    *,
    automatic: Callable[[int], bool] | None = None,
    pause_before_bots: bool = False,
    max_actions: int = MAX_ACTIONS,
) -> Turn:
    """Play ``hand`` on until a person must decide: the play loop of the live table and the
    simulator alike.  Returns the :class:`Turn` it stopped on.

    ``apply`` applies an action to ``hand`` (``hand.apply`` when ``None``; a caller's own that
    also records it, or ``hand.apply_trusted``).  ``automatic(seat)`` says whether a seat is
    played by ``choose`` (a bot, or 托管); ``None``: every seat is.  In order:

    * the rules' forced action is applied first (:attr:`Turn.forced`);
    * when people owe a decision, the automatic seats owing one beside them answer at once (a
      claim window's private answers, in seat order), and the loop stops once only the people
      are left: the caller asks them (its clock, its automatic settings), then calls again;
    * else the automatic seats act: the first that owes a decision, together with the seats
      of an open claim window ahead of it whose only answer is a pass (one look at the hand for
      all of them: a pass changes nobody else's options).  With ``pause_before_bots`` the loop
      stops before them instead (the live table's bot delay).

    A seat with one legal action takes it without its chooser being asked.  The loop also
    stops when the hand ends, or once it has applied ``max_actions`` actions (a hand that loops;
    an automatic claim window's answers beside people count as one step and may go past it).
    """
    act = apply if apply is not None else hand.apply
    applied = 0
    while True:
        t = turn(hand)
        if not t.legal or applied >= max_actions:
            return t
        if t.forced is not None:
            act(t.forced)
            applied += 1
            continue
        people = [] if automatic is None else [s for s in t.legal if not automatic(s)]
        if people:
            assert automatic is not None
            for seat in t.owed:  # as they were owed before any answer: in seat order
                if automatic(seat):
                    act(_decision(hand, seat, hand.legal_actions(seat), choose))
                    applied += 1
            t = turn(hand)
            if t.owed == people:
                return t
            continue
        if pause_before_bots:
            return t
        applied += _play_automatic(t, choose, act, max_actions - applied)


def _play_automatic(t: Turn, choose: Chooser, act: Callable[[Action], object], most: int) -> int:
    """The first seat that owes a decision on ``t``, with the passes of the idle window seats
    ahead of it (see :func:`advance`), ``most`` actions at most.  Returns how many were applied."""
    hand, in_window = t.hand, t.in_window
    applied = 0
    for seat, legal in t.legal.items():
        if applied >= most:
            break
        if len(legal) > 1:
            if not applied:  # decide only on the hand as it was: its ply keys the bot's randomness
                act(choose(hand, seat, legal))
                applied += 1
            break
        act(legal[0])  # nothing to decide (a pass with nothing to claim): no bot is asked
        applied += 1
        if not in_window:
            break  # outside a window one action changes the turn
    return applied


def decide(hand: Hand, bots: Sequence[Bot], rng: random.Random) -> list[Action]:
    """Every seat that owes a decision answers now, each with its bot and ``rng`` (one stream),
    in seat order; apply the answers in that order.  No bot sees another's answer, and nothing
    is forced or skipped: the property tests' self-play, harder on the rules than the table's."""
    t = turn(hand)
    if not t.legal:
        raise RuntimeError(f"hand not ended but nobody can act (phase {hand.phase}, turn {hand.turn})")
    return [bots[seat].choose(hand, seat, rng, legal) for seat, legal in t.legal.items()]


__all__ = [
    "MAX_ACTIONS",
    "Chooser",
    "Turn",
    "advance",
    "bot_chooser",
    "claim_taken",
    "decide",
    "decision_rng",
    "idle_passes",
    "turn",
]
