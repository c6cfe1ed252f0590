"""Bot self-play: ``python -m games.engine.simulate --variant KEY --hands N --seed S``.

Plays ``N`` real (seeded, not rigged) hands with four bots and prints the
throughput, how the hands ended, which patterns scored, which events happened
(抢金, 游金 levels, 报听, 抢暗杠 guesses... next to the draws and discards) and the
average sizes of the payments, checking that every hand's deltas sum to zero.  It is both a
smoke test of a rule set (a hand that cannot finish, a refused bot action or a
non zero-sum settlement stops the run) and the engine's speed benchmark for
whole hands.

Every hand's wall seed and bot RNG derive from ``S`` and the hand's index only,
so a run is reproducible and any one hand can be replayed on its own.

Output: one ``key: value`` line per figure; multi-valued figures are
space-separated ``name=count`` pairs, so the lines parse with ``split``.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import pstats
import random
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine import shapes
from games.engine.bots import BOTS, Bot, make_bot
from games.engine.driver import MAX_ACTIONS, advance, bot_chooser
from games.engine.hand import Hand
from games.engine.state import Action, Event, Result
from games.engine.variants import get_variant
from games.engine.variants.base import Variant

OUTCOMES = ("self_draw", "discard", "robbing_kong", "exhaustive_draw")


def hand_seed(master: str, index: int) -> str:
    """The wall seed of hand ``index`` of a run seeded with ``master``."""
    return hashlib.sha256(f"simulate:{master}:{index}".encode()).hexdigest()[:32]


def bot_rng(seed: str) -> random.Random:
    """The bots' RNG for the hand with wall seed ``seed`` (a str seed hashes stably across runs)."""
    return random.Random("bots:" + seed)


@dataclass
class PlayedHand:
    hand: Hand
    actions: list[Action]
    events: list[Event]

    @property
    def result(self) -> Result:
        assert self.hand.result is not None
        return self.hand.result


def play_hand(
    variant: Variant,
    seed: str,
    bots: Sequence[Bot],
    *,
    trusted: bool = False,
    options: Mapping[str, Any] | None = None,
    rng: random.Random | None = None,
    keep_events: bool = True,
    open_empty_windows: bool = True,
    context: Mapping[str, Any] | None = None,
) -> PlayedHand:
    """Deal the hand ``seed`` gives and let ``bots`` (one per seat) play it to the end.

    It is played as the live table plays it with four bots, action for action: claim protection
    on (``open_empty_windows``: a window after every discard), through the same play loop
    (:func:`games.engine.driver.advance`), each bot deciding with
    :func:`~games.engine.driver.decision_rng` (unless ``rng`` is given: one stream for the whole
    hand).  A seat whose only choice is a pass is not asked.  ``trusted`` applies the choices
    with ``apply_trusted`` instead of the validating ``apply``; both must give the same history.
    ``context`` is the rule set's pre-hand state (飘, 买底...; none by default).
    """
    hand = variant.new_hand(options, context, seed, open_empty_windows=open_empty_windows)
    actions: list[Action] = []
    events: list[Event] = []
    apply = hand.apply_trusted if trusted else hand.apply

    def record(action: Action) -> None:
        evs = apply(action)
        actions.append(action)
        if keep_events:
            events.extend(evs)

    t = advance(hand, bot_chooser(bots, rng), record, max_actions=MAX_ACTIONS)
    if not t.ended:
        if t.owed:
            raise RuntimeError(f"hand {seed} did not end within {MAX_ACTIONS} actions")
        raise RuntimeError(f"hand not ended but nobody can act (phase {hand.phase}, turn {hand.turn})")
    result = hand.result
    assert result is not None
    if sum(result.deltas) != 0:  # not an assert: it must hold under python -O too
        raise AssertionError(f"hand {seed}: deltas {result.deltas} do not sum to zero")
    return PlayedHand(hand, actions, events)


def outcome_of(result: Result) -> str:
    """One of OUTCOMES (or a variant's own win kind, or its own end such as 漳州's ``false_win``)."""
    if result.status != "win":
        return result.win_kind or "exhaustive_draw"
    if result.win_kind in ("discard", "robbing_kong", "self_draw"):
        return result.win_kind
    if result.self_drawn:
        return "self_draw"
    return result.win_kind or "discard"


def event_name(event: Event) -> str:
    """The name an event is counted under: its kind, and for 漳州's ``you`` the level it
    moved to (``you_1`` entered 单游, ``you_2`` 双游, ``you_0`` left 游)."""
    if event.kind == "you":
        return f"you_{event.data.get('level')}"
    return event.kind


@dataclass
class Stats:
    variant: str
    bot: str
    seed: str
    trusted: bool
    hands: int = 0
    actions: int = 0
    seconds: float = 0.0  # wall clock
    cpu_seconds: float = 0.0  # this process only: steadier on a shared machine
    warmup_seconds: float = 0.0
    outcomes: Counter[str] = field(default_factory=Counter)
    patterns: Counter[str] = field(default_factory=Counter)
    events: Counter[str] = field(default_factory=Counter)
    abs_delta_total: int = 0
    winner_total: int = 0
    wins: int = 0

    def add(self, played: PlayedHand) -> None:
        r = played.result
        self.hands += 1
        self.actions += len(played.actions)
        self.outcomes[outcome_of(r)] += 1
        for item in r.breakdown:
            self.patterns[item.name] += 1
        for e in played.events:
            self.events[event_name(e)] += 1
        self.abs_delta_total += sum(abs(d) for d in r.deltas)
        if r.status == "win" and r.winner is not None:
            self.wins += 1
            self.winner_total += r.deltas[r.winner]

    def figures(self) -> dict[str, Any]:
        """Everything but the timing: equal for equal runs."""
        return {
            "hands": self.hands,
            "actions": self.actions,
            "outcomes": dict(self.outcomes),
            "patterns": dict(self.patterns),
            "events": dict(self.events),
            "abs_delta_total": self.abs_delta_total,
            "winner_total": self.winner_total,
            "wins": self.wins,
        }

    def lines(self) -> list[str]:
        per_s = self.hands / self.seconds if self.seconds > 0 else float("inf")
        per_cpu_s = self.hands / self.cpu_seconds if self.cpu_seconds > 0 else float("inf")
        outcomes = {k: self.outcomes.get(k, 0) for k in OUTCOMES}
        outcomes.update({k: v for k, v in self.outcomes.items() if k not in outcomes})
        patterns = sorted(self.patterns.items(), key=lambda kv: (-kv[1], kv[0]))  # most frequent first
        events = sorted(self.events.items(), key=lambda kv: (-kv[1], kv[0]))
        avg_abs = self.abs_delta_total / (4 * self.hands) if self.hands else 0.0
        avg_win = self.winner_total / self.wins if self.wins else 0.0
        avg_actions = self.actions / self.hands if self.hands else 0.0
        mode = "trusted" if self.trusted else "validated"
        return [
            f"run: variant={self.variant} bot={self.bot} hands={self.hands} seed={self.seed} apply={mode}",
            f"hands_per_s: {per_s:.1f}",
            f"hands_per_cpu_s: {per_cpu_s:.1f}",
            f"seconds: {self.seconds:.3f}",
            f"warmup_seconds: {self.warmup_seconds:.3f}",
            "outcomes: " + " ".join(f"{k}={v}" for k, v in outcomes.items()),
            "patterns: " + " ".join(f"{k}={v}" for k, v in patterns),
            "events: " + " ".join(f"{k}={v}" for k, v in events),
            f"avg_abs_delta: {avg_abs:.4f}",
            f"avg_winner_score: {avg_win:.4f}",
            f"avg_actions: {avg_actions:.1f}",
            f"zero_sum: ok hands={self.hands}",
        ]


def simulate(
    variant_key: str,
    hands: int,
    seed: str,
    bot: str = "greedy",
    *,
    trusted: bool = False,
    options: Mapping[str, Any] | None = None,
) -> Stats:
    variant = get_variant(variant_key)
    bots = [make_bot(bot) for _ in range(4)]
    stats = Stats(variant=variant_key, bot=bot, seed=seed, trusted=trusted)
    # The shape tables fill lazily; a server warms them once at start-up, so
    # the clock measures play, not table building (reported separately).
    start = time.perf_counter()
    shapes.warm_tables()
    stats.warmup_seconds = time.perf_counter() - start
    start, cpu_start = time.perf_counter(), time.process_time()
    for i in range(hands):
        stats.add(play_hand(variant, hand_seed(seed, i), bots, trusted=trusted, options=options))
    stats.seconds = time.perf_counter() - start
    stats.cpu_seconds = time.process_time() - cpu_start
    return stats


def profile_report(profiler: cProfile.Profile, top: int = 20) -> str:
    out = io.StringIO()
    for order, title in (("tottime", "self time"), ("cumulative", "cumulative time")):
        out.write(f"profile ({title}), top {top}:\n")
        stats = pstats.Stats(profiler, stream=out)
        stats.strip_dirs().sort_stats(order).print_stats(top)
    return out.getvalue()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.engine.simulate", description=__doc__.splitlines()[0])
    parser.add_argument("--variant", required=True, help="rule set key, e.g. zhejiang_caishen")
    parser.add_argument("--hands", type=int, default=100, help="how many hands to play")
    parser.add_argument("--seed", default="0", help="master seed; each hand's seed derives from it")
    parser.add_argument("--bot", choices=sorted(BOTS), default="greedy", help="the bot in all four seats")
    parser.add_argument("--trusted", action="store_true", help="apply choices with apply_trusted (no validation)")
    parser.add_argument("--profile", action="store_true", help="run under cProfile and print the top 20 functions")
    args = parser.parse_args(argv)
    if args.hands < 1:
        parser.error("--hands must be at least 1")
    try:
        get_variant(args.variant)
    except ValueError as exc:
        parser.error(str(exc))
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        stats = simulate(args.variant, args.hands, args.seed, args.bot, trusted=args.trusted)
        profiler.disable()
    else:
        stats = simulate(args.variant, args.hands, args.seed, args.bot, trusted=args.trusted)
    print("\n".join(stats.lines()))
    if args.profile:
        print(profile_report(profiler))
    return 0


if __name__ == "__main__":
    sys.exit(main())
