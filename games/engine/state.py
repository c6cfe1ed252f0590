"""Plain data of a hand: actions, events, melds, players, results.

Everything here serialises to JSON-ready dicts (tiles as notation strings) and
back, so a running hand can be stored as a snapshot and replayed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

from games.engine.refusals import JSONValue, code_of, params_of
from games.engine.tiles import NUM_ALL_KINDS, Tile, format_tiles, parse_tile, parse_tiles, tile_str, to_counts

SEATS = "ESWN"  # within a hand seats are named by seat wind; E is the dealer


def seat_name(seat: int) -> str:
    return SEATS[seat]


def seat_index(name: str) -> int:
    if not isinstance(name, str) or name not in SEATS or len(name) != 1:
        raise ValueError(f"unknown seat {name!r}; seats are E, S, W, N")
    return SEATS.index(name)


class IllegalAction(ValueError):
    """An action the rules refuse; ``str(exc)`` is the reason shown to the player.

    ``code`` and ``params`` say the same for a machine (the table page translates by them):
    taken from the reason when it is a :class:`~games.engine.refusals.Refusal`, as every
    refusal the rules return is, unless given here.
    """

    def __init__(self, reason: str, code: str | None = None, params: Mapping[str, JSONValue] | None = None) -> None:
        super().__init__(reason)
        self.reason = str(reason)
        self.code: str = code if code is not None else code_of(reason)
        self.params: dict[str, JSONValue] = dict(params) if params is not None else params_of(reason)


# Action kinds shared by every variant; variants may add their own verbs.
DISCARD, CHOW, PUNG, KONG, WIN, PASS = "discard", "chow", "pung", "kong", "win", "pass"
CLAIM_KINDS = frozenset({CHOW, PUNG, KONG, WIN})


def claimed_from_hand(kind: str, meld: Sequence[Tile] | None, tile: Tile) -> tuple[Tile, ...]:
    """The tiles a claim of the discarded ``tile`` takes from the claimer's hand: a chow's other
    two (``meld``: the chow's three), a pung's two, a kong's three; none for any other verb."""
    if kind == CHOW:
        assert meld is not None, "a chow names its tiles"
        rest = list(meld)
        rest.remove(tile)
        return tuple(rest)
    if kind == PUNG:
        return (tile, tile)
    if kind == KONG:
        return (tile, tile, tile)
    return ()


class Action(NamedTuple):
    """A choice a player makes.  ``tile`` for discard/kong, ``tiles`` for a chow's meld.

    A NamedTuple rather than a dataclass: legal-action lists are built on every
    turn, and tuples are several times cheaper to create and compare.
    """

    seat: int
    kind: str
    tile: Tile | None = None
    tiles: tuple[Tile, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": seat_name(self.seat), "do": self.kind}
        if self.tile is not None:
            out["tile"] = tile_str(self.tile)
        if self.tiles is not None:
            out["tiles"] = format_tiles(self.tiles)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Action:
        tile = parse_tile(data["tile"]) if data.get("tile") is not None else None
        tiles = tuple(sorted(parse_tiles(data["tiles"]))) if data.get("tiles") is not None else None
        return cls(seat=seat_index(data["seat"]), kind=str(data["do"]), tile=tile, tiles=tiles)

    def __str__(self) -> str:
        extra = ""
        if self.tile is not None:
            extra = " " + tile_str(self.tile)
        if self.tiles is not None:
            extra = " " + format_tiles(self.tiles)
        return f"{seat_name(self.seat)} {self.kind}{extra}"


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened.  ``private`` data is shown only to ``seat``.

    ``data`` is public; ``private`` holds what only the acting seat may see
    (the tile drawn, for instance).  :meth:`for_seat` renders the event for a
    reader, with ``None`` meaning the public (spectator) view.
    """

    kind: str
    seat: int | None = None
    data: dict[str, Any] = field(default_factory=dict)
    private: dict[str, Any] = field(default_factory=dict)

    def for_seat(self, reader: int | None) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.seat is not None:
            out["seat"] = seat_name(self.seat)
        out.update(self.data)
        if reader is not None and reader == self.seat:
            out.update(self.private)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "data": self.data, "private": self.private}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Event:
        return cls(kind=d["kind"], seat=d["seat"], data=d["data"], private=d["private"])


# Meld kinds
MELD_CHOW, MELD_PUNG = "chow", "pung"
KONG_EXPOSED, KONG_CONCEALED, KONG_ADDED = "kong_exposed", "kong_concealed", "kong_added"
KONG_KINDS = frozenset({KONG_EXPOSED, KONG_CONCEALED, KONG_ADDED})


@dataclass(slots=True)
class Meld:
    kind: str
    tiles: tuple[Tile, ...]
    claimed: Tile | None = None  # the tile taken from another player
    from_seat: int | None = None

    @property
    def is_kong(self) -> bool:
        return self.kind in KONG_KINDS

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "tiles": format_tiles(self.tiles),
            "claimed": tile_str(self.claimed) if self.claimed is not None else None,
            "from": seat_name(self.from_seat) if self.from_seat is not None else None,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Meld:
        return cls(
            kind=d["kind"],
            tiles=tuple(parse_tiles(d["tiles"])),
            claimed=parse_tile(d["claimed"]) if d["claimed"] else None,
            from_seat=seat_index(d["from"]) if d["from"] else None,
        )

    def public_json(self) -> dict[str, Any]:
        """A concealed kong shows its tiles face down to the others."""
        d = self.to_json()
        if self.kind == KONG_CONCEALED:
            d["tiles"] = None
        return d


@dataclass(slots=True)
class Player:
    hand: list[Tile] = field(default_factory=list)  # concealed, in display order (draws on the right)
    melds: list[Meld] = field(default_factory=list)
    discards: list[Tile] = field(default_factory=list)  # the river, claimed tiles included
    claimed_discards: list[int] = field(default_factory=list)  # indices into discards taken by others
    flowers: list[Tile] = field(default_factory=list)
    drawn: Tile | None = None  # the tile just drawn this turn, if any
    draws: int = 0  # how many draws (head or tail) this player has made
    flags: dict[str, Any] = field(default_factory=dict)  # variant state, e.g. {"xianggong": True}
    # Count vector of ``hand`` kept in step by add/remove: win checks read it on every discard.
    counts: list[int] = field(default_factory=lambda: [0] * NUM_ALL_KINDS)

    def __post_init__(self) -> None:
        self.counts = to_counts(self.hand, NUM_ALL_KINDS)

    def add(self, tile: Tile) -> None:
        self.hand.append(tile)
        self.counts[tile] += 1

    def remove(self, tile: Tile) -> None:
        """Remove the rightmost copy of ``tile`` (so a just-drawn tile goes first)."""
        hand = self.hand
        for i in range(len(hand) - 1, -1, -1):
            if hand[i] == tile:
                del hand[i]
                self.counts[tile] -= 1
                return
        raise ValueError(f"{tile_str(tile)} not in hand")

    def to_json(self) -> dict[str, Any]:
        return {
            "hand": format_tiles(self.hand),
            "melds": [m.to_json() for m in self.melds],
            "discards": format_tiles(self.discards),
            "claimed_discards": list(self.claimed_discards),
            "flowers": format_tiles(self.flowers),
            "drawn": tile_str(self.drawn) if self.drawn is not None else None,
            "draws": self.draws,
            "flags": dict(self.flags),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Player:
        return cls(
            hand=parse_tiles(d["hand"]),
            melds=[Meld.from_json(m) for m in d["melds"]],
            discards=parse_tiles(d["discards"]),
            claimed_discards=list(d["claimed_discards"]),
            flowers=parse_tiles(d["flowers"]),
            drawn=parse_tile(d["drawn"]) if d["drawn"] else None,
            draws=d["draws"],
            flags=dict(d["flags"]),
        )


@dataclass(slots=True)
class BreakdownItem:
    """One line of a score breakdown: what a pattern or payment contributed.

    ``label`` and ``detail`` are the engine's own short text (Chinese rule terms, kept for the
    golden scenarios and old snapshots).  What a reader sees is rendered from the structured
    fields: ``code`` (a stable item id, the same in every rule set that has the item), ``unit``
    (what ``value`` counts) and ``params`` (named numbers, tiles as tile codes, seats as seat
    names); docs/scoring.md lists them.
    """

    name: str  # stable key, e.g. "self_draw", "robbing_kong" (浙东得: "E:self_draw", per seat)
    label: str  # the engine's rule term, e.g. "自摸"
    value: int | float = 0  # multiplier, 番, points... as ``unit`` says
    detail: str = ""
    payments: dict[str, int] = field(default_factory=dict)  # seat name -> delta from this item
    code: str = ""  # the item id; empty: ``name`` without a seat prefix
    unit: str = ""  # what ``value`` counts: one of UNITS ("" for a line with no number)
    params: dict[str, Any] = field(default_factory=dict)  # named parameters of the line
    seat: str | None = None  # whose line this is, for per-seat lines (浙东得's hand points)

    def __post_init__(self) -> None:
        if not self.code:
            self.code = self.name.rsplit(":", 1)[-1]
        if self.unit and self.unit not in UNITS:
            raise ValueError(f"unknown breakdown unit {self.unit!r}")

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "label": self.label, "value": self.value}
        if self.detail:
            d["detail"] = self.detail
        if self.payments:
            d["payments"] = dict(self.payments)
        d["code"] = self.code
        if self.unit:
            d["unit"] = self.unit
        d["params"] = dict(self.params)
        if self.seat is not None:
            d["seat"] = self.seat
        return d


# What a breakdown line's ``value`` counts (docs/scoring.md): a multiplier of the base (×2), 番
# (doubling steps or added fan, as the rule set counts them), points, an exponent of 2 (2^n),
# a plain count (kongs, rounds), or how many seats the deal moves.
UNITS: Final = frozenset({"multiplier", "fan", "points", "exponent", "count", "seats"})


@dataclass(slots=True)
class Result:
    """How a hand ended."""

    status: str  # "win" | "draw"
    winner: int | None = None
    from_seat: int | None = None
    self_drawn: bool = False
    deltas: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    breakdown: list[BreakdownItem] = field(default_factory=list)
    win_kind: str | None = None  # "self_draw" | "discard" | "robbing_kong" | variant-specific
    win_tile: str | None = None  # the winning tile's code (None: a draw, or a win on the dealt hand)

    def __post_init__(self) -> None:
        if sum(self.deltas) != 0:
            raise AssertionError(f"hand deltas must sum to zero, got {self.deltas}")

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "winner": seat_name(self.winner) if self.winner is not None else None,
            "from": seat_name(self.from_seat) if self.from_seat is not None else None,
            "self_drawn": self.self_drawn,
            "deltas": {seat_name(i): d for i, d in enumerate(self.deltas)},
            "breakdown": [b.to_json() for b in self.breakdown],
            "win_kind": self.win_kind,
            "win_tile": self.win_tile,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Result:
        return cls(
            status=d["status"],
            winner=seat_index(d["winner"]) if d["winner"] else None,
            from_seat=seat_index(d["from"]) if d["from"] else None,
            self_drawn=d["self_drawn"],
            deltas=[d["deltas"][s] for s in SEATS],
            breakdown=[BreakdownItem(**b) for b in d["breakdown"]],
            win_kind=d.get("win_kind"),
            win_tile=d.get("win_tile"),
        )
