"""How a rule set reads a concealed hand's shape, from what everyone may see: the hints' one
rule-set hook.

A hint (:mod:`games.engine.insight.hints`) asks two questions of a player's concealed tiles:
how far are they from ready (向听, the distance), and does one more tile complete them.  The
answer depends on the rule set: which kinds are wild, whether 白板 plays the wild's face, which
special forms (七对, 八对, 十三幺) win.  Each rule set answers through
``Variant.shape_reader(table)``, given only the public ``table`` part of a seat's view (the
wild, the 金, the 得): no hint can depend on a tile its reader may not see.

Counts are 34-kind vectors of *physical* tiles, wilds included, so a wait is the tile a
player would draw; :meth:`ShapeReader.readings` turns them into the (face counts, wilds) pairs
the shape tables take.  The shape is all a reader judges: a rule set's conditions on the win
(a minimum 番, 东北's 幺九 and 三门齐, 相公) and the self-draw-only wins (three or four wilds)
are the engine's at play time, not a hint's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from games.engine import shapes
from games.engine.shapes import UNREACHABLE, WinForm
from games.engine.tiles import NUM_KINDS, Tile

Reading = tuple[list[int], int]
"""Face counts (34 kinds, the wilds taken out) and the number of wilds."""


def wilds_apart(counts: Sequence[int], wild_kinds: Iterable[Tile]) -> Reading:
    """The plain reading: every copy of a wild kind is a wild, everything else its own face."""
    c = list(counts[:NUM_KINDS])
    n = 0
    for w in wild_kinds:
        n += c[w]
        c[w] = 0
    return c, n


@dataclass(frozen=True)
class ShapeReader:
    """A rule set's reading of concealed shapes (see the module docstring).

    ``read`` gives every way to read the tiles (more than one where a stand-in may play either
    face, as 得's 白板); ``special`` the forms beside melds-and-a-pair for a hand with that
    many melds laid down; ``wins`` overrides the win test where a rule set's is more than the
    forms say (东北's 七对 must hold a 幺九)."""

    read: Callable[[Sequence[int]], Iterable[Reading]]
    special: Callable[[int], Sequence[WinForm]] = field(default=lambda n_melds: ())
    win_test: Callable[[Sequence[int], int], bool] | None = None

    def readings(self, counts: Sequence[int]) -> Iterable[Reading]:
        return self.read(counts)

    def distance(self, counts: Sequence[int], n_melds: int) -> int:
        """向听: 0 ready, n tiles from ready; -1 complete.  For a 3n+1 or 3n+2 concealed part."""
        forms = self.special(n_melds)
        best = UNREACHABLE
        for c, w in self.readings(counts):
            if max(c) > 4:  # a stand-in beside four real faces: the tables hold four of a kind
                c = [min(x, 4) for x in c]
            d = shapes.shanten(c, w)
            if forms:
                d = min(d, shapes.shanten_special(c, w, forms))
            best = min(best, d)
        return best

    def distances_after_each(self, counts: Sequence[int], n_melds: int) -> list[int]:
        """``distance(counts + one tile of kind k)`` for every kind k of the 3n+1 part ``counts``
        (:data:`UNREACHABLE` where four are held).  A kind that reads as itself adds one face
        to every reading, so one ``shapes.shanten_each`` pass per reading answers all of them
        (and one ``shapes.shanten_special_each`` the special forms).  A :attr:`remapped` kind
        adds what :attr:`reads_as` says: a wild (the same pass's one-more-wild answer) or one
        tile of another face (that face's answer); read more ways, it takes the plain
        :meth:`distance`."""
        trial = list(counts[:NUM_KINDS])
        out = [UNREACHABLE] * NUM_KINDS
        found = list(self.readings(trial))
        if any(max(c) > 4 for c, _ in found):  # past the tables: the plain way for every kind
            for k in range(NUM_KINDS):
                if trial[k] < 4:
                    trial[k] += 1
                    out[k] = self.distance(trial, n_melds)
                    trial[k] -= 1
            return out
        forms = self.special(n_melds)
        batches = [shapes.shanten_each_and_wild(c, w) for c, w in found]
        # Per face, the best over the readings of one more tile of it (UNREACHABLE where a
        # reading already holds four of the face), the special forms included.
        by_face = [min(col) for col in zip(*(each for each, _ in batches), strict=True)]
        for c, w in found if forms else ():
            for f, special in enumerate(shapes.shanten_special_each(c, w, forms)):
                if special < by_face[f]:
                    by_face[f] = special
        fifth = {f for c, _ in found for f in range(NUM_KINDS) if c[f] >= 4}
        reads_as = self.reads_as
        for k in range(NUM_KINDS):
            if trial[k] >= 4:
                continue
            face = reads_as.get(k, k)
            if face is None:  # a wild: one more wild in every reading
                d = min(wild for _, wild in batches)
                if forms:
                    d = min(d, *(shapes.shanten_special(c, w + 1, forms) for c, w in found))
            elif face < 0 or face in fifth:  # read more ways, or a fifth tile of its face
                trial[k] += 1
                d = self.distance(trial, n_melds)
                trial[k] -= 1
            else:  # one more tile of ``face`` in every reading
                d = by_face[face]
            out[k] = d
        return out

    @cached_property
    def reads_as(self) -> dict[Tile, int | None]:
        """For each :attr:`remapped` kind, what one more tile of it adds to a reading: a wild
        (None), one tile of another face (that face), or more than one way (-1).  The readings
        are per tile, so a lone tile shows it."""
        out: dict[Tile, int | None] = {}
        for k in self.remapped:
            lone = [0] * NUM_KINDS
            lone[k] = 1
            found = [(c, w) for c, w in self.readings(lone)]
            if len(found) != 1:
                out[k] = -1
            elif found[0][1] == 1 and not any(found[0][0]):
                out[k] = None
            elif found[0][1] == 0 and sum(found[0][0]) == 1:
                out[k] = found[0][0].index(1)
            else:
                out[k] = -1
        return out

    @cached_property
    def remapped(self) -> frozenset[Tile]:
        """The kinds a tile of which does not read as one tile of its own face (a wild, a
        stand-in, one with several readings); the readings are per tile, so a lone tile shows it."""
        out = set()
        for k in range(NUM_KINDS):
            lone = [0] * NUM_KINDS
            lone[k] = 1
            if [(c, w) for c, w in self.readings(lone)] != [(lone, 0)]:
                out.add(k)
        return frozenset(out)

    def wins(self, counts: Sequence[int], n_melds: int) -> bool:
        """The 3n+2 concealed part ``counts`` makes a winning shape."""
        if self.win_test is not None:
            return self.win_test(counts, n_melds)
        forms = (shapes.STANDARD, *self.special(n_melds))
        # Five of a face (a stand-in beside four real ones) is past the tables: a rule set
        # where that can win gives its own ``win_test`` (温州).
        return any(max(c) <= 4 and shapes.is_win(c, w, forms) for c, w in self.readings(counts))


def plain_reader(wild_kinds: Iterable[Tile]) -> ShapeReader:
    """Wild kinds apart, melds and a pair only: 财神麻将's reading, and the default."""
    kinds = tuple(wild_kinds)
    return ShapeReader(read=lambda counts: (wilds_apart(counts, kinds),))
