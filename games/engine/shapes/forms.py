"""Win forms (standard, pairs, thirteen orphans) and the analyses that take a list of forms.

:func:`waits` and :func:`shanten_special` are here rather than in ``waits.py`` and
``shanten.py`` because they dispatch to the forms, and the standard form calls back into
the standard-shape code: one module holds both ends, so nothing imports in a circle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from games.engine.shapes.keys import _codes, is_standard_win
from games.engine.shapes.shanten import shanten
from games.engine.shapes.tables import UNREACHABLE
from games.engine.shapes.waits import _MASK_TILES, _honour_masks, _mask_for, _suit_masks


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


# Waits and shanten over a list of forms


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


def shanten_special_each(counts: Sequence[int], wilds: int, forms: Sequence[WinForm]) -> list[int]:
    """``shanten_special(counts + one tile of kind k, wilds, forms)`` for every kind k
    (:data:`UNREACHABLE` where four are held), in one pass.

    The pair forms and 十三幺 see a hand as how many of each kind it holds (and, for 十三幺,
    which kinds are terminals or honours), so one more tile changes the answer by its kind's
    count and class alone: at most eight trials answer all 34 kinds."""
    if not all(isinstance(form, (PairsForm, ThirteenOrphansForm)) for form in forms):
        raise TypeError("shanten_special_each reads the pair forms and 十三幺 only")
    trial = list(counts[:34])
    by_class: dict[tuple[int, bool], int] = {}
    out = [UNREACHABLE] * 34
    for k in range(34):
        c = trial[k]
        if c >= 4:
            continue
        cls = (c, _IS_ORPHAN[k])
        found = by_class.get(cls)
        if found is None:
            trial[k] += 1
            found = by_class[cls] = shanten_special(trial, wilds, forms)
            trial[k] -= 1
        out[k] = found
    return out
