"""A seat's view as the hints read it: only what that seat may see, frozen.

Built from ``Hand.view(seat)`` — the very dict the seat's client is sent — and nothing else,
so a hint cannot depend on a tile its reader may not see: the others' concealed hands and
concealed kongs and the wall are not in the view to begin with.  ``tests/engine/test_hints.py``
proves it the other way round too: two hands alike in everything a seat sees give it the same
hints.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine.insight.reader import ShapeReader
from games.engine.state import CHOW, DISCARD, KONG, PUNG, WIN, claimed_from_hand, seat_index
from games.engine.tiles import NUM_KINDS, Tile, parse_tile, parse_tiles, to_counts
from games.engine.variants import get_variant

CLAIM_KINDS = frozenset({CHOW, PUNG, KONG, WIN})


@dataclass(frozen=True, slots=True)
class Offer:
    """A claim the seat may make on the window's tile: ``tiles`` leave its hand for the meld."""

    action: Mapping[str, Any]  # as the view lists it, to be sent back unchanged
    kind: str
    tiles: tuple[Tile, ...]  # from the concealed hand (the claimed tile not among them)


@dataclass(frozen=True, slots=True)
class SeatView:
    variant: str
    seat: int
    hand: tuple[Tile, ...]  # concealed, the drawn tile included
    drawn: Tile | None
    n_melds: int
    visible: tuple[int, ...]  # copies of each kind this seat can see anywhere
    discards: tuple[Tile, ...]  # the kinds it may discard now, in hand order, each once
    offers: tuple[Offer, ...]  # the claims it may make now
    window_tile: Tile | None
    table: Mapping[str, Any]  # the public table centre: the wild, the 金, the 得

    @classmethod
    def from_view(cls, view: Mapping[str, Any]) -> SeatView | None:
        """The seat's view, or None for a watcher's view or an ended hand."""
        if view.get("seat") is None or view.get("phase") == "ended":
            return None
        seat = seat_index(view["seat"])
        me = view["players"][seat]
        if me.get("hand") is None:
            return None
        hand = tuple(parse_tiles(me["hand"]))
        drawn = parse_tile(me["drawn"]) if me.get("drawn") else None
        return cls(
            variant=view["variant"],
            seat=seat,
            hand=hand,
            drawn=drawn,
            n_melds=len(me["melds"]),
            visible=tuple(_visible(view, hand)),
            discards=_discards(view["legal_actions"]),
            offers=_offers(view),
            window_tile=parse_tile(view["window"]["tile"]) if view.get("window") else None,
            table=dict(view.get("table") or {}),
        )

    def reader(self) -> ShapeReader:
        return get_variant(self.variant).shape_reader(self.table)

    def counts(self) -> list[int]:
        return to_counts(self.hand)

    def unseen(self, kind: Tile) -> int:
        """Copies of ``kind`` this seat has not seen: still in the wall or another's hand."""
        return max(0, 4 - self.visible[kind])


def _visible(view: Mapping[str, Any], hand: Sequence[Tile]) -> list[int]:
    tiles: list[Tile] = list(hand)
    for p in view["players"]:
        claimed = set(p.get("claimed_discards") or ())  # those lie in the claimer's meld
        tiles.extend(t for i, t in enumerate(parse_tiles(p["discards"])) if i not in claimed)
        for m in p["melds"]:
            if m.get("tiles"):  # another's concealed kong is face down: None
                tiles.extend(parse_tiles(m["tiles"]))
    tiles.extend(parse_tiles(view.get("face_up") or ""))
    counts = [0] * NUM_KINDS
    for t in tiles:
        if t < NUM_KINDS:
            counts[t] += 1
    return counts


def _discards(legal: Sequence[Mapping[str, Any]]) -> tuple[Tile, ...]:
    out: list[Tile] = []
    for a in legal:
        if a["do"] == DISCARD:
            t = parse_tile(a["tile"])
            if t not in out:
                out.append(t)
    return tuple(out)


def _offers(view: Mapping[str, Any]) -> tuple[Offer, ...]:
    window = view.get("window")
    if not window:
        return ()
    tile = parse_tile(window["tile"])
    out = []
    for a in view["legal_actions"]:
        kind = a["do"]
        if kind not in CLAIM_KINDS:
            continue
        taken = claimed_from_hand(kind, parse_tiles(a["tiles"]) if kind == CHOW else None, tile)
        out.append(Offer(action=dict(a), kind=kind, tiles=taken))
    return tuple(out)
