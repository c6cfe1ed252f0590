"""The duplicate duel (games/engine/duel.py): its interval arithmetic, its seat swap, and a run
on a fixed seed that gives the same figures every time."""

from __future__ import annotations

import math
import re
import statistics

import pytest

from games.engine import duel


def test_the_interval_is_the_mean_plus_or_minus_t_times_the_standard_error() -> None:
    values = [1.0, -2.0, 3.0, 0.5, 2.5]
    ci = duel.confidence(values)
    half = 2.776 * statistics.stdev(values) / math.sqrt(5)  # t(0.975, 4 degrees of freedom)
    assert ci.mean == pytest.approx(1.0)
    assert (ci.low, ci.high) == pytest.approx((1.0 - half, 1.0 + half))


def test_from_thirty_values_the_normal_quantile_is_used() -> None:
    values = [float(i % 7) for i in range(40)]
    ci = duel.confidence(values)
    assert ci.high - ci.mean == pytest.approx(1.96 * statistics.stdev(values) / math.sqrt(40))


def test_one_value_has_no_interval() -> None:
    ci = duel.confidence([2.0])
    assert ci.mean == 2.0 and ci.low == -math.inf and ci.high == math.inf


def test_a_bot_against_itself_scores_exactly_nothing_on_every_deal() -> None:
    """Both plays of a deal seat the same bots on the same wall with the seats swapped: what
    seats E and W won in the first play, S and N won in the second.  Against itself a bot's
    pair of plays sums to zero, deal by deal."""
    result = duel.duel("zhejiang_caishen", 4, "self", "greedy", "greedy")
    assert result.pairs == [0.0] * 4
    assert result.last_line() == "greedy vs greedy: +0.00 points per hand (95% CI 0.00 .. 0.00) over 4 hands"


def test_a_fixed_seed_gives_the_same_duel(capsys: pytest.CaptureFixture[str]) -> None:
    duel.main(["--variant", "dongbei", "--hands", "3", "--seed", "7"])
    first = capsys.readouterr().out.splitlines()
    duel.main(["--variant", "dongbei", "--hands", "3", "--seed", "7"])
    second = capsys.readouterr().out.splitlines()
    assert [line for line in first if not line.startswith("seconds")] == [
        line for line in second if not line.startswith("seconds")
    ]
    last = first[-1]
    assert re.fullmatch(
        r"strong vs greedy: [+-]\d+\.\d\d points per hand \(95% CI -?\d+\.\d\d \.\. -?\d+\.\d\d\) over 3 hands", last
    )
    figures = duel.duel("dongbei", 3, "7")
    assert last == figures.last_line()
    assert len(figures.pairs) == 3 and sum(figures.wins.values()) == 6
