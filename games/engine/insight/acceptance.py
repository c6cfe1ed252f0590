"""Tile acceptance (受入): for each discard, the unseen tiles that would bring the hand closer.

A discard leaves a 3n+1 concealed part at some distance (向听, from the rule set's
:class:`~games.engine.insight.reader.ShapeReader`: its wilds, its stand-ins, its special forms
such as 七小对 or 八对).  Its *acceptance* is every kind whose draw lowers that distance — a
step closer while not ready, a win once ready — with the copies of it the seat has not seen
(four less what its :class:`~games.engine.insight.seat_view.SeatView` shows: its own hand, the
ponds, the open melds, the face-up tiles).  Discards rank by the lowest distance, then the most
unseen accepted tiles, then the most accepted kinds.

Everything is read from the seat's view (or, for :func:`discard_acceptance` and
:func:`part_acceptance`, from counts the caller took from one), so no answer depends on a hidden
tile.  The distance table of a 3n+1 part (34 distances, one per kind drawn next) depends on the
part and the rule set's reading alone, not on what is seen, so it is cached per reading and part:
a seat asks about the same parts on its turn and in the claim windows between.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from games.engine.insight.reader import ShapeReader
from games.engine.insight.seat_view import SeatView
from games.engine.shapes import UNREACHABLE
from games.engine.tiles import NUM_KINDS, Tile
from games.engine.variants import get_variant

# The table fields a rule set's reader depends on (the wild, the 金, the 得); every other field
# of the public table (tiles left, stakes) changes during a hand without changing the reading.
READER_FIELDS: Final = ("wilds", "gold", "de")
# Distance tables kept per process (one per 3n+1 part and reading; 34 small ints each).
CACHE_LIMIT: Final = 50_000

ReaderKey = tuple[str, tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class PartAcceptance:
    """A 3n+1 concealed part: its distance and the kinds that lower it (a win when ready)."""

    distance: int
    tiles: tuple[tuple[Tile, int], ...]  # (kind, unseen copies), in code order

    @property
    def unseen(self) -> int:
        """How many unseen tiles would bring the part closer: the number a player counts."""
        return sum(n for _, n in self.tiles)

    @property
    def kinds(self) -> int:
        return len(self.tiles)


@dataclass(frozen=True, slots=True)
class DiscardAcceptance:
    """One candidate discard and what it leaves."""

    tile: Tile
    distance: int
    tiles: tuple[tuple[Tile, int], ...]

    @property
    def unseen(self) -> int:
        return sum(n for _, n in self.tiles)

    @property
    def kinds(self) -> int:
        return len(self.tiles)

    def rank(self) -> tuple[int, int, int, Tile]:
        """Lower is better: the distance, then the most unseen accepted tiles, then kinds."""
        return (self.distance, -self.unseen, -self.kinds, self.tile)


def reader_key(variant: str, table: Mapping[str, Any]) -> ReaderKey:
    return variant, tuple(table.get(f) for f in READER_FIELDS)


_READERS: dict[ReaderKey, ShapeReader] = {}
_TABLES: OrderedDict[tuple[ReaderKey, bytes, int], tuple[int, tuple[int, ...]]] = OrderedDict()
_DISTANCES: OrderedDict[tuple[ReaderKey, bytes, int], int] = OrderedDict()


def reader_for(variant: str, table: Mapping[str, Any]) -> tuple[ReaderKey, ShapeReader]:
    """The rule set's reader for this public table, built once per reading."""
    key = reader_key(variant, table)
    reader = _READERS.get(key)
    if reader is None:
        reader = _READERS[key] = get_variant(variant).shape_reader(table)
    return key, reader


def distance_table(
    key: ReaderKey, reader: ShapeReader, part: Sequence[int], n_melds: int
) -> tuple[int, tuple[int, ...]]:
    """(the distance of the 3n+1 ``part``, the distance after drawing each of the 34 kinds).

    After a draw the part is 3n+2: its distance is the best over its discards, and -1 when it
    is complete.  Where the rule set's win test is more than the shapes say (东北's 七小对 with
    a 幺九, 温州's five of a face), a ready part's draws are judged by that win test.
    """
    cache_key = (key, bytes(part[:NUM_KINDS]), n_melds)
    hit = _TABLES.get(cache_key)
    if hit is not None:
        _TABLES.move_to_end(cache_key)
        return hit
    trial = list(part[:NUM_KINDS])
    d = reader.distance(trial, n_melds)
    after = reader.distances_after_each(trial, n_melds)
    if d == 0:
        for k in range(NUM_KINDS):
            if trial[k] < 4:
                trial[k] += 1
                after[k] = -1 if reader.wins(trial, n_melds) else max(after[k], 0)
                trial[k] -= 1
    result = (d, tuple(after))
    _TABLES[cache_key] = result
    if len(_TABLES) > CACHE_LIMIT:
        _TABLES.popitem(last=False)
    return result


def part_distance(key: ReaderKey, reader: ShapeReader, part: Sequence[int], n_melds: int) -> int:
    """The distance of a 3n+1 concealed ``part`` alone: one reading per call, cached apart from
    the full tables (far cheaper where only the nearest discards need their acceptance)."""
    cache_key = (key, bytes(part[:NUM_KINDS]), n_melds)
    hit = _TABLES.get(cache_key)
    if hit is not None:
        return hit[0]
    d = _DISTANCES.get(cache_key)
    if d is None:
        d = _DISTANCES[cache_key] = reader.distance(list(part[:NUM_KINDS]), n_melds)
        if len(_DISTANCES) > CACHE_LIMIT:
            _DISTANCES.popitem(last=False)
    return d


def part_acceptance(
    key: ReaderKey, reader: ShapeReader, part: Sequence[int], n_melds: int, visible: Sequence[int]
) -> PartAcceptance:
    """The acceptance of a 3n+1 concealed part, counting unseen copies against ``visible``."""
    d, after = distance_table(key, reader, part, n_melds)
    tiles = tuple((k, max(0, 4 - visible[k])) for k in range(NUM_KINDS) if after[k] != UNREACHABLE and after[k] < d)
    return PartAcceptance(d, tiles)


def discard_acceptance(
    key: ReaderKey,
    reader: ShapeReader,
    counts: Sequence[int],
    n_melds: int,
    visible: Sequence[int],
    discards: Iterable[Tile],
) -> tuple[DiscardAcceptance, ...]:
    """Each of ``discards`` from the 3n+2 concealed ``counts``, ranked best first."""
    part = list(counts[:NUM_KINDS])
    out: list[DiscardAcceptance] = []
    for t in dict.fromkeys(discards):
        if t >= NUM_KINDS or not part[t]:
            continue
        part[t] -= 1
        acc = part_acceptance(key, reader, part, n_melds, visible)
        part[t] += 1
        out.append(DiscardAcceptance(t, acc.distance, acc.tiles))
    out.sort(key=DiscardAcceptance.rank)
    return tuple(out)


def acceptance(view: SeatView) -> tuple[DiscardAcceptance, ...]:
    """The seat's discards now (``view.discards``), ranked best first; empty when it has none."""
    key, reader = reader_for(view.variant, view.table)
    return discard_acceptance(key, reader, view.counts(), view.n_melds, view.visible, view.discards)


def clear_cache() -> None:
    """Forget the cached readers and distance tables (for tests and memory relief)."""
    _READERS.clear()
    _TABLES.clear()
    _DISTANCES.clear()
