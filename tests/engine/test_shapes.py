"""Tests for games.engine.shapes against slow, obviously-correct references.

The references below search exhaustively and share no code with the
table-driven module: a win is "some way to place every real tile in a group,
trying every group and every real/wild choice", a wait is "adding it wins",
shanten is "drop the fewest real tiles so that wilds and free draws complete
the hand", and a decomposition set is built by giving every wild every
plausible face and splitting the resulting concrete hand.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import shapes as S
from games.engine.shapes.tables import _suit_code
from games.engine.tiles import parse_tiles, to_counts

Counts = tuple[int, ...]

# ---------------------------------------------------------------------------
# References
# ---------------------------------------------------------------------------


def _templates(face: int) -> list[tuple[str, tuple[int, ...]]]:
    """Every group shape (kind, faces) that contains ``face``."""
    out: list[tuple[str, tuple[int, ...]]] = [("pair", (face, face)), ("triplet", (face, face, face))]
    if face < 27:
        suit, rank = divmod(face, 9)
        for start in range(rank - 2, rank + 1):
            if 0 <= start <= 6:
                out.append(("sequence", tuple(suit * 9 + start + i for i in range(3))))
    return out


@cache
def ref_win(counts: Counts, wilds: int, need_pair: bool = True) -> bool:
    """Standard win by exhaustive search: the lowest real tile sits in some
    group; every other face of that group is a real tile or a wild."""
    first = next((t for t, c in enumerate(counts) if c), None)
    if first is None:
        if need_pair:
            return wilds >= 2 and (wilds - 2) % 3 == 0
        return wilds % 3 == 0
    for kind, faces in _templates(first):
        if kind == "pair" and not need_pair:
            continue
        others = list(faces)
        others.remove(first)
        # every real/wild choice for the other faces
        for choice in itertools.product((True, False), repeat=len(others)):
            c = list(counts)
            c[first] -= 1
            w = wilds
            ok = True
            for face, real in zip(others, choice, strict=True):
                if real:
                    if c[face] == 0:
                        ok = False
                        break
                    c[face] -= 1
                else:
                    w -= 1
            if ok and w >= 0 and ref_win(tuple(c), w, need_pair and kind != "pair"):
                return True
    return False


def concrete_win(counts: Sequence[int]) -> bool:
    """No-wild standard win, the textbook recursion (counts may exceed 4)."""

    def melds(c: list[int]) -> bool:
        i = next((t for t, n in enumerate(c) if n), None)
        if i is None:
            return True
        if c[i] >= 3:
            c[i] -= 3
            ok = melds(c)
            c[i] += 3
            if ok:
                return True
        if i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
            for k in (i, i + 1, i + 2):
                c[k] -= 1
            ok = melds(c)
            for k in (i, i + 1, i + 2):
                c[k] += 1
            if ok:
                return True
        return False

    c = list(counts)
    if sum(c) % 3 != 2:
        return False
    for t in range(34):
        if c[t] >= 2:
            c[t] -= 2
            ok = melds(c)
            c[t] += 2
            if ok:
                return True
    return False


def win_by_assignment(counts: Sequence[int], wilds: int) -> bool:
    """Standard win by giving each wild every possible face."""
    for faces in itertools.combinations_with_replacement(range(34), wilds):
        c = list(counts)
        for f in faces:
            c[f] += 1
        if concrete_win(c):
            return True
    return False


def ref_waits(counts: Counts, wilds: int, forms: Sequence[S.WinForm] = ()) -> list[int]:
    out = []
    for t in range(34):
        if counts[t] >= 4:
            continue
        c = list(counts)
        c[t] += 1
        tc = tuple(c)
        if ref_win(tc, wilds) or any(ref_special(f, tc, wilds) for f in forms):
            out.append(t)
    return out


def sub_multisets(counts: Counts, size: int) -> Iterator[Counts]:
    """Every sub-multiset of ``counts`` with ``size`` tiles."""
    kinds = [t for t, c in enumerate(counts) if c]

    def rec(i: int, left: int, acc: list[int]) -> Iterator[Counts]:
        if i == len(kinds):
            if left == 0:
                yield tuple(acc)
            return
        t = kinds[i]
        for take in range(min(counts[t], left) + 1):
            acc[t] = take
            yield from rec(i + 1, left - take, acc)
        acc[t] = 0

    yield from rec(0, size, [0] * 34)


def ref_shanten(counts: Counts, wilds: int) -> int:
    """Fewest real tiles to give up so that wilds plus free draws complete the
    hand; minus one (so a complete hand is -1, a ready one 0)."""
    real = sum(counts)
    size = real + wilds
    full = size if size % 3 == 2 else size + 1
    for dropped in range(real + 1):
        for kept in sub_multisets(counts, real - dropped):
            if ref_win(kept, full - (real - dropped)):
                return full - wilds - (real - dropped) - 1
    raise AssertionError("unreachable: all-joker hands always win")


def ref_special(form: S.WinForm, counts: Counts, wilds: int) -> bool:
    """Special forms by brute force over the faces of the wilds."""
    if isinstance(form, S.PairsForm):
        return ref_pairs(counts, wilds, form.pairs, form.singles, form.four_as_two_pairs)
    if isinstance(form, S.ThirteenOrphansForm):
        return ref_orphans(counts, wilds)
    raise TypeError(form)


ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


def ref_orphans(counts: Counts, wilds: int) -> bool:
    """Thirteen orphans: every real tile a terminal or honour, no kind more
    than twice, at most one kind twice; wilds fill the missing kinds."""
    if sum(counts) + wilds != 14:
        return False
    if any(counts[t] for t in range(34) if t not in ORPHANS):
        return False
    return max(counts) <= 2 and sum(1 for c in counts if c == 2) <= 1


def orphans_by_assignment(counts: Counts, wilds: int) -> bool:
    if sum(counts) + wilds != 14:
        return False
    # A wild on a non-orphan face can never help, so orphan faces suffice.
    for faces in itertools.combinations_with_replacement(ORPHANS, wilds):
        c = list(counts)
        for f in faces:
            c[f] += 1
        if sum(c[t] for t in ORPHANS) == 14 and all(c[t] >= 1 for t in ORPHANS):
            return True
    return False


@cache
def ref_pairs(counts: Counts, wilds: int, pairs: int, singles: int, four_ok: bool) -> bool:
    """Place every real tile: with a real twin, with a wild, or as a single.
    Without ``four_ok`` no kind may make two pairs (a wild standing beside
    a real tile has that tile's kind; pairs of wilds take fresh kinds)."""
    if sum(counts) + wilds != 2 * pairs + singles:
        return False

    def rec(t: int, pairs_left: int, singles_left: int, w: int) -> bool:
        if t == 34:
            # leftover wilds: pairs of wilds and lone wild singles
            return w == 2 * pairs_left + singles_left and pairs_left >= 0 and singles_left >= 0
        c = counts[t]
        for real_pairs in range(c // 2 + 1):
            for wild_pairs in range(c - 2 * real_pairs + 1):
                single = c - 2 * real_pairs - wild_pairs
                if single > singles_left or wild_pairs > w:
                    continue
                if not four_ok and real_pairs + wild_pairs > 1:
                    continue
                if rec(t + 1, pairs_left - real_pairs - wild_pairs, singles_left - single, w - wild_pairs):
                    return True
        return False

    return rec(0, pairs, singles, wilds)


# --- decompositions by wild assignment -------------------------------------

Canon = tuple[S.Group, tuple[S.Group, ...]]


def canon(d: S.Decomposition) -> Canon:
    return d.pair, tuple(sorted(d.melds, key=lambda g: (g.kind, g.tiles, g.wild_as)))


def concrete_splits(real: list[int], wild: list[int], pair_used: bool) -> Iterator[list[S.Group]]:
    """Every split of a concrete hand (``real``/``wild`` copies per face)."""
    f = next((t for t in range(34) if real[t] or wild[t]), None)
    if f is None:
        if pair_used:
            yield []
        return
    shapes: list[tuple[S.GroupKind, tuple[int, ...]]] = [("triplet", (f, f, f))]
    if not pair_used:
        shapes.append(("pair", (f, f)))
    if f < 27 and f % 9 <= 6:
        shapes.append(("sequence", (f, f + 1, f + 2)))
    for kind, faces in shapes:
        for mask in itertools.product((True, False), repeat=len(faces)):  # True = a wild copy
            r, w = real[:], wild[:]
            ok = True
            for face, is_wild in zip(faces, mask, strict=True):
                pool = w if is_wild else r
                if pool[face] == 0:
                    ok = False
                    break
                pool[face] -= 1
            if not ok:
                continue
            if all(mask):
                group = S.Group("wild_pair") if kind == "pair" else S.Group("wild_triplet")
            else:
                group = S.Group(kind, faces, tuple(x for x, m in zip(faces, mask, strict=True) if m))
            for rest in concrete_splits(r, w, pair_used or kind == "pair"):
                yield [group, *rest]


def ref_decompositions(counts: Counts, wilds: int) -> set[Canon]:
    near = set()
    for t, c in enumerate(counts):
        if c:
            if t >= 27:
                near.add(t)
            else:
                near.update(u for u in range(t - 2, t + 3) if u // 9 == t // 9)
    # one far face stands for what all-wild groups play (they are symbolic)
    far = next(t for t in range(33, -1, -1) if not any(counts[u] for u in range(max(0, t - 2), min(34, t + 3))))
    faces = sorted(near | {far})
    out: set[Canon] = set()
    for assign in itertools.combinations_with_replacement(faces, wilds):
        w = [0] * 34
        for a in assign:
            w[a] += 1
        for groups in concrete_splits(list(counts), w, False):
            pair = next(g for g in groups if g.kind in ("pair", "wild_pair"))
            melds = list(groups)
            melds.remove(pair)
            out.add((pair, tuple(sorted(melds, key=lambda g: (g.kind, g.tiles, g.wild_as)))))
    return out


def valid_decomposition(d: S.Decomposition, counts: Counts, wilds: int) -> bool:
    real = [0] * 34
    used = 0
    for i, g in enumerate(d.groups):
        if (g.kind in ("pair", "wild_pair")) != (i == 0):
            return False
        used += g.wilds
        if g.kind in ("wild_pair", "wild_triplet"):
            if g.tiles or g.wild_as:
                return False
            continue
        t = g.tiles
        if g.kind == "pair" and not (len(t) == 2 and t[0] == t[1]):
            return False
        if g.kind == "triplet" and not (len(t) == 3 and t[0] == t[1] == t[2]):
            return False
        if g.kind == "sequence" and not (
            len(t) == 3 and t[0] < 27 and t[0] % 9 <= 6 and t[1] == t[0] + 1 and t[2] == t[0] + 2
        ):
            return False
        if len(g.wild_as) >= len(t):
            return False  # a concrete group keeps at least one real tile
        for x in g.real:
            real[x] += 1
    return used == wilds and tuple(real) == counts


# ---------------------------------------------------------------------------
# Hand generators
# ---------------------------------------------------------------------------


def random_hand(rng: random.Random, size: int, wilds: int, kinds: Sequence[int] = range(34)) -> Counts:
    """``size`` tiles in all (``wilds`` of them wild) from the given kinds."""
    pool = [t for t in kinds for _ in range(4)]
    c = [0] * 34
    for t in rng.sample(pool, size - wilds):
        c[t] += 1
    return tuple(c)


def winning_hand(rng: random.Random, melds: int, wilds: int, kinds: Sequence[int] = range(34)) -> Counts:
    """A winning shape built group by group, then ``wilds`` real tiles taken
    out (they become the wilds)."""
    while True:
        c = [0] * 34
        kinds_l = list(kinds)
        p = rng.choice(kinds_l)
        c[p] += 2
        for _ in range(melds):
            t = rng.choice(kinds_l)
            if t < 27 and t % 9 <= 6 and rng.random() < 0.6:
                for k in (t, t + 1, t + 2):
                    c[k] += 1
            else:
                c[t] += 3
        if max(c) > 4:
            continue
        tiles = [t for t in range(34) for _ in range(c[t])]
        for t in rng.sample(tiles, min(wilds, len(tiles))):
            c[t] -= 1
        return tuple(c)


def mixed_hands(seed: int, n: int, sizes: Sequence[int], max_wilds: int) -> list[tuple[Counts, int]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        size = rng.choice(sizes)
        w = rng.randint(0, min(max_wilds, size))
        kinds: Sequence[int] = range(34)
        if i % 3 == 1:  # concentrated in one suit (flush-like)
            s = rng.randrange(3)
            kinds = range(9 * s, 9 * s + 9)
        if i % 2 == 0 and size % 3 == 2:
            out.append((winning_hand(rng, size // 3, w, kinds), w))
        else:
            out.append((random_hand(rng, size, w, kinds), w))
    return out


def counts_of(text: str) -> Counts:
    return tuple(to_counts(parse_tiles(text)))


# ---------------------------------------------------------------------------
# Fixed examples
# ---------------------------------------------------------------------------


def test_nine_gates_waits_on_all_nine_man() -> None:
    assert S.waits(counts_of("1112345678999m"), 0) == list(range(9))


def test_nine_gates_is_ready_and_each_wait_wins() -> None:
    c = counts_of("1112345678999m")
    assert S.shanten(c, 0) == 0
    for t in range(9):
        c2 = list(c)
        c2[t] += 1
        assert S.is_standard_win(c2, 0)


def test_nine_gates_with_a_wild_wins() -> None:
    c = counts_of("1112345678999m")
    assert S.is_standard_win(c, 1)
    assert S.wilds_needed(c) == 1
    # every decomposition plays the wild as a man tile
    for d in S.decompositions(c, 1):
        assert all(0 <= t <= 8 for t in d.wild_faces) and len(d.wild_faces) == 1


def test_wild_pair_and_wild_melds() -> None:
    c = counts_of("123m 456p 789s")
    assert S.is_standard_win(c, 2)  # the pair is two wilds
    assert S.is_standard_win(c, 5)  # and a wild meld
    ds = list(S.decompositions(c, 2))
    assert S.Decomposition(S.WILD_PAIR, tuple(S.Group("sequence", (t, t + 1, t + 2)) for t in (0, 12, 24))) in ds


def test_single_wild_completes_pair() -> None:
    c = counts_of("123m456s789p EEE 4p")
    assert S.is_standard_win(c, 1)
    assert not S.is_standard_win(c, 0)
    assert S.waits(c, 0) == [12]  # 4p
    assert S.wilds_needed(c) == 1
    (d,) = list(S.decompositions(c, 1))
    assert d.pair == S.Group("pair", (12, 12), (12,))


def test_lone_wild_waits_on_everything() -> None:
    c = counts_of("123m456s789p EEE")
    assert S.waits(c, 1) == list(range(34))
    c4 = counts_of("123m456s789p EEEE")  # four real E: E cannot be drawn again
    assert S.waits(c4, 0) == []


def test_four_copies_are_excluded_from_waits() -> None:
    c = counts_of("1111m 23m")  # 6 tiles + 1 wild = 7 = 3n+1
    assert 0 not in S.waits(c, 1)
    assert S.waits(c, 1) == ref_waits(c, 1)


def test_all_wild_hands() -> None:
    empty = (0,) * 34
    assert S.is_standard_win(empty, 2)
    assert S.is_standard_win(empty, 5)
    assert S.is_standard_win(empty, 8)
    assert not S.is_standard_win(empty, 3)
    assert S.waits(empty, 1) == list(range(34))
    assert [d for d in S.decompositions(empty, 8)] == [S.Decomposition(S.WILD_PAIR, (S.WILD_TRIPLET, S.WILD_TRIPLET))]


def test_size_rule() -> None:
    c = counts_of("123m")
    assert not S.is_standard_win(c, 0)
    assert not S.is_standard_win(c, 1)
    assert S.is_standard_win(c, 2)
    assert not S.is_standard_win(c, 3)
    assert S.is_standard_win(c, 5)
    with pytest.raises(ValueError):
        S.waits(c, 0)
    with pytest.raises(ValueError):
        S.shanten(c, 0)


def test_keys_incremental() -> None:
    c = list(counts_of("1112345678999m 55p 789s EE"))
    keys = S.suit_keys(c)
    for t in (4, 13, 20, 27, 33):
        keys = S.update_keys(keys, t)
        c[t] += 1
        assert keys == S.suit_keys(c)
    comp, step = S.key_step(13)
    assert (comp, step) == (1, 625)
    assert S.update_keys(keys, 13, -1) == S.suit_keys([*c[:13], c[13] - 1, *c[14:]])


def test_is_win_keys_matches_counts() -> None:
    for counts, w in mixed_hands(11, 400, range(2, 18), 8):
        assert S.is_win_keys(S.suit_keys(counts), w) == S.is_standard_win(counts, w)


def test_seventeen_tile_hand() -> None:
    c = counts_of("123m 456m 789m 123p 456p 55s")
    assert S.is_standard_win(c, 0)
    assert S.shanten(c, 0) == -1


def test_substitute() -> None:
    c = counts_of("45m P 99m")
    assert not S.is_standard_win(c, 0)
    out = S.substitute(c, 33, 5)  # 白板 played as 6m, the wild's face
    assert out[33] == 0 and out[5] == 1
    assert S.is_standard_win(out, 0)
    assert S.substitute(c, 33, 33) == list(c)


def test_special_forms_examples() -> None:
    seven = counts_of("1122m 3344p 55s EE CC")
    assert S.SEVEN_PAIRS.is_win(seven, 0)
    four = counts_of("1111m 3344p 55s EE CC")
    assert S.SEVEN_PAIRS.is_win(four, 0)
    assert not S.SEVEN_PAIRS_DISTINCT.is_win(four, 0)
    assert S.SEVEN_PAIRS.is_win(counts_of("1122m 3344p 55s EE C"), 1)
    assert not S.SEVEN_PAIRS.is_win(counts_of("1122m 3344p 55s EE"), 0)  # 12 tiles
    eight = counts_of("1122m 3344p 5566s EE SS C")
    assert S.EIGHT_PAIRS_PLUS_ONE.is_win(eight, 0)
    assert S.EIGHT_PAIRS_PLUS_ONE.waits(counts_of("1122m 3344p 5566s EE SS"), 0) == list(range(34))
    orphans = counts_of("19m19p19s ESWNCF P")
    assert not S.THIRTEEN_ORPHANS.is_win(orphans, 0)
    assert S.THIRTEEN_ORPHANS.waits(orphans, 0) == list(ORPHANS)
    assert S.THIRTEEN_ORPHANS.is_win(counts_of("19m19p19s ESWNC PP"), 1)
    assert S.waits(orphans, 0, special=[S.THIRTEEN_ORPHANS]) == list(ORPHANS)
    assert S.shanten_special(orphans, 0, [S.THIRTEEN_ORPHANS]) == 0
    assert S.shanten_special(counts_of("1122m 3344p 55s EE C"), 0) == 0
    assert S.shanten_special(counts_of("123m"), 0) == S.UNREACHABLE


def test_custom_form_uses_trial_waits() -> None:
    class AllHonours:
        name = "all_honours_pairs"

        def is_win(self, counts: Sequence[int], wilds: int) -> bool:
            return sum(counts[:27]) == 0 and S.SEVEN_PAIRS.is_win(counts, wilds)

    c = counts_of("EESSWWNNCCFFP")
    assert S.waits(c, 0, special=[AllHonours()]) == [33]


def test_shanten_examples() -> None:
    assert S.shanten(counts_of("19m19p19s ESWNCFP"), 0) == 8
    assert S.shanten(counts_of("123m456p789s EEE C"), 0) == 0
    assert S.shanten(counts_of("123m456p789s EEE C"), 1) == -1
    assert S.shanten(counts_of("123m456p789s EE C"), 1) == 0
    # five isolated tiles, one meld and a pair: keep two, exchange three
    assert S.shanten(counts_of("1m 5p 9s E C"), 0) == 2
    assert S.shanten(counts_of("123m"), 1) == 0
    assert S.shanten((0,) * 34, 1) == 0
    assert S.shanten((0,) * 34, 2) == -1


def test_decomposition_examples() -> None:
    # 11 2 + wild: pair 11 with 2 + W in a sequence 123 or 234 ... or 222
    ds = {canon(d) for d in S.decompositions(counts_of("112m"), 2)}
    assert ds == ref_decompositions(counts_of("112m"), 2)
    ds2 = list(S.decompositions(counts_of("111222333m EE"), 0))
    assert len(ds2) == 2  # three triplets, or three 123 sequences


# ---------------------------------------------------------------------------
# Random comparisons
# ---------------------------------------------------------------------------


def test_win_matches_reference_on_random_hands() -> None:
    hands = mixed_hands(1, 3000, [2, 5, 8, 11, 14, 17], 8)
    wins = 0
    for counts, w in hands:
        got = S.is_standard_win(counts, w)
        assert got == ref_win(counts, w), (counts, w)
        wins += got
    assert 800 < wins < 2500  # both outcomes well represented


def test_reference_agrees_with_wild_assignment() -> None:
    rng = random.Random(5)
    for _ in range(250):
        size = rng.choice([2, 5, 8, 11, 14])
        w = rng.randint(0, 2)
        counts = winning_hand(rng, size // 3, w) if rng.random() < 0.5 else random_hand(rng, size, w)
        assert ref_win(counts, w) == win_by_assignment(counts, w), (counts, w)


def test_wilds_needed_matches_reference() -> None:
    rng = random.Random(2)
    for _ in range(300):
        counts = random_hand(rng, rng.randint(1, 13), 0)
        need = S.wilds_needed(counts)
        assert (sum(counts) + need) % 3 == 2
        assert ref_win(counts, need)
        if need >= 3:
            assert not ref_win(counts, need - 3)


def test_waits_match_reference() -> None:
    hands = mixed_hands(3, 300, [1, 4, 7, 10, 13, 16], 8)
    for counts, w in hands:
        assert S.waits(counts, w) == ref_waits(counts, w), (counts, w)


def test_waits_with_special_forms_match_reference() -> None:
    rng = random.Random(4)
    forms13: list[S.WinForm] = [S.SEVEN_PAIRS, S.SEVEN_PAIRS_DISTINCT, S.THIRTEEN_ORPHANS]
    for i in range(100):
        w = rng.randint(0, 3)
        if i % 4 == 0:
            counts = random_hand(rng, 13, w, ORPHANS)
        elif i % 4 == 1:  # pair-rich hands so seven pairs matters
            c = [0] * 34
            for t in rng.sample(range(34), 7):
                c[t] = 2
            c[rng.choice([t for t in range(34) if c[t]])] -= 1
            for t in rng.sample([t for t in range(34) if c[t]], w):
                c[t] -= 1
            counts = tuple(c)
        else:
            counts = random_hand(rng, 13, w)
        for form in forms13:
            assert S.waits(counts, w, special=[form]) == ref_waits(counts, w, [form]), (counts, w, form)
    for _ in range(60):
        w = rng.randint(0, 4)
        c = [0] * 34
        for t in rng.sample(range(34), 8):
            c[t] = 2
        for t in rng.sample([t for t in range(34) if c[t]], w):
            c[t] -= 1
        counts = tuple(c)
        got = S.waits(counts, w, special=[S.EIGHT_PAIRS_PLUS_ONE])
        assert got == ref_waits(counts, w, [S.EIGHT_PAIRS_PLUS_ONE]), (counts, w)


def test_special_references_agree_with_wild_assignment() -> None:
    """The logical references against giving each wild every face."""

    def concrete_pairs(c: list[int], pairs: int, singles: int, four_ok: bool) -> bool:
        if sum(c) != 2 * pairs + singles or sum(x % 2 for x in c) != singles:
            return False
        return four_ok or all(x <= 3 for x in c)

    rng = random.Random(16)
    for _ in range(150):
        w = rng.randint(0, 2)
        counts = random_hand(rng, 14, w, ORPHANS if rng.random() < 0.8 else range(34))
        assert ref_orphans(counts, w) == orphans_by_assignment(counts, w)
        for pairs, singles, four_ok in ((7, 0, True), (7, 0, False), (8, 1, True), (8, 1, False)):
            counts = random_hand(rng, 2 * pairs + singles, w, rng.sample(range(34), 9))
            by_assignment = False
            for faces in itertools.combinations_with_replacement(range(34), w):
                c = list(counts)
                for f in faces:
                    c[f] += 1
                by_assignment = by_assignment or concrete_pairs(c, pairs, singles, four_ok)
            assert ref_pairs(counts, w, pairs, singles, four_ok) == by_assignment, (counts, w, pairs, four_ok)


def test_special_is_win_matches_reference() -> None:
    rng = random.Random(6)
    forms: list[S.WinForm] = [S.SEVEN_PAIRS, S.SEVEN_PAIRS_DISTINCT, S.EIGHT_PAIRS_PLUS_ONE, S.THIRTEEN_ORPHANS]
    for i in range(1500):
        form = forms[i % 4]
        size = 17 if form is S.EIGHT_PAIRS_PLUS_ONE else 14
        if rng.random() < 0.2:
            size += rng.choice([-3, -1, 1])
        w = rng.randint(0, 4)
        if form is S.THIRTEEN_ORPHANS:
            counts = random_hand(rng, size, w, ORPHANS if rng.random() < 0.9 else range(34))
        else:  # pairs of few kinds, so that pairs (and fours) are common
            counts = random_hand(rng, size, w, rng.sample(range(34), 9))
        assert form.is_win(counts, w) == ref_special(form, counts, w), (form, counts, w)


def test_special_shanten_matches_definition() -> None:
    """Special-form shanten = fewest real tiles to give up so that the form
    completes with wilds and free draws."""
    rng = random.Random(7)
    special_forms: list[S.WinForm] = [S.SEVEN_PAIRS, S.SEVEN_PAIRS_DISTINCT, S.THIRTEEN_ORPHANS]
    for i in range(120):
        form = special_forms[i % 3]
        w = rng.randint(0, 3)
        size = rng.choice([13, 14])
        pool = ORPHANS if form is S.THIRTEEN_ORPHANS else rng.sample(range(34), 10)
        counts = random_hand(rng, size, w, pool)
        real = size - w
        expect = None
        for dropped in range(real + 1):
            if any(ref_special(form, kept, 14 - (real - dropped)) for kept in sub_multisets(counts, real - dropped)):
                expect = 14 - w - (real - dropped) - 1
                break
        assert S.shanten_special(counts, w, [form]) == expect, (form, counts, w)


def test_shanten_matches_reference() -> None:
    rng = random.Random(8)
    for i in range(400):
        size = rng.choice([1, 2, 4, 5, 7, 8, 10, 11])
        w = rng.randint(0, min(3, size))
        kinds: Sequence[int] = range(34) if i % 2 else range(9 * (i % 3), 9 * (i % 3) + 9)
        counts = random_hand(rng, size, w, kinds)
        assert S.shanten(counts, w) == ref_shanten(counts, w), (counts, w)


def test_shanten_consistent_with_win_and_waits_on_big_hands() -> None:
    for counts, w in mixed_hands(9, 600, [13, 14, 16, 17], 8):
        s = S.shanten(counts, w)
        if sum(counts) + w in (14, 17):
            assert (s == -1) == S.is_standard_win(counts, w)
        elif S.waits(counts, w):
            assert s == 0
        else:  # ready only on a tile held four times, or not ready
            assert s > 0 or 4 in counts


def test_waits_match_trial_on_many_hands() -> None:
    """Thousands of hands, up to 16 tiles and 8 wilds: waits equal the kinds
    whose addition passes the (reference-checked) win test."""
    for counts, w in mixed_hands(17, 2500, [1, 4, 7, 10, 13, 16], 8):
        trial = []
        for t in range(34):
            if counts[t] < 4:
                c = list(counts)
                c[t] += 1
                if S.is_standard_win(c, w):
                    trial.append(t)
        assert S.waits(counts, w) == trial, (counts, w)


def test_shanten_recurrences_on_many_hands() -> None:
    """Shanten of a 3n+2 hand is the best shanten after a discard (or -1 when
    complete); of a 3n+1 hand, one more than the best after a draw."""
    for counts, w in mixed_hands(18, 1500, [2, 5, 8, 11, 14, 17], 8):
        held = [t for t in range(34) if counts[t]]
        if not held:
            continue
        s = S.shanten(counts, w)
        after = []
        for t in held:
            c = list(counts)
            c[t] -= 1
            after.append(S.shanten(c, w))
        if S.is_standard_win(counts, w):
            assert s == -1 and set(after) == {0}
        else:
            assert s == min(after), (counts, w)
        c13 = list(counts)
        c13[held[0]] -= 1
        s13 = S.shanten(c13, w)
        draws = []
        for t in range(34):
            if c13[t] < 4:
                c13[t] += 1
                draws.append(S.shanten(c13, w))
                c13[t] -= 1
        assert s13 <= min(draws) + 1
        if 4 not in c13:
            assert s13 == min(draws) + 1, (c13, w)


def test_shanten_agrees_with_mahjong_package() -> None:
    shanten_mod = pytest.importorskip("mahjong.shanten")
    rng = random.Random(10)
    differ = 0
    for _ in range(300):
        counts = random_hand(rng, rng.choice([13, 14]), 0)
        theirs = shanten_mod.Shanten.calculate_shanten_for_regular_hand(list(counts))
        ours = S.shanten(counts, 0)
        # We ignore the four-copy limit on draws; where a hand would need a
        # fifth copy the package may count one more.
        assert ours <= theirs
        differ += ours != theirs
    assert differ <= 3


def test_decompositions_match_reference_on_small_hands() -> None:
    rng = random.Random(12)
    for i in range(90):
        size = rng.choice([2, 5, 8])
        w = rng.randint(0, 3 if size <= 5 else 2)
        kinds: Sequence[int] = range(34) if i % 2 else range(9 * (i % 3), 9 * (i % 3) + 9)
        counts = winning_hand(rng, size // 3, w, kinds)
        got = [canon(d) for d in S.decompositions(counts, w)]
        assert len(got) == len(set(got)), "duplicates"
        assert set(got) == ref_decompositions(counts, w), (counts, w)


def test_decompositions_valid_on_big_hands() -> None:
    for counts, w in mixed_hands(13, 90, [14, 17], 8):
        ds = list(S.decompositions(counts, w))
        assert bool(ds) == S.is_standard_win(counts, w)
        seen = set()
        for d in ds:
            assert valid_decomposition(d, counts, w), d
            seen.add(canon(d))
        assert len(seen) == len(ds)


def _score(d: S.Decomposition) -> float:
    s = 1.0
    for g in d.melds:
        if g.kind == "triplet" and g.tiles[0] >= 27:
            s += 2
        if g.kind == "wild_triplet":
            s += 1
    s -= 0.5 * len(d.wild_faces)
    if all(g.kind != "sequence" for g in d.melds):
        s += 3
    return s


def _bound(p: S.PartialDecomposition) -> float:
    """Never below _score of a completion: fixed groups scored as they are,
    the all-triplets bonus assumed, +2 per remaining real tile."""
    s = 1.0 + 3
    for g in p.groups:
        if g.kind == "triplet" and g.tiles[0] >= 27:
            s += 2
        if g.kind == "wild_triplet":
            s += 1
        s -= 0.5 * len(g.wild_as)
    return s + 2 * sum(p.remaining)


def test_best_decomposition_is_max() -> None:
    for counts, w in mixed_hands(14, 45, [14, 17], 8):
        ds = list(S.decompositions(counts, w))
        best = S.best_decomposition(counts, w, _score)
        bounded = S.best_decomposition(counts, w, _score, _bound)
        if not ds:
            assert best is None and bounded is None
            continue
        top = max(_score(d) for d in ds)
        assert best is not None and bounded is not None
        assert _score(best) == top == _score(bounded)


# ---------------------------------------------------------------------------
# Hypothesis
# ---------------------------------------------------------------------------


@st.composite
def hands(draw: st.DrawFn, sizes: Sequence[int]) -> tuple[Counts, int]:
    size = draw(st.sampled_from(list(sizes)))
    w = draw(st.integers(0, min(8, size)))
    suit_only = draw(st.booleans())
    kinds = list(range(9)) if suit_only else list(range(34))
    pool = [t for t in kinds for _ in range(4)]
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=size - w, max_size=size - w, unique=True))
    c = [0] * 34
    for i in picks:
        c[pool[i]] += 1
    return tuple(c), w


HYP = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@HYP
@given(hands([2, 5, 8, 11, 14, 17]))
def test_hyp_win(hand: tuple[Counts, int]) -> None:
    counts, w = hand
    assert S.is_standard_win(counts, w) == ref_win(counts, w)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands([1, 4, 7, 10, 13, 16]))
def test_hyp_waits(hand: tuple[Counts, int]) -> None:
    counts, w = hand
    assert S.waits(counts, w) == ref_waits(counts, w)


@settings(max_examples=150, deadline=None)
@given(hands([1, 2, 4, 5, 7, 8, 10]))
def test_hyp_shanten(hand: tuple[Counts, int]) -> None:
    counts, w = hand
    assert S.shanten(counts, w) == ref_shanten(counts, w)


def test_suit_table_entries_match_reference() -> None:
    """F0 (melds only) and F1 (melds and pair) of random suit shapes."""
    rng = random.Random(15)
    for _ in range(300):
        counts = random_hand(rng, rng.randint(1, 9), 0, range(9))
        code = _suit_code(S.suit_keys(counts)[0])
        f0, f1 = code >> 3, (code >> 3) + (2 if code & 1 else -1)
        assert ref_win(counts, f0, need_pair=False) and ref_win(counts, f1)
        assert not any(ref_win(counts, w, need_pair=False) for w in range(f0))
        assert not any(ref_win(counts, w) for w in range(max(f1, 0)))


def test_warm_tables_and_clear_caches() -> None:
    assert S.warm_tables(3) == 220
    S.clear_caches()
    assert S.is_standard_win(counts_of("123m 55p"), 0)
