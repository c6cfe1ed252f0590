"""Who must act next: the one answer every player of hands asks.

The live table (``games.services.play``), the simulator, the scenario runner's autoplay, replays
and spectating all drive a hand through :func:`turn`, so a hand follows one action sequence
wherever it is played.  :func:`turn` says who owes a decision now and what each may do, what
the rules do by themselves (:attr:`Turn.forced`), what the clock does for a seat that does not
answer (:meth:`Turn.default`), and which seats in an open claim window have nothing to claim
(:attr:`Turn.idle`: :func:`idle_passes` answers for them).  Nothing here changes the hand.

A ``Turn`` describes the hand at the moment it was taken: take a new one after every action.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

from games.engine.hand import CLAIM, ENDED, PLAY, ClaimWindow, Hand
from games.engine.state import PASS, Action
from games.engine.variants.base import Variant


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


__all__ = ["Turn", "claim_taken", "decision_rng", "idle_passes", "turn"]
