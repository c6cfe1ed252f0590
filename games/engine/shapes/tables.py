"""The per-component tables the shape checks read: F0/F1 codes by suit and honour key.

See the package docstring (:mod:`games.engine.shapes`) for why the tables exist.
"""

from __future__ import annotations

from typing import Final

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
