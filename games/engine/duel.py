"""Duplicate duel of two bots: ``python -m games.engine.duel --variant V --hands N --seed S``.

Every deal is played twice on the same wall: first two of bot A (``--strong``, default
``strong``) in seats E and W against two of bot B (``--weak``, default ``greedy``) in S and N,
then with the seats swapped.  Luck of the deal cancels out: whatever a seat was dealt, each bot
played it once.  A deal pair's figure is what A's seats won in both plays together, halved: A's
points per hand.  The run prints the mean over the N deals with a 95% confidence interval from
the spread of those per-deal figures (normal approximation; Student's t below 30 deals), last of
all, exactly as::

    strong vs greedy: +X.XX points per hand (95% CI LO .. HI) over N hands

Each deal starts afresh (the rule set's default options, an empty context, E deals) and asks
the rule set's pre-hand questions (东北 飘, 温州 买底/顶底) of the seats' bots before the deal.
Every deal's wall seed and the bots' randomness derive from ``S`` and the deal's index only, so
a run is reproducible.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine import shapes
from games.engine.bots import BOTS, Bot, make_bot, pre_hand_answer
from games.engine.simulate import play_hand
from games.engine.variants import get_variant
from games.engine.variants.base import Variant

# Two-sided 95% quantiles of Student's t by degrees of freedom (below 30 deals; 1.96 from there).
_T95: dict[int, float] = {
    1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
    10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110,
    18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060,
    26: 2.056, 27: 2.052, 28: 2.048,
}  # fmt: skip
Z95 = 1.96


def deal_seed(master: str, index: int) -> str:
    """The wall seed of deal ``index`` of a duel seeded with ``master``."""
    return hashlib.sha256(f"duel:{master}:{index}".encode()).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Interval:
    mean: float
    low: float
    high: float
    n: int


def confidence(values: Sequence[float]) -> Interval:
    """The mean of ``values`` with its two-sided 95% interval (t below 30 values, else normal)."""
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    mean = statistics.fmean(values)
    if n == 1:
        return Interval(mean, -math.inf, math.inf, 1)
    q = _T95.get(n - 1, Z95)
    half = q * statistics.stdev(values) / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, n)


@dataclass
class DuelResult:
    variant: str
    strong: str
    weak: str
    pairs: list[float] = field(default_factory=list)  # A's points per hand, one per deal
    wins: dict[str, int] = field(default_factory=lambda: {"strong": 0, "weak": 0, "none": 0})
    seconds: float = 0.0

    def interval(self) -> Interval:
        return confidence(self.pairs)

    def last_line(self) -> str:
        ci = self.interval()
        return (
            f"{self.strong} vs {self.weak}: {ci.mean:+.2f} points per hand "
            f"(95% CI {ci.low:.2f} .. {ci.high:.2f}) over {ci.n} hands"
        )


def _context(variant: Variant, options: Mapping[str, Any], bots: Sequence[Bot]) -> dict[str, Any]:
    """The deal's context after the rule set's pre-hand questions, each asked of the seats' bots."""
    context: dict[str, Any] = {}
    for question in variant.pre_hand_questions(options, context):
        answers = {w: pre_hand_answer(bots[w], variant.key, question, options, context, w) for w in question.seats}
        context = variant.apply_pre_hand_answers(context, question, answers)
    return context


def duel(variant_key: str, deals: int, seed: str, strong: str = "strong", weak: str = "greedy") -> DuelResult:
    variant = get_variant(variant_key)
    options = variant.validate_options({})
    a = [make_bot(strong), make_bot(strong)]
    b = [make_bot(weak), make_bot(weak)]
    out = DuelResult(variant_key, strong, weak)
    shapes.warm_tables()
    start = time.perf_counter()
    for i in range(deals):
        wall = deal_seed(seed, i)
        total = 0
        for swapped in (False, True):
            bots: list[Bot] = [b[0], a[0], b[1], a[1]] if swapped else [a[0], b[0], a[1], b[1]]
            mine = (1, 3) if swapped else (0, 2)
            context = _context(variant, options, bots)
            played = play_hand(variant, wall, bots, options=options, context=context, keep_events=False)
            r = played.result
            total += sum(r.deltas[s] for s in mine)
            if r.status == "win" and r.winner is not None:
                out.wins["strong" if r.winner in mine else "weak"] += 1
            else:
                out.wins["none"] += 1
        out.pairs.append(total / 2)
    out.seconds = time.perf_counter() - start
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.engine.duel", description=__doc__.splitlines()[0])
    parser.add_argument("--variant", required=True, help="rule set key, e.g. zhejiang_caishen")
    parser.add_argument("--hands", type=int, default=200, help="how many deals (each is played twice)")
    parser.add_argument("--seed", default="1", help="master seed; each deal's wall derives from it")
    parser.add_argument("--strong", choices=sorted(BOTS), default="strong", help="bot A (its figure is printed)")
    parser.add_argument("--weak", choices=sorted(BOTS), default="greedy", help="bot B")
    args = parser.parse_args(argv)
    if args.hands < 1:
        parser.error("--hands must be at least 1")
    try:
        get_variant(args.variant)
    except ValueError as exc:
        parser.error(str(exc))
    result = duel(args.variant, args.hands, args.seed, args.strong, args.weak)
    w = result.wins
    print(f"run: variant={args.variant} deals={args.hands} hands_played={2 * args.hands} seed={args.seed}")
    print(f"wins: {args.strong}={w['strong']} {args.weak}={w['weak']} none={w['none']}")
    print(f"seconds: {result.seconds:.1f}")
    print(result.last_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
