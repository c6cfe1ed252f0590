"""Decompositions of a hand into groups, and the best-score search over them."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from games.engine.shapes.keys import is_standard_win, suit_keys
from games.engine.shapes.tables import (
    _CACHE_LIMIT,
    _HONOUR_CODE,
    NUM_SUIT_KEYS,
    POW5,
    Keys,
    _code_f1,
    _key_tiles,
    _suit_code,
)

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
