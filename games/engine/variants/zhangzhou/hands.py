"""漳州麻将 (SPEC D3) hand analysis: the 金 (gold) as a wild, 白板 playing the gold's face.

Everything works on the engine's count vectors.  A hand is read by :func:`split`:
the golds come out as wilds, and 白板 moves onto the gold's kind, because there
it is the one natural copy of that kind left (the real copies are golds).  When
the gold *is* 白板 (正金), 白板 stands for nothing and only the golds move.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.engine import shapes
from games.engine.state import KONG_ADDED, KONG_CONCEALED, KONG_EXPOSED, Player
from games.engine.tiles import NUM_KINDS, WHITE, Tile

HONOUR_KINDS = range(27, NUM_KINDS)
# Flowers beyond this many count as one 明杠 each (四花一杠, 五花两杠 ...).
FREE_FLOWERS = 3


def split(counts: Sequence[int], gold: Tile) -> tuple[list[int], int]:
    """The 34-kind counts with the golds taken out (白板 on the gold's face), and how many golds."""
    c = list(counts[:NUM_KINDS])
    golds = c[gold]
    if gold == WHITE:
        c[gold] = 0
    else:
        c[gold] = c[WHITE]
        c[WHITE] = 0
    return c, golds


def is_win(counts: Sequence[int], gold: Tile) -> bool:
    """The standard shape (melds and a pair), golds wild."""
    c, golds = split(counts, gold)
    return shapes.is_standard_win(c, golds)


def is_ready(counts: Sequence[int], gold: Tile) -> bool:
    """听牌: one more gold (which may be any tile) would complete the hand (抢金's test)."""
    c, golds = split(counts, gold)
    return shapes.is_standard_win(c, golds + 1)


def melds_only(counts: Sequence[int], wilds: int) -> bool:
    """``counts`` (34 kinds) and ``wilds`` form complete melds with no pair.

    The shape tables answer "melds and one pair", so a pair of an honour the hand
    lacks is added: it can only be the pair, or a pung with a wild, and a wild
    that makes a pung of an added pair could as well have made a pung of the
    hand's own pair.  Six or seven kinds of honour can never be melds only.
    """
    for k in HONOUR_KINDS:
        if counts[k] == 0:
            c = list(counts)
            c[k] = 2
            return shapes.is_standard_win(c, wilds)
    return False


def you_shape(counts: Sequence[int], gold: Tile) -> bool:
    """游金's shape: without one gold, the concealed tiles are complete melds (a lone gold waits)."""
    c, golds = split(counts, gold)
    return golds >= 1 and melds_only(c, golds - 1)


def ready_after_setting_aside(counts: Sequence[int], gold: Tile) -> list[Tile]:
    """The dealer's 抢金 test: which tiles, set aside, leave a 听牌 hand (the rest of the 17)."""
    out = []
    c = list(counts)
    for t in range(NUM_KINDS):
        if c[t]:
            c[t] -= 1
            if is_ready(c, gold):
                out.append(t)
            c[t] += 1
    return out


def points(player: Player) -> int:
    """花分 + 杠分 in 底分: 明杠 (and 补杠) 1, 暗杠 2, and every flower past the third one 明杠."""
    total = max(0, len(player.flowers) - FREE_FLOWERS)
    for m in player.melds:
        if m.kind == KONG_CONCEALED:
            total += 2
        elif m.kind in (KONG_EXPOSED, KONG_ADDED):
            total += 1
    return total
