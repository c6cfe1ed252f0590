"""听牌 hints: what each discard or claim does to a seat's distance from ready, from its view.

The measure is the one every player knows: the *distance* (向听) — how many tiles the hand
still needs before it is ready (0: ready, 听牌) — and, once ready, the *waits*: the tiles that
would complete it, each with the copies the seat has not seen (its own hand, every pond, the
open melds and face-up tiles are seen; the rest may still be drawn).  With wilds a hand can
wait on every tile; ``any_tile`` says so rather than listing 34 kinds.

``useful`` (牌效, the tiles that would bring a not-yet-ready hand one step closer, with their
unseen copies) is listed for every discard at every distance, and the discards are ranked by
it (:mod:`games.engine.insight.acceptance`: the lowest distance, then the most unseen tiles
that lower it, then the most kinds).  Its distance tables are cached per part, so the part a
turn starts from (last turn's choice) and the parts the claim windows between ask about are
not computed again.

Everything here is a pure function of a :class:`~games.engine.insight.seat_view.SeatView`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine.insight.acceptance import DiscardAcceptance, discard_acceptance, distance_table, reader_for
from games.engine.insight.reader import ShapeReader
from games.engine.insight.seat_view import Offer, SeatView
from games.engine.state import WIN
from games.engine.tiles import NUM_KINDS, Tile, tile_str

# Claim verdicts (the wire's words; the client translates them).
WINS, IMPROVES, KEEPS, WORSENS = "wins", "improves", "keeps", "worsens"


@dataclass(frozen=True, slots=True)
class Waits:
    tiles: tuple[tuple[Tile, int], ...]  # (kind, unseen copies), in code order
    any_tile: bool

    @property
    def unseen(self) -> int:
        return sum(n for _, n in self.tiles)

    def to_json(self) -> dict[str, Any]:
        return {
            "any_tile": self.any_tile,
            "tiles": [{"tile": tile_str(t), "unseen": n} for t, n in self.tiles],
            "unseen": self.unseen,
        }


@dataclass(frozen=True, slots=True)
class DiscardHint:
    tile: Tile
    distance: int  # after discarding it: 0 ready
    improves: bool  # lower than before this turn's draw
    best: bool = False  # among the lowest distances (and, there, the most useful tiles)
    waits: Waits | None = None  # when ready
    useful: Waits | None = None  # when not ready
    rank: int = 1  # 1 = best; 1 + the discards strictly better (lower distance, then more tiles)

    @property
    def ready(self) -> bool:
        return self.distance == 0

    def to_json(self) -> dict[str, Any]:
        return {
            "tile": tile_str(self.tile),
            "distance": self.distance,
            "ready": self.ready,
            "improves": self.improves,
            "best": self.best,
            "waits": self.waits.to_json() if self.waits else None,
            "useful": self.useful.to_json() if self.useful else None,
            "rank": self.rank,
        }


@dataclass(frozen=True, slots=True)
class ClaimHint:
    action: dict[str, Any]
    verdict: str  # WINS / IMPROVES / KEEPS / WORSENS
    distance: int | None  # after the claim and its best discard (None for a win)

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "verdict": self.verdict, "distance": self.distance}


@dataclass(frozen=True, slots=True)
class HintSet:
    distance: int | None  # now: for a 3n+2 hand, the best reachable by a discard
    discards: tuple[DiscardHint, ...] = ()
    claims: tuple[ClaimHint, ...] = ()
    waits: Waits | None = None  # a 3n+1 hand that is ready now (someone else's turn)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "distance": self.distance,
            "discards": [d.to_json() for d in self.discards],
            "claims": [c.to_json() for c in self.claims],
            "waits": self.waits.to_json() if self.waits else None,
        }


def waits_of(reader: ShapeReader, counts: list[int], n_melds: int, view: SeatView) -> Waits:
    """The kinds that complete the 3n+1 part ``counts`` (changed and restored in place)."""
    found: list[tuple[Tile, int]] = []
    for k in range(NUM_KINDS):
        if counts[k] >= 4:  # a fifth copy cannot be drawn
            continue
        counts[k] += 1
        if reader.wins(counts, n_melds):
            found.append((k, view.unseen(k)))
        counts[k] -= 1
    drawable = sum(1 for k in range(NUM_KINDS) if counts[k] < 4)
    return Waits(tuple(found), any_tile=bool(found) and len(found) == drawable)


def useful_of(reader: ShapeReader, counts: list[int], n_melds: int, distance: int, view: SeatView) -> Waits:
    """The kinds that bring the 3n+1 part ``counts`` closer to ready (in place, restored)."""
    # 3n+2 after the tile: its distance is the best over its discards, which the shanten of a
    # 3n+2 part already is (it counts the tile to be thrown as the one not covered).
    after = reader.distances_after_each(counts, n_melds)
    found = [(k, view.unseen(k)) for k in range(NUM_KINDS) if after[k] < distance]
    drawable = sum(1 for k in range(NUM_KINDS) if counts[k] < 4)
    return Waits(tuple(found), any_tile=bool(found) and len(found) == drawable)


def hints(view: SeatView) -> HintSet:
    """The hints for the seat's current decision: its discards, or the claims it is offered."""
    key, reader = reader_for(view.variant, view.table)
    counts = view.counts()
    if view.offers:
        return _claim_hints(view, reader, counts)
    if view.discards:
        return _discard_hints(view, key, reader, counts)
    if sum(counts) % 3 == 1:  # waiting for its turn: what it waits on, if ready
        d = reader.distance(counts, view.n_melds)
        return HintSet(distance=d, waits=waits_of(reader, counts, view.n_melds, view) if d == 0 else None)
    return HintSet(distance=None)


def _discard_hints(view: SeatView, key: Any, reader: ShapeReader, counts: list[int]) -> HintSet:
    n = view.n_melds
    before: int | None = None
    if view.drawn is not None:  # the part the turn started from: last turn's choice, cached
        counts[view.drawn] -= 1
        before = distance_table(key, reader, counts, n)[0]
        counts[view.drawn] += 1
    ranked = discard_acceptance(key, reader, counts, n, view.visible, view.discards)
    by_tile = {a.tile: a for a in ranked}
    # The ranking's measure, once per discard: the distance, then the most tiles.
    measure = {a.tile: (a.distance, -a.unseen) for a in ranked}
    low = ranked[0].distance
    out: list[DiscardHint] = []
    for t in dict.fromkeys(view.discards):
        a = by_tile.get(t)
        if a is None:
            continue
        tiles = _accepted(a, counts)
        better = sum(1 for m in measure.values() if m < measure[t])  # ranked strictly above
        out.append(
            DiscardHint(
                t,
                a.distance,
                improves=before is not None and a.distance < before,
                best=better == 0,
                waits=tiles if a.distance == 0 else None,
                useful=tiles if a.distance > 0 else None,
                rank=1 + better,
            )
        )
    return HintSet(distance=low, discards=tuple(out))


def _accepted(a: DiscardAcceptance, counts: Sequence[int]) -> Waits:
    """The discard's accepted tiles as the hint lists them: a win's draws once ready, else the
    draws that bring it closer; ``any_tile`` when every kind that can still be drawn is one."""
    drawable = sum(1 for k in range(NUM_KINDS) if counts[k] - (k == a.tile) < 4)
    return Waits(a.tiles, any_tile=bool(a.tiles) and len(a.tiles) == drawable)


def _claim_hints(view: SeatView, reader: ShapeReader, counts: list[int]) -> HintSet:
    n = view.n_melds
    now = reader.distance(counts, n)
    out: list[ClaimHint] = []
    for offer in view.offers:
        if offer.kind == WIN:
            out.append(ClaimHint(dict(offer.action), WINS, None))
            continue
        d = min(reader.distance(part, n + 1) for part in parts_after(offer, counts))
        verdict = IMPROVES if d < now else KEEPS if d == now else WORSENS
        out.append(ClaimHint(dict(offer.action), verdict, d))
    return HintSet(distance=now, claims=tuple(out))


def parts_after(offer: Offer, counts: Sequence[int]) -> list[list[int]]:
    """The 3n+1 concealed parts taking ``offer`` (not a win) can leave, its meld laid down: for
    a kong the part left (a replacement tile follows), for a chow or pung one per kind it may
    throw next."""
    rest = list(counts)
    for t in offer.tiles:
        rest[t] -= 1
    if sum(rest) % 3 != 2:
        return [rest]
    parts = []
    for t in range(NUM_KINDS):
        if rest[t]:
            part = list(rest)
            part[t] -= 1
            parts.append(part)
    return parts
