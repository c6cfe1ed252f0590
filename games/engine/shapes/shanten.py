"""Standard-shape shanten from per-component cover tables.

:func:`shanten_special` (the special forms' shanten) lives in :mod:`games.engine.shapes.forms`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from games.engine.shapes.keys import suit_keys
from games.engine.shapes.tables import _CACHE_LIMIT, MAX_MELDS, POW5, UNREACHABLE

# Cover tables: for a component key, cover[p * (MAX_MELDS + 1) + g] is the
# largest number of its real tiles that fit into g melds plus (p = 1) a pair,
# every missing tile being a joker.  Shanten follows from the best cover: the
# tiles not covered must be exchanged, wilds and fresh draws fill the gaps.
# The last entry is the meld count past which the cover stops growing, so
# that combining components only tries meld splits that can matter.
_G1: Final = MAX_MELDS + 1
_Cover = tuple[int, ...]
_EMPTY_COVER: Final = (0,) * (2 * _G1) + (0,)
_SUIT_COVER: dict[int, _Cover] = {0: _EMPTY_COVER}
_HONOUR_COVER: dict[int, _Cover] = {0: _EMPTY_COVER}


def _saturation(best: Sequence[int]) -> int:
    top = _G1 - 1
    while top > 0 and best[top - 1] == best[top] and best[_G1 + top - 1] == best[_G1 + top]:
        top -= 1
    return top


def _cover(key: int, honours: bool) -> _Cover:
    memo = _HONOUR_COVER if honours else _SUIT_COVER
    hit = memo.get(key)
    if hit is not None:
        return hit
    p = 1
    while key // p % 5 == 0:
        p *= 5
    c = key // p % 5
    # Dropping the lowest tile (it is exchanged) is always possible.
    best = list(_cover(key - p, honours)[: 2 * _G1])
    # (tiles covered, sub-key) for each way the lowest tile joins a meld.
    melds = [(a, key - a * p) for a in range(1, min(c, 3) + 1)]
    if not honours and p <= POW5[7]:
        c1 = key // (5 * p) % 5
        c2 = key // (25 * p) % 5 if p <= POW5[6] else 0
        if c1:
            melds.append((2, key - 6 * p))
        if c2:
            melds.append((2, key - 26 * p))
        if c1 and c2:
            melds.append((3, key - 31 * p))
    for n, sub in melds:
        s = _cover(sub, honours)
        for g in range(1, _G1):
            v = n + s[g - 1]
            if v > best[g]:
                best[g] = v
            v = n + s[_G1 + g - 1]
            if v > best[_G1 + g]:
                best[_G1 + g] = v
    for a in range(1, min(c, 2) + 1):  # the pair, with the rest in melds only
        s = _cover(key - a * p, honours)
        for g in range(_G1):
            v = a + s[g]
            if v > best[_G1 + g]:
                best[_G1 + g] = v
    best.append(_saturation(best))
    result = tuple(best)
    if len(memo) >= _CACHE_LIMIT:
        memo.clear()
        memo[0] = _EMPTY_COVER
    memo[key] = result
    return result


def _join(a: _Cover, b: _Cover, upto: int) -> _Cover:
    """Max-plus convolution of two covers over melds (up to ``upto`` melds),
    with the pair in either.  Melds beyond a side's saturation add nothing
    there, which bounds the split loop."""
    sa, sb = a[-1], b[-1]
    top = min(upto, sa + sb)
    out = [0] * (2 * _G1 + 1)
    for g in range(top + 1):
        best0 = best1 = 0
        for g1 in range(max(0, g - sb), min(g, sa) + 1):
            g2 = g - g1
            v = a[g1] + b[g2]
            if v > best0:
                best0 = v
            v = a[_G1 + g1] + b[g2]
            if v > best1:
                best1 = v
            v = a[g1] + b[_G1 + g2]
            if v > best1:
                best1 = v
        out[g] = best0
        out[_G1 + g] = best1
    for g in range(top + 1, upto + 1):  # saturated: more melds cover nothing more
        out[g] = out[top]
        out[_G1 + g] = out[_G1 + top]
    # Past `upto` nothing is computed; no caller looks there.
    out[-1] = top
    return tuple(out)


def _join_top(a: _Cover, b: _Cover, melds: int) -> int:
    """``_join(a, b, melds)[_G1 + melds]`` alone: the most tiles ``melds`` melds and the pair
    cover across both sides.  One entry of the convolution is a single loop, where the whole
    table is a double one: what a per-kind answer needs."""
    best = 0
    for g1 in range(melds + 1):
        g2 = melds - g1
        v = a[_G1 + g1] + b[g2]
        if v > best:
            best = v
        v = a[g1] + b[_G1 + g2]
        if v > best:
            best = v
    return best


def shanten(counts: Sequence[int], wilds: int) -> int:
    """Standard-shape shanten: -1 complete, 0 ready, n = n exchanges from ready.

    Works for 3n+1 and 3n+2 hands of up to 17 tiles (wilds included).  It is
    the exact count of real tiles that must be swapped for fresh draws, where
    draws may be any tile (the four-copy limit of drawn tiles is ignored, as
    usual); wilds are never swapped.
    """
    size = sum(counts) + wilds
    if size % 3 == 0:
        raise ValueError(f"shanten needs a 3n+1 or 3n+2 hand, got {size} tiles")
    melds = size // 3
    if melds > MAX_MELDS:
        raise ValueError(f"shanten supports at most {3 * MAX_MELDS + 2} tiles, got {size}")
    keys = suit_keys(counts)
    acc: _Cover | None = None
    for comp in range(4):
        if keys[comp]:  # an empty component covers nothing: skip the join
            cov = _cover(keys[comp], comp == 3)
            acc = cov if acc is None else _join(acc, cov, melds)
    best = 0 if acc is None else acc[_G1 + melds]
    return 3 * melds + 1 - wilds - best


# The join of two components' covers, by their keys (honours last) and the meld count: a hint
# set asks for the same few pairs over and over — every discard of one hand changes a single
# component, and the next turn's hand keeps most of them — so they are kept, like the covers.
# Unlike a cover (one suit's key) a join's key is a pair of hands' suits, so the tables are
# kept smaller (32,768 joins, about 10 MB each at most) and cleared when full, as the covers are.
_JOIN_LIMIT: Final = 1 << 15
_PAIR_JOINS: dict[tuple[int, int, bool, int], _Cover] = {}
# ... and the join of the three components other than one, by that one and the three keys.
_OTHER_JOINS: dict[tuple[int, int, int, int, int], _Cover] = {}


def _pair_join(comp_a: int, key_a: int, comp_b: int, key_b: int, melds: int) -> _Cover:
    """``_join`` of components ``comp_a`` < ``comp_b`` with keys ``key_a``, ``key_b``."""
    memo_key = (key_a + comp_a * POW5[9], key_b + comp_b * POW5[9], comp_b == 3, melds)
    hit = _PAIR_JOINS.get(memo_key)
    if hit is not None:
        return hit
    a = _cover(key_a, comp_a == 3) if key_a else _EMPTY_COVER
    b = _cover(key_b, comp_b == 3) if key_b else _EMPTY_COVER
    result = _join(a, b, melds)
    if len(_PAIR_JOINS) >= _JOIN_LIMIT:
        _PAIR_JOINS.clear()
    _PAIR_JOINS[memo_key] = result
    return result


# For each component, the other three as (a pair joined once and kept, the third).
_OTHERS: Final = ((1, 2, 3), (0, 2, 3), (0, 1, 3), (0, 1, 2))


def shanten_each(counts: Sequence[int], wilds: int) -> list[int]:
    """``shanten(counts + one tile of kind k, wilds)`` for every kind k of a 3n+1 hand, in one
    pass (:data:`UNREACHABLE` where ``counts[k]`` is already 4)."""
    return shanten_each_and_wild(counts, wilds)[0]


def shanten_each_and_wild(counts: Sequence[int], wilds: int) -> tuple[list[int], int]:
    """:func:`shanten_each`, and ``shanten(counts, wilds + 1)`` beside it: one more wild.

    Adding a tile changes one component's cover only, so the other three are joined once per
    component (two of them from the kept pair joins) and each kind costs one cover lookup and
    one entry of a join, not a whole shanten: what makes the 牌效 of a hint (the tiles that
    bring a hand closer) cheap enough to list live at every distance.  A wild changes no
    component: one more entry of the same joins."""
    size = sum(counts) + wilds + 1
    if size % 3 != 2:
        raise ValueError(f"shanten_each needs a 3n+1 hand, got {size - 1} tiles")
    melds = size // 3
    if melds > MAX_MELDS:
        raise ValueError(f"shanten supports at most {3 * MAX_MELDS + 2} tiles, got {size}")
    keys = suit_keys(counts)
    top = 3 * melds + 1 - wilds
    out = [UNREACHABLE] * 34
    with_wild = UNREACHABLE
    for comp in range(4):
        x, y, z = _OTHERS[comp]
        memo_key = (comp, keys[x], keys[y], keys[z], melds)
        others = _OTHER_JOINS.get(memo_key)
        if others is None:
            third = _cover(keys[z], z == 3) if keys[z] else _EMPTY_COVER
            others = _join(_pair_join(x, keys[x], y, keys[y], melds), third, melds)
            if len(_OTHER_JOINS) >= _JOIN_LIMIT:
                _OTHER_JOINS.clear()
            _OTHER_JOINS[memo_key] = others
        own = _cover(keys[comp], comp == 3) if keys[comp] else _EMPTY_COVER
        if comp == 0:
            with_wild = top - 1 - _join_top(others, own, melds)
        base = 9 * comp
        for r in range(7 if comp == 3 else 9):
            if counts[base + r] >= 4:
                continue
            out[base + r] = top - _join_top(others, _cover(keys[comp] + POW5[r], comp == 3), melds)
    return out, with_wild
