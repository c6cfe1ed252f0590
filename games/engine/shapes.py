"""Hand-shape analysis with wild tiles: win, waits, shanten, decompositions.

Everything here works on count vectors (``Sequence[int]`` of length 34, indexed
by tile code, see :mod:`games.engine.tiles`) plus a separate number of wilds.
The caller has already taken the wild tiles out of the counts; a wild may stand
for any tile, including its own face, and never counts against the four-copy
limit.

Why tables
----------
A hand splits into four independent *components*: the three suits and the
honours.  No meld crosses a component, so everything about a component that
matters for the standard shape (melds + one pair) condenses into two numbers:

* ``F0`` - the fewest wilds that turn the component into melds only;
* ``F1`` - the fewest wilds that turn it into melds plus exactly one pair
  (the pair may be two wilds).

A component of ``n`` tiles has ``n + F0 = 0`` and ``n + F1 = 2`` (mod 3), and
one can always go from one to the other by adding a wild to a pair (``F0 <=
F1 + 1``) or a wild pair to the melds (``F1 <= F0 + 2``); so ``F1`` is either
``F0 - 1`` or ``F0 + 2`` and one bit says which.  A whole hand then needs
``sum(F0) - 1`` wilds if some component can host the pair cheaply and
``sum(F0) + 2`` otherwise (that ``+2`` is the all-wild pair).  Wilds left over
after that always come in threes (the hand size fixes it) and form all-wild
melds.

The per-component facts are looked up by a *key*: the component's count vector
read as a base-5 number (digit ``r`` is the count of rank ``r + 1``), so adding
or removing one tile moves the key by ``5 ** r``.  The honour table (5**7
keys) is built in full at import in a few milliseconds.  The suit table has
5**9 (about two million) keys, far too many to fill in pure Python at startup,
so it is a list pre-set to *unknown* and filled on first use by a short
memoised recursion over sub-keys; realistic hands touch a few tens of
thousands of keys, after which every query is a handful of list reads.
:func:`warm_tables` pre-fills all small suit shapes for servers that would
rather pay once at startup.

The other analyses reuse the same keys with their own lazily filled tables:
wait masks by wild budget (:func:`waits`), maximal tile *cover* by number of
melds (:func:`shanten`) and per-suit decomposition lists
(:func:`decompositions`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final, Literal, Protocol

__all__ = [
    "EIGHT_PAIRS_PLUS_ONE",
    "SEVEN_PAIRS",
    "SEVEN_PAIRS_DISTINCT",
    "STANDARD",
    "THIRTEEN_ORPHANS",
    "UNREACHABLE",
    "WILD_PAIR",
    "WILD_TRIPLET",
    "Decomposition",
    "Group",
    "GroupKind",
    "Keys",
    "PairsForm",
    "PartialDecomposition",
    "StandardForm",
    "ThirteenOrphansForm",
    "WinForm",
    "best_decomposition",
    "clear_caches",
    "decompositions",
    "is_standard_win",
    "is_win",
    "is_win_keys",
    "key_step",
    "shanten",
    "shanten_special",
    "substitute",
    "suit_keys",
    "update_keys",
    "waits",
    "wilds_needed",
    "warm_tables",
]

Keys = tuple[int, int, int, int]

POW5: Final = tuple(5**i for i in range(10))
NUM_SUIT_KEYS: Final = 5**9
NUM_HONOUR_KEYS: Final = 5**7

#: Shanten of a special form that cannot apply to the hand (wrong size).
UNREACHABLE: Final = 99

#: Largest number of melds the shanten cover tables track (a 17-tile hand
#: has five melds and a pair).
MAX_MELDS: Final = 5

# A table code packs F0 and the "pair is costly" bit: code = F0 * 8 + nb where
# nb = 1 means F1 = F0 + 2 and nb = 0 means F1 = F0 - 1.  The factor 8 (not 2)
# lets the low bits of a *sum of four codes* count the costly components, so
# one addition chain answers a whole-hand query.
_UNKNOWN: Final = 1 << 40  # far above any real code, so a sum with it shows
_ALL_COSTLY: Final = 4  # low bits of the sum when no component hosts a pair cheaply

# Dict caches are bounded crudely: cleared when they grow past this, so a
# long-running server cannot grow without limit on adversarial input.
_CACHE_LIMIT: Final = 1 << 18


def _code_f1(code: int) -> int:
    f0 = code >> 3
    return f0 + 2 if code & 1 else f0 - 1


# ---------------------------------------------------------------------------
# Suit table: F0/F1 per suit key, filled lazily
# ---------------------------------------------------------------------------

# A list, not an array: list reads skip creating an int object and are
# specialised by the interpreter, about a fifth faster per lookup.  It costs
# 16 MB of pointers (all to one shared sentinel until filled).
_SUIT_CODE: list[int] = [_UNKNOWN] * NUM_SUIT_KEYS
_SUIT_CODE[0] = 1  # empty suit: no wilds for melds, a wild pair (2) to host the pair


def _suit_code(key: int) -> int:
    """The code of a suit key, computing (and storing) it on first use.

    Recursion on the lowest tile present: it must sit in some group, and the
    group's *real* tiles can only be one of a few patterns (its face alone,
    twice or three times, or it with the next one or two ranks); ranks below
    it are empty, so any lower face of a sequence is a wild, which costs the
    same as the mirrored sequence above it.
    """
    code = _SUIT_CODE[key]
    if code != _UNKNOWN:
        return code
    p = 1
    while key // p % 5 == 0:
        p *= 5
    c = key // p % 5
    best0 = best1 = 1 << 12
    for a in range(1, min(c, 3) + 1):  # triplet of this face with 3 - a wilds
        sub = _suit_code(key - a * p)
        f0 = sub >> 3
        best0 = min(best0, f0 + 3 - a)
        best1 = min(best1, (f0 + 2 if sub & 1 else f0 - 1) + 3 - a)
    for a in range(1, min(c, 2) + 1):  # the pair, with 2 - a wilds
        best1 = min(best1, (_suit_code(key - a * p) >> 3) + 2 - a)
    if p <= POW5[7]:  # rank <= 8: sequences reaching upwards
        c1 = key // (5 * p) % 5
        c2 = key // (25 * p) % 5 if p <= POW5[6] else 0
        if c1:
            sub = _suit_code(key - 6 * p)
            best0 = min(best0, (sub >> 3) + 1)
            best1 = min(best1, _code_f1(sub) + 1)
        if c2:
            sub = _suit_code(key - 26 * p)
            best0 = min(best0, (sub >> 3) + 1)
            best1 = min(best1, _code_f1(sub) + 1)
        if c1 and c2:
            sub = _suit_code(key - 31 * p)
            best0 = min(best0, sub >> 3)
            best1 = min(best1, _code_f1(sub))
    code = best0 * 8 + (1 if best1 == best0 + 2 else 0)
    _SUIT_CODE[key] = code
    return code


def _build_honour_codes() -> list[int]:
    """The code of every honour key (5**7 of them).

    Honours have no sequences, so each kind is independent: F0 is a sum over
    kinds and the pair is cheap as soon as one kind holds 1, 2 or 4 tiles.
    Built by extending one digit at a time, which keeps import fast.
    """
    f0_of = (0, 2, 1, 0, 2)  # wilds to make c copies into melds only
    costly = (1, 0, 0, 1, 0)  # 1 when hosting the pair costs two more wilds
    f0s = [0]
    nbs = [1]
    for _ in range(7):
        f0s = [f + f0_of[d] for d in range(5) for f in f0s]
        nbs = [n & costly[d] for d in range(5) for n in nbs]
    return [f * 8 + n for f, n in zip(f0s, nbs, strict=True)]


_HONOUR_CODE: Final = _build_honour_codes()


def _key_tiles(key: int) -> int:
    n = 0
    while key:
        n += key % 5
        key //= 5
    return n


def warm_tables(max_suit_tiles: int = 8) -> int:
    """Fill the suit table for every suit shape of at most ``max_suit_tiles``.

    Optional: the tables fill themselves on demand.  Returns how many shapes
    were visited (22,330 for the default 8, in about 0.15 s; 74,396 for 10
    in about 0.3 s).
    """
    visited = 0

    def walk(rank: int, key: int, left: int) -> None:
        nonlocal visited
        if rank == 9:
            _suit_code(key)
            visited += 1
            return
        for c in range(min(4, left) + 1):
            walk(rank + 1, key + c * POW5[rank], left - c)

    walk(0, 0, max_suit_tiles)
    return visited


def clear_caches() -> None:
    """Forget every lazily computed table entry (for tests and memory relief)."""
    _SUIT_CODE[1:] = [_UNKNOWN] * (NUM_SUIT_KEYS - 1)
    _SUIT_MASKS.clear()
    _HONOUR_MASKS.clear()
    for memo in (_SUIT_COVER, _HONOUR_COVER):
        memo.clear()
        memo[0] = _EMPTY_COVER
    _SPLITS.clear()


# ---------------------------------------------------------------------------
# Keys and the fast win checks
# ---------------------------------------------------------------------------


def suit_keys(counts: Sequence[int]) -> Keys:
    """The keys of the three suits and the honours of a count vector."""
    c = counts
    return (
        c[0] + 5 * c[1] + 25 * c[2] + 125 * c[3] + 625 * c[4]
        + 3125 * c[5] + 15625 * c[6] + 78125 * c[7] + 390625 * c[8],
        c[9] + 5 * c[10] + 25 * c[11] + 125 * c[12] + 625 * c[13]
        + 3125 * c[14] + 15625 * c[15] + 78125 * c[16] + 390625 * c[17],
        c[18] + 5 * c[19] + 25 * c[20] + 125 * c[21] + 625 * c[22]
        + 3125 * c[23] + 15625 * c[24] + 78125 * c[25] + 390625 * c[26],
        c[27] + 5 * c[28] + 25 * c[29] + 125 * c[30] + 625 * c[31]
        + 3125 * c[32] + 15625 * c[33],
    )  # fmt: skip


_KEY_STEP: Final = tuple((t // 9, POW5[t % 9]) if t < 27 else (3, POW5[t - 27]) for t in range(34))


def key_step(tile: int) -> tuple[int, int]:
    """``(component, step)``: adding one ``tile`` adds ``step`` to ``keys[component]``."""
    return _KEY_STEP[tile]


def update_keys(keys: Keys, tile: int, delta: int = 1) -> Keys:
    """The keys after adding ``delta`` copies of ``tile`` (negative to remove)."""
    comp, step = _KEY_STEP[tile]
    k = list(keys)
    k[comp] += delta * step
    return (k[0], k[1], k[2], k[3])


def _fill_codes(k0: int, k1: int, k2: int) -> int:
    return _suit_code(k0) + _suit_code(k1) + _suit_code(k2)


def is_win_keys(keys: Keys, wilds: int) -> bool:
    """Standard win (melds + one pair) from maintained keys: four table reads.

    The hand size need not be passed: each component's F0 already encodes its
    size mod 3, so the ``% 3`` test below rejects hands of the wrong size.
    """
    t = _SUIT_CODE
    s = t[keys[0]] + t[keys[1]] + t[keys[2]]
    if s >= _UNKNOWN:  # one sum test instead of three: any unknown entry overflows it
        s = _fill_codes(keys[0], keys[1], keys[2])
    s += _HONOUR_CODE[keys[3]]
    d = wilds - (s >> 3) - (2 if s & 7 == _ALL_COSTLY else -1)
    return d >= 0 and d % 3 == 0


def is_standard_win(counts: Sequence[int], wilds: int) -> bool:
    """Standard win: a pair and melds, with ``wilds`` wild tiles anywhere.

    Requires ``sum(counts) + wilds`` to be ``2 (mod 3)``; the wild tiles may
    form the pair and any number of all-wild melds.
    """
    c = counts
    t = _SUIT_CODE
    # Keys computed inline: this is the hot path, and a helper call (or going
    # through bytes and a dict, which was tried) costs as much again.
    k0 = (c[0] + 5 * c[1] + 25 * c[2] + 125 * c[3] + 625 * c[4]
          + 3125 * c[5] + 15625 * c[6] + 78125 * c[7] + 390625 * c[8])  # fmt: skip
    k1 = (c[9] + 5 * c[10] + 25 * c[11] + 125 * c[12] + 625 * c[13]
          + 3125 * c[14] + 15625 * c[15] + 78125 * c[16] + 390625 * c[17])  # fmt: skip
    k2 = (c[18] + 5 * c[19] + 25 * c[20] + 125 * c[21] + 625 * c[22]
          + 3125 * c[23] + 15625 * c[24] + 78125 * c[25] + 390625 * c[26])  # fmt: skip
    s = t[k0] + t[k1] + t[k2]
    if s >= _UNKNOWN:
        s = _fill_codes(k0, k1, k2)
    s += _HONOUR_CODE[c[27] + 5 * c[28] + 25 * c[29] + 125 * c[30] + 625 * c[31] + 3125 * c[32] + 15625 * c[33]]
    d = wilds - (s >> 3) - (2 if s & 7 == _ALL_COSTLY else -1)
    return d >= 0 and d % 3 == 0


def _codes(counts: Sequence[int]) -> tuple[Keys, tuple[int, int, int, int]]:
    keys = suit_keys(counts)
    t = _SUIT_CODE
    codes = (t[keys[0]], t[keys[1]], t[keys[2]], _HONOUR_CODE[keys[3]])
    if codes[0] == _UNKNOWN or codes[1] == _UNKNOWN or codes[2] == _UNKNOWN:
        codes = (_suit_code(keys[0]), _suit_code(keys[1]), _suit_code(keys[2]), codes[3])
    return keys, codes


def wilds_needed(counts: Sequence[int]) -> int:
    """The fewest wilds that complete the standard shape.

    The answer ``w`` always satisfies ``(sum(counts) + w) % 3 == 2``; with
    more wilds a hand wins exactly when it holds ``w + 3j`` of them (the
    extra ones form all-wild melds).
    """
    _, codes = _codes(counts)
    s = codes[0] + codes[1] + codes[2] + codes[3]
    return (s >> 3) + (2 if s & 7 == _ALL_COSTLY else -1)


# ---------------------------------------------------------------------------
# Waits
# ---------------------------------------------------------------------------

# Wait masks per key: (masks by budget when this component hosts the pair,
# masks by budget when it holds melds only, mask of every addable rank).
# "Budget" is the number of wilds the component may use after the tile is
# added; past the end of a tuple every addable rank qualifies.
_Masks = tuple[tuple[int, ...], tuple[int, ...], int]
_SUIT_MASKS: dict[int, _Masks] = {}
_HONOUR_MASKS: dict[int, _Masks] = {}


def _masks_from(values: list[tuple[int, int, int]]) -> _Masks:
    """``values`` holds (bit, F0 after adding, F1 after adding) per addable rank."""
    full = 0
    top = 0
    for bit, f0, f1 in values:
        full |= bit
        top = max(top, f0, f1)
    host = tuple(sum(bit for bit, _, f1 in values if f1 <= b) for b in range(top + 1))
    melds = tuple(sum(bit for bit, f0, _ in values if f0 <= b) for b in range(top + 1))
    return host, melds, full


def _suit_masks(key: int) -> _Masks:
    m = _SUIT_MASKS.get(key)
    if m is None:
        vals = []
        for r in range(9):
            if key // POW5[r] % 5 < 4:  # a fifth real copy cannot be drawn
                code = _suit_code(key + POW5[r])
                vals.append((1 << r, code >> 3, _code_f1(code)))
        m = _masks_from(vals)
        if len(_SUIT_MASKS) >= _CACHE_LIMIT:
            _SUIT_MASKS.clear()
        _SUIT_MASKS[key] = m
    return m


def _honour_masks(key: int) -> _Masks:
    m = _HONOUR_MASKS.get(key)
    if m is None:
        vals = []
        for r in range(7):
            if key // POW5[r] % 5 < 4:
                code = _HONOUR_CODE[key + POW5[r]]
                vals.append((1 << r, code >> 3, _code_f1(code)))
        m = _masks_from(vals)
        _HONOUR_MASKS[key] = m
    return m


def _mask_for(m: _Masks, host_budget: int, melds_budget: int) -> int:
    host, melds, full = m
    mask = 0
    if host_budget >= 0:
        mask = host[host_budget] if host_budget < len(host) else full
    if melds_budget >= 0:
        mask |= melds[melds_budget] if melds_budget < len(melds) else full
    return mask


_MASK_TILES: Final = tuple(
    tuple(tuple(base + r for r in range(9) if mask >> r & 1) for mask in range(512)) for base in (0, 9, 18, 27)
)


def waits(counts: Sequence[int], wilds: int, *, special: Sequence[WinForm] = ()) -> list[int]:
    """Tile kinds whose addition to a 3n+1 hand makes a win, in code order.

    A standard win always counts; ``special`` adds other forms (seven pairs
    and the like).  Kinds of which the hand already holds four real copies are
    left out.  Raises ``ValueError`` unless ``sum(counts) + wilds`` is 1 mod 3.
    """
    keys, codes = _codes(counts)
    size = sum(counts) + wilds
    if size % 3 != 1:
        raise ValueError(f"waits needs a 3n+1 hand, got {size} tiles")
    f = (codes[0] >> 3, codes[1] >> 3, codes[2] >> 3, codes[3] >> 3)
    total = f[0] + f[1] + f[2] + f[3]
    # How many components can host the pair for one wild *less* than melds-only.
    cheap = 4 - ((codes[0] & 1) + (codes[1] & 1) + (codes[2] & 1) + (codes[3] & 1))
    out: list[int] = []
    for comp in range(4):
        room = wilds - total + f[comp]  # wilds left for this component
        others_cheap = cheap - (0 if codes[comp] & 1 else 1)
        # Either this component takes the pair, or another does (for one wild
        # less than its melds-only need if it can, else two more for a wild pair).
        melds_budget = room + 1 if others_cheap else room - 2
        m = _honour_masks(keys[3]) if comp == 3 else _suit_masks(keys[comp])
        mask = _mask_for(m, room, melds_budget)
        if mask:
            out.extend(_MASK_TILES[comp][mask])
    for form in special:
        if isinstance(form, StandardForm):
            continue
        extra = form.waits(counts, wilds) if isinstance(form, _FAST_FORMS) else _waits_by_trial(form, counts, wilds)
        if extra:
            out = sorted(set(out).union(extra))
    return out


def _waits_by_trial(form: WinForm, counts: Sequence[int], wilds: int) -> list[int]:
    trial = list(counts)
    found = []
    for t in range(34):
        if trial[t] >= 4:
            continue
        trial[t] += 1
        if form.is_win(trial, wilds):
            found.append(t)
        trial[t] -= 1
    return found


# ---------------------------------------------------------------------------
# Shanten
# ---------------------------------------------------------------------------

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


def shanten_special(counts: Sequence[int], wilds: int, forms: Sequence[WinForm] | None = None) -> int:
    """The best shanten over special ``forms`` (default: seven pairs).

    Forms that do not fit the hand size count as :data:`UNREACHABLE`.
    """
    chosen = (SEVEN_PAIRS,) if forms is None else forms
    best = UNREACHABLE
    for form in chosen:
        if isinstance(form, _FAST_FORMS):
            best = min(best, form.shanten(counts, wilds))
        else:
            raise TypeError(f"form {form.name!r} has no shanten method")
    return best


# ---------------------------------------------------------------------------
# Win forms
# ---------------------------------------------------------------------------


class WinForm(Protocol):
    """A winning shape.  Special forms judge only fully concealed hands of
    their exact size, and answer False for anything else."""

    @property
    def name(self) -> str: ...

    def is_win(self, counts: Sequence[int], wilds: int) -> bool: ...


@dataclass(frozen=True, slots=True)
class StandardForm:
    """Melds and one pair, any size 3n+2."""

    name: str = "standard"

    def is_win(self, counts: Sequence[int], wilds: int) -> bool:
        return is_standard_win(counts, wilds)

    def waits(self, counts: Sequence[int], wilds: int) -> list[int]:
        return waits(counts, wilds)

    def shanten(self, counts: Sequence[int], wilds: int) -> int:
        return shanten(counts, wilds)


@dataclass(frozen=True, slots=True)
class PairsForm:
    """``pairs`` pairs plus ``singles`` loose tiles (seven pairs, 温州 八对).

    With ``four_as_two_pairs`` four of a kind counts as two pairs; without
    it every pair must be of a different kind (a wild cannot double an
    existing pair either, since it would then be the same kind).
    """

    name: str
    pairs: int
    singles: int = 0
    four_as_two_pairs: bool = True

    @property
    def size(self) -> int:
        return 2 * self.pairs + self.singles

    def _loose(self, counts: Sequence[int]) -> tuple[int, int, int]:
        """(kinds with an odd tile a wild may pair, tiles that can only be singles, real tiles)."""
        # Sequence.count and sum run in C for lists and tuples.
        if self.four_as_two_pairs:
            return counts.count(1) + counts.count(3), 0, sum(counts)
        return counts.count(1), counts.count(3) + 2 * counts.count(4), sum(counts)

    def _fits(self, odd: int, stuck: int, wilds: int) -> bool:
        free = self.singles - stuck
        return free >= 0 and max(0, odd - free) <= wilds

    def is_win(self, counts: Sequence[int], wilds: int) -> bool:
        # One pass with early exits: most hands that are not pairs hands
        # show too many odd kinds within the first few tiles, so rejecting
        # costs little next to the standard check it usually follows.
        limit = wilds + self.singles  # loose tiles that wilds or single slots absorb
        if limit == 0:
            # No room for any loose tile: `in` scans in C and stops at the
            # first hit, which for most hands is a single early on.
            if 1 in counts or 3 in counts or (not self.four_as_two_pairs and 4 in counts):
                return False
            return sum(counts) == self.size
        loose = real = 0
        if self.four_as_two_pairs:
            for x in counts:
                if x:
                    real += x
                    if x & 1:
                        loose += 1
                        if loose > limit:
                            return False
            return real + wilds == self.size
        stuck = 0
        for x in counts:
            if x:
                real += x
                if x == 1:
                    loose += 1
                elif x > 2:
                    # a third or fourth copy cannot pair (it would repeat a
                    # pair's kind): only a single slot takes it
                    stuck += x - 2
                    if stuck > self.singles:
                        return False
                if loose + stuck > limit:
                    return False
        return real + wilds == self.size

    def waits(self, counts: Sequence[int], wilds: int) -> list[int]:
        odd, stuck, real = self._loose(counts)
        if real + wilds + 1 != self.size:
            return []
        # Adding a tile changes only its own kind's class, so the answer
        # depends on the kind's count alone: judge each count once.
        wins = []
        for c in range(4):
            n_odd, n_stuck = odd, stuck
            if self.four_as_two_pairs:
                n_odd += 1 if c % 2 == 0 else -1
            elif c == 0:
                n_odd += 1
            elif c == 1:
                n_odd -= 1
            else:
                n_stuck += 1
            wins.append(self._fits(n_odd, n_stuck, wilds))
        return [t for t in range(34) if counts[t] < 4 and wins[counts[t]]]

    def shanten(self, counts: Sequence[int], wilds: int) -> int:
        size = sum(counts) + wilds
        if size not in (self.size - 1, self.size):
            return UNREACHABLE
        # Each pair slot covers up to two real tiles of one kind; a second
        # slot of the same kind only when four of a kind is two pairs.
        slots = []
        real = 0
        for c in counts:
            if c:
                real += c
                slots.append(min(c, 2))
                if c > 2 and self.four_as_two_pairs:
                    slots.append(min(c - 2, 2))
        slots.sort(reverse=True)
        covered = sum(slots[: self.pairs])
        covered += min(self.singles, real - covered)
        return self.size - 1 - wilds - covered


_ORPHANS: Final = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
_IS_ORPHAN: Final = tuple(t in _ORPHANS for t in range(34))


@dataclass(frozen=True, slots=True)
class ThirteenOrphansForm:
    """十三幺: one of each terminal and honour plus one more of them."""

    name: str = "thirteen_orphans"

    def is_win(self, counts: Sequence[int], wilds: int) -> bool:
        c = counts
        # Simples first: nearly every hand holds one, and `or` stops there.
        if (
            c[1] or c[2] or c[3] or c[4] or c[5] or c[6] or c[7]
            or c[10] or c[11] or c[12] or c[13] or c[14] or c[15] or c[16]
            or c[19] or c[20] or c[21] or c[22] or c[23] or c[24] or c[25]
        ):  # fmt: skip
            return False
        return sum(c) + wilds == 14 and max(c) <= 2 and c.count(2) <= 1

    def waits(self, counts: Sequence[int], wilds: int) -> list[int]:
        real = doubled = 0
        for t in range(34):
            c = counts[t]
            if c:
                if not _IS_ORPHAN[t] or c > 2:
                    return []
                real += c
                doubled += c - 1
        if real + wilds != 13 or doubled > 1:
            return []
        if doubled:
            return [t for t in _ORPHANS if counts[t] == 0]
        return list(_ORPHANS)

    def shanten(self, counts: Sequence[int], wilds: int) -> int:
        if sum(counts) + wilds not in (13, 14):
            return UNREACHABLE
        kinds = sum(1 for t in _ORPHANS if counts[t])
        pair = any(counts[t] >= 2 for t in _ORPHANS)
        return 13 - wilds - kinds - (1 if pair else 0)


STANDARD: Final = StandardForm()
SEVEN_PAIRS: Final = PairsForm("seven_pairs", 7, 0, four_as_two_pairs=True)
SEVEN_PAIRS_DISTINCT: Final = PairsForm("seven_pairs_distinct", 7, 0, four_as_two_pairs=False)
EIGHT_PAIRS_PLUS_ONE: Final = PairsForm("eight_pairs_plus_one", 8, 1, four_as_two_pairs=True)
THIRTEEN_ORPHANS: Final = ThirteenOrphansForm()

_FAST_FORMS: Final = (StandardForm, PairsForm, ThirteenOrphansForm)


def is_win(counts: Sequence[int], wilds: int, forms: Sequence[WinForm] = (STANDARD,)) -> bool:
    """Whether any of ``forms`` (a variant's list of winning shapes) wins."""
    return any(form.is_win(counts, wilds) for form in forms)


def substitute(counts: Sequence[int], from_kind: int, to_kind: int) -> list[int]:
    """A copy of ``counts`` with every ``from_kind`` counted as ``to_kind``.

    For rules where a stand-in tile (say 白板) plays the wild's face value.
    """
    out = list(counts)
    if from_kind != to_kind:
        out[to_kind] += out[from_kind]
        out[from_kind] = 0
    return out


# ---------------------------------------------------------------------------
# Decompositions
# ---------------------------------------------------------------------------

GroupKind = Literal["pair", "triplet", "sequence", "wild_pair", "wild_triplet"]


@dataclass(frozen=True, slots=True)
class Group:
    """One group of a decomposition.

    ``tiles`` are the faces the group shows, sorted; ``wild_as`` the faces
    played by wilds (a sub-multiset of ``tiles``).  Groups made only of wilds
    stay symbolic (``wild_pair`` / ``wild_triplet``, no faces): what they
    stand for is the scorer's choice.
    """

    kind: GroupKind
    tiles: tuple[int, ...] = ()
    wild_as: tuple[int, ...] = ()

    @property
    def wilds(self) -> int:
        if self.kind == "wild_pair":
            return 2
        if self.kind == "wild_triplet":
            return 3
        return len(self.wild_as)

    @property
    def real(self) -> tuple[int, ...]:
        """The real tiles in the group (faces minus the wild-played ones)."""
        out = list(self.tiles)
        for t in self.wild_as:
            out.remove(t)
        return tuple(out)


WILD_PAIR: Final = Group("wild_pair")
WILD_TRIPLET: Final = Group("wild_triplet")


@dataclass(frozen=True, slots=True)
class Decomposition:
    """A winning hand split into its pair and melds."""

    pair: Group
    melds: tuple[Group, ...]

    @property
    def groups(self) -> tuple[Group, ...]:
        return (self.pair, *self.melds)

    @property
    def wild_faces(self) -> tuple[int, ...]:
        """Faces played by wilds in concrete groups (symbolic groups excluded)."""
        return tuple(t for g in self.groups for t in g.wild_as)


@dataclass(frozen=True, slots=True)
class PartialDecomposition:
    """What a ``bound`` function sees during :func:`best_decomposition`.

    ``groups`` are fixed already: the symbolic all-wild groups first, then
    real groups in search order.  ``keys`` are the suit keys (see
    :func:`suit_keys`) of the real tiles not yet grouped, ``real_left`` their
    number, ``wilds_left`` the wilds they will absorb, and ``pair_placed``
    says whether the pair is among ``groups``.
    """

    groups: tuple[Group, ...]
    keys: Keys
    real_left: int
    wilds_left: int
    pair_placed: bool

    @property
    def remaining(self) -> list[int]:
        """The count vector of the real tiles not yet grouped."""
        out = []
        for comp, width in enumerate((9, 9, 9, 7)):
            k = self.keys[comp]
            for _ in range(width):
                out.append(k % 5)
                k //= 5
        return out


# The groups holding a given lowest real tile, built once: (group, key
# decrease for its real tiles, wilds, is the pair, real tiles, digit checks).
# Sharing these Group objects keeps the search free of per-node allocation
# beyond tuples.  Fewer wilds first: searches meet real-heavy readings early.
_Option = tuple[Group, int, int, bool, int, tuple[tuple[int, int], ...]]


def _build_options(comp: int, rank: int) -> tuple[_Option, ...]:
    t = comp * 9 + rank
    p = POW5[rank]
    opts: list[_Option] = []
    for a in (3, 2, 1):
        opts.append((Group("triplet", (t, t, t), (t,) * (3 - a)), a * p, 3 - a, False, a, ((p, a),)))
    for a in (2, 1):
        opts.append((Group("pair", (t, t), (t,) * (2 - a)), a * p, 2 - a, True, a, ((p, a),)))
    if comp < 3:
        for start in (rank - 2, rank - 1, rank):
            if not 0 <= start <= 6:
                continue
            above = [r for r in range(rank + 1, start + 3)]
            # Faces below `rank` are wilds (nothing real is lower); faces above
            # are real or wild in every combination.
            for mask in range(1 << len(above)):
                real = [r for i, r in enumerate(above) if mask >> i & 1]
                wild_as = tuple(comp * 9 + r for r in range(start, start + 3) if r != rank and r not in real)
                delta = p + sum(POW5[r] for r in real)
                checks = ((p, 1), *((POW5[r], 1) for r in real))
                faces = (comp * 9 + start, comp * 9 + start + 1, comp * 9 + start + 2)
                opts.append((Group("sequence", faces, wild_as), delta, len(wild_as), False, 1 + len(real), checks))
    opts.sort(key=lambda o: o[2])
    return tuple(opts)


_OPTIONS: Final = tuple(tuple(_build_options(comp, r) for r in range(7 if comp == 3 else 9)) for comp in range(4))


def _component_code(comp: int, key: int) -> int:
    return _HONOUR_CODE[key] if comp == 3 else _suit_code(key)


def _feasible(comp: int, key: int, n: int, pair: bool, u: int) -> bool:
    """Can ``n`` real tiles (``key``) be grouped using exactly ``u`` wilds?

    Every group holds a real tile, so at most two wilds per tile (one less
    with a pair); and any count from the table minimum up to that, in steps
    of three, is reachable by splitting a group with two real tiles.
    """
    if key == 0:
        return u == 0 and not pair
    code = _HONOUR_CODE[key] if comp == 3 else _suit_code(key)
    need = (code >> 3) + ((2 if code & 1 else -1) if pair else 0)
    return need <= u <= 2 * n - pair and (u - need) % 3 == 0


def _lowest(key: int) -> tuple[int, int]:
    rank = 0
    p = 1
    while key // p % 5 == 0:
        p *= 5
        rank += 1
    return rank, p


_SuitSplits = tuple[tuple[Group, ...], ...]
_SPLITS: dict[tuple[int, int, bool, int, int], _SuitSplits] = {}


def _splits(comp: int, key: int, n: int, pair: bool, u: int, start: int) -> _SuitSplits:
    """Every split of one component's real tiles into groups using exactly
    ``u`` wilds (each group with a real tile; all-wild groups are added
    symbolically elsewhere).  The caller has checked feasibility.

    Each split comes out once: groups are taken in order of their lowest real
    tile, and groups sharing it in option order (``start``), so the same
    multiset is never built twice.  Memoised, since hands share sub-shapes.
    """
    if key == 0:
        return ((),)
    memo_key = (comp * NUM_SUIT_KEYS + key, n, pair, u, start)
    hit = _SPLITS.get(memo_key)
    if hit is not None:
        return hit
    rank, p = _lowest(key)
    opts = _OPTIONS[comp][rank]
    out: list[tuple[Group, ...]] = []
    for idx in range(start, len(opts)):
        group, delta, w, is_pair, real, checks = opts[idx]
        if w > u or (is_pair and not pair):
            continue
        if any(key // pw % 5 < need for pw, need in checks):
            continue
        sub = key - delta
        sub_pair = pair and not is_pair
        if not _feasible(comp, sub, n - real, sub_pair, u - w):
            continue
        for rest in _splits(comp, sub, n - real, sub_pair, u - w, idx if sub // p % 5 else 0):
            out.append((group, *rest))
    result = tuple(out)
    # Split lists can run to thousands of tuples each (many wilds), so this
    # cache gets a tighter bound than the others.
    if len(_SPLITS) >= _CACHE_LIMIT >> 4:
        _SPLITS.clear()
    _SPLITS[memo_key] = result
    return result


_Plan = tuple[int, tuple[int, ...], int]  # (pair host or -1 for a wild pair, wilds per component, wild triplets)


def _plans(keys: Keys, comps: list[int], sizes: list[int], wilds: int) -> list[_Plan]:
    """Ways to share the wilds among the non-empty components (the pair in
    one of them, or made of wilds); fewest wilds inside real groups first."""
    plans: list[_Plan] = []
    for host in [*range(len(comps)), -1]:
        budget = wilds - (2 if host == -1 else 0)
        if budget < 0:
            continue
        options: list[range] = []
        for i, comp in enumerate(comps):
            code = _component_code(comp, keys[comp])
            need = _code_f1(code) if i == host else code >> 3
            top = min(budget, 2 * sizes[i] - (i == host))
            options.append(range(need, top + 1, 3))
        # At most four components with a handful of choices each: a plain
        # product is small, and the size rule makes the leftover a multiple
        # of three whenever it is not negative.
        for us in itertools.product(*options):
            left = budget - sum(us)
            if left >= 0:
                plans.append((host, us, left // 3))
    plans.sort(key=lambda pl: (sum(pl[1]), pl[0] == -1))
    return plans


def _prepare(counts: Sequence[int], wilds: int) -> tuple[Keys, list[int], list[int]] | None:
    if len(counts) != 34 or wilds < 0 or any(not 0 <= c <= 4 for c in counts):
        raise ValueError("counts must be 34 numbers in 0..4 and wilds non-negative")
    if not is_standard_win(counts, wilds):
        return None
    keys = suit_keys(counts)
    comps = [c for c in range(4) if keys[c]]
    sizes = [_key_tiles(keys[c]) for c in comps]
    return keys, comps, sizes


def _assemble(groups: Sequence[Group], symbolic: tuple[Group, ...]) -> Decomposition:
    pair = WILD_PAIR
    melds: list[Group] = []
    for g in groups:
        if g.kind == "pair":
            pair = g
        else:
            melds.append(g)
    return Decomposition(pair, (*melds, *symbolic))


def decompositions(counts: Sequence[int], wilds: int) -> Iterator[Decomposition]:
    """Every distinct way to read a winning hand as a pair and melds.

    A wild inside a group with real tiles is given a face (each choice is a
    separate decomposition); groups of wilds only stay symbolic, so many wilds
    do not multiply the output.  Yields nothing for a hand that does not win.
    Melds come in suit order, then the symbolic ones.
    """
    prepared = _prepare(counts, wilds)
    if prepared is None:
        return
    keys, comps, sizes = prepared
    for host, us, n_triplets in _plans(keys, comps, sizes, wilds):
        lists = []
        for i, comp in enumerate(comps):
            if not _feasible(comp, keys[comp], sizes[i], i == host, us[i]):
                break
            lists.append(_splits(comp, keys[comp], sizes[i], i == host, us[i], 0))
        else:
            symbolic = (WILD_TRIPLET,) * n_triplets
            for parts in itertools.product(*lists):
                yield _assemble([g for part in parts for g in part], symbolic)


def best_decomposition(
    counts: Sequence[int],
    wilds: int,
    score: Callable[[Decomposition], float],
    bound: Callable[[PartialDecomposition], float] | None = None,
) -> Decomposition | None:
    """The highest-scoring decomposition (the first found among equals), or
    None when the hand does not win.

    Without ``bound`` every decomposition is scored.  ``bound``, if given,
    must never underestimate the best score reachable from a partial
    decomposition; the search then goes group by group (each step checked
    against the tables, so there are no dead ends) and drops any branch the
    bound rates no better than the best found so far.  Plans that put fewer
    wilds into real groups come first, which is where wild-penalising scores
    peak, so the cut-off rises early.
    """
    if bound is None:
        best: Decomposition | None = None
        best_score = -math.inf
        for d in decompositions(counts, wilds):
            s = score(d)
            if s > best_score:
                best, best_score = d, s
        return best
    prepared = _prepare(counts, wilds)
    if prepared is None:
        return None
    return _Search(score, bound, *prepared).run(wilds)


class _Search:
    """Branch and bound over groups for :func:`best_decomposition`."""

    def __init__(
        self,
        score: Callable[[Decomposition], float],
        bound: Callable[[PartialDecomposition], float],
        keys: Keys,
        comps: list[int],
        sizes: list[int],
    ) -> None:
        self.score = score
        self.bound = bound
        self.keys = keys
        self.comps = comps
        self.sizes = sizes
        self.best: Decomposition | None = None
        self.best_score = -math.inf
        self.us: tuple[int, ...] = ()
        self.host = -1
        self.symbolic: tuple[Group, ...] = ()

    def run(self, wilds: int) -> Decomposition | None:
        for host, us, n_triplets in _plans(self.keys, self.comps, self.sizes, wilds):
            self.host, self.us = host, us
            self.symbolic = (WILD_TRIPLET,) * n_triplets
            fixed = (WILD_PAIR, *self.symbolic) if host == -1 else self.symbolic
            partial = PartialDecomposition(fixed, self.keys, sum(self.sizes), sum(us), host == -1)
            if self.bound(partial) <= self.best_score:
                continue
            if all(_feasible(c, self.keys[c], self.sizes[i], i == host, us[i]) for i, c in enumerate(self.comps)):
                self._walk(0, self.keys[self.comps[0]], self.sizes[0], host == 0, us[0], 0, fixed, list(self.keys))
        return self.best

    def _walk(
        self,
        ci: int,
        key: int,
        n: int,
        pair: bool,
        u: int,
        start: int,
        groups: tuple[Group, ...],
        keys: list[int],
    ) -> None:
        comps = self.comps
        if key == 0:
            ci += 1
            if ci == len(comps):
                d = _assemble(groups[len(self.symbolic) + (self.host == -1) :], self.symbolic)
                s = self.score(d)
                if s > self.best_score:
                    self.best, self.best_score = d, s
                return
            comp = comps[ci]
            self._walk(ci, keys[comp], self.sizes[ci], self.host == ci, self.us[ci], 0, groups, keys)
            return
        comp = comps[ci]
        rank, p = _lowest(key)
        opts = _OPTIONS[comp][rank]
        later_real = sum(self.sizes[ci + 1 :])
        later_wilds = sum(self.us[ci + 1 :])
        for idx in range(start, len(opts)):
            group, delta, w, is_pair, real, checks = opts[idx]
            if w > u or (is_pair and not pair):
                continue
            if any(key // pw % 5 < need for pw, need in checks):
                continue
            sub = key - delta
            sub_pair = pair and not is_pair
            if not _feasible(comp, sub, n - real, sub_pair, u - w):
                continue
            nxt = (*groups, group)
            keys[comp] = sub
            placed = self.host == -1 or self.host < ci or (self.host == ci and not sub_pair)
            partial = PartialDecomposition(
                nxt,
                (keys[0], keys[1], keys[2], keys[3]),
                n - real + later_real,
                u - w + later_wilds,
                placed,
            )
            if self.bound(partial) > self.best_score:
                self._walk(ci, sub, n - real, sub_pair, u - w, idx if sub // p % 5 else 0, nxt, keys)
            keys[comp] = key
