"""Pairwise Elo for four players: the arithmetic of a rating update, with no Django.

A four-player match is read as the six two-player games between its pairs of players: for each
pair, the one with the higher final match score won that game, equal scores drew it.  Each
player's rating moves by ``K / (N - 1)`` times the sum, over their three opponents, of the
result minus the expected result (Elo's logistic curve on a 400-point scale).  Dividing by
``N - 1`` keeps one match worth one two-player game's K whatever the table size.  This is the
"simple multiplayer Elo" of Tom Kerrigan (http://www.tckerrigan.com/Misc/Multiplayer_Elo/,
after A. Elo, *The Rating of Chessplayers, Past and Present*, 1978); docs/ratings.md has the
formula, the constants and a worked example (tests/platform/test_ratings.py checks it).
"""

from __future__ import annotations

from collections.abc import Sequence

INITIAL = 1500.0  # every player's rating before their first rated match of a rule set
K = 32.0  # the two-player Elo K factor; a four-player match moves a rating by K/3 per opponent
SCALE = 400.0  # a 400-point gap means ten-to-one expected odds


def expected(rating: float, opponent: float) -> float:
    """The expected score of ``rating`` against ``opponent``: 0.5 when level, towards 1 above."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / SCALE))


def outcome(score: float, opponent_score: float) -> float:
    """1 for the higher final match score, 0.5 for a tie, 0 for the lower."""
    if score > opponent_score:
        return 1.0
    if score < opponent_score:
        return 0.0
    return 0.5


def changes(ratings: Sequence[float], scores: Sequence[float], k: float = K) -> list[float]:
    """Every player's rating change from one match: ``ratings[i]`` before, ``scores[i]`` final.

    The changes of a match sum to zero (each pair's two terms cancel), so rating is neither made
    nor lost by playing."""
    if len(ratings) != len(scores) or len(ratings) < 2:
        raise ValueError("one rating and one score per player, at least two players")
    n = len(ratings)
    factor = k / (n - 1)
    out = []
    for i in range(n):
        total = sum(outcome(scores[i], scores[j]) - expected(ratings[i], ratings[j]) for j in range(n) if j != i)
        out.append(factor * total)
    return out
