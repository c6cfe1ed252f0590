"""听牌 hints: what each discard or claim does to a seat's distance from ready, from its view.

The measure is the one every player knows: the *distance* (向听) — how many tiles the hand
still needs before it is ready (0: ready, 听牌) — and, once ready, the *waits*: the tiles that
would complete it, each with the copies the seat has not seen (its own hand, every pond, the
open melds and face-up tiles are seen; the rest may still be drawn).  With wilds a hand can
wait on every tile; ``any_tile`` says so rather than listing 34 kinds.

``useful`` (牌效, the tiles that would bring a not-yet-ready hand one step closer, with their
unseen copies) is a distance for each of the 34 kinds per discard (one batched pass,
``ShapeReader.distances_after_each``), so in play it is listed only for the closest discards of
a hand one step from ready (:data:`USEFUL_LIVE_UPTO`); the replay analysis lists it everywhere.

Everything here is a pure function of a :class:`~games.engine.insight.seat_view.SeatView`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine.insight.reader import ShapeReader
from games.engine.insight.seat_view import Offer, SeatView
from games.engine.state import WIN
from games.engine.tiles import NUM_KINDS, Tile, tile_str

# In play, 牌效 (``useful``) is listed for the closest discards only while they are at most this
# far from ready: one step away is where it decides the hand, and it keeps a hint set's p99
# under the 5 ms budget (docs/performance.md).  The replay analysis lists it everywhere.
USEFUL_LIVE_UPTO = 1

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
    useful: Waits | None = None  # when not ready and it was computed

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


def hints(view: SeatView, *, useful_everywhere: bool = False) -> HintSet:
    """The hints for the seat's current decision: its discards, or the claims it is offered."""
    reader = view.reader()
    counts = view.counts()
    if view.offers:
        return _claim_hints(view, reader, counts)
    if view.discards:
        return _discard_hints(view, reader, counts, useful_everywhere)
    if sum(counts) % 3 == 1:  # waiting for its turn: what it waits on, if ready
        d = reader.distance(counts, view.n_melds)
        return HintSet(distance=d, waits=waits_of(reader, counts, view.n_melds, view) if d == 0 else None)
    return HintSet(distance=None)


def _discard_hints(view: SeatView, reader: ShapeReader, counts: list[int], useful_everywhere: bool) -> HintSet:
    n = view.n_melds
    before: int | None = None
    if view.drawn is not None:
        counts[view.drawn] -= 1
        before = reader.distance(counts, n)
        counts[view.drawn] += 1
    after: list[tuple[Tile, int]] = []
    for t in view.discards:
        counts[t] -= 1
        after.append((t, reader.distance(counts, n)))
        counts[t] += 1
    low = min(d for _, d in after)
    out: list[DiscardHint] = []
    for t, d in after:
        counts[t] -= 1
        waits = waits_of(reader, counts, n, view) if d == 0 else None
        useful = (
            useful_of(reader, counts, n, d, view)
            if d > 0 and (useful_everywhere or d == low <= USEFUL_LIVE_UPTO)
            else None
        )
        counts[t] += 1
        out.append(DiscardHint(t, d, improves=before is not None and d < before, waits=waits, useful=useful))
    return HintSet(distance=low, discards=tuple(_mark_best(out, low)))


def _mark_best(out: Sequence[DiscardHint], low: int) -> list[DiscardHint]:
    """Best: the lowest distance and, among those, the most unseen tiles to wait on (ready) or
    to improve with (not ready)."""

    def gain(h: DiscardHint) -> int:
        w = h.waits if h.ready else h.useful
        return w.unseen if w is not None else 0

    top = max((gain(h) for h in out if h.distance == low), default=0)
    return [
        DiscardHint(h.tile, h.distance, h.improves, h.distance == low and gain(h) == top, h.waits, h.useful)
        for h in out
    ]


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
