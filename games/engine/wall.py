"""The wall: seeded shuffle, dice and break, head draws, tail (replacement) draws.

The physical wall is a ring of two-tile stacks, one wall of stacks in front of
each seat.  We store it as one list ``tiles`` in *head order*: index 0 is the
first tile taken after the break, stack ``j`` holds indices ``2j`` (top) and
``2j+1`` (bottom).  Normal draws walk forwards from the head; replacement draws
come from the far end, stack by stack, top tile first then the bottom one
(000 text: "补花按照从左到右，从上至下的顺序取牌").

Some positions hold a face-up tile: it is visible to everyone and may be one
that draws skip (the 财神前导牌 of D0) or one that stays drawable (漳州's 金).

Fairness: a real hand's wall comes from a seed drawn with ``secrets``; the
SHA-256 of the seed is published at hand start and the seed itself at hand end,
so anyone can re-derive the wall with :func:`shuffled_tiles`.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine.tiles import Tile


class WallExhausted(Exception):
    """A draw was asked of a wall with no drawable tile left."""


def new_seed() -> str:
    """A fresh unpredictable seed for a real hand."""
    return secrets.token_hex(16)


def seed_commitment(seed: str) -> str:
    """The SHA-256 (hex) published before the hand: commits to the seed."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def shuffled_tiles(tile_set: Sequence[Tile], seed: str) -> tuple[list[Tile], tuple[int, int]]:
    """The shuffled tiles and the two dice, both derived from ``seed`` only."""
    rng = random.Random(seed_commitment("wall:" + seed))
    tiles = list(tile_set)
    rng.shuffle(tiles)
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    return tiles, dice


def break_point(dice: tuple[int, int], stacks_per_wall: int) -> tuple[int, int]:
    """D0's break rule: ``(seat_offset, stack_index)``.

    Count ``A`` (the dice sum) seats from the dealer as 1 in turn order; in that
    seat's wall, dealing starts at stack ``B + 1`` from the left, where ``B`` is
    the smaller die.  Returns the seat offset from the dealer (0..3) and the
    0-based stack index within that seat's wall.
    """
    a = dice[0] + dice[1]
    b = min(dice)
    return (a - 1) % 4, b % stacks_per_wall


def break_order(ring: Sequence[Tile], dice: tuple[int, int]) -> list[Tile]:
    """Rotate the physical ring (walls of dealer, 下家, 对家, 上家) to head order."""
    stacks_per_wall = len(ring) // 8
    seat, stack = break_point(dice, stacks_per_wall)
    start = 2 * (seat * stacks_per_wall + stack)
    return list(ring[start:]) + list(ring[:start])


@dataclass
class Wall:
    """Undrawn tiles with a head and a tail end."""

    tiles: list[Tile]
    taken: list[bool] = field(default_factory=list)
    skip: set[int] = field(default_factory=set)  # face-up positions draws never take
    face_up: set[int] = field(default_factory=set)  # positions shown to everyone
    head: int = 0  # next head position to look at
    tail_cursor: int = 0  # how many tail-order positions have been passed

    def __post_init__(self) -> None:
        if not self.taken:
            self.taken = [False] * len(self.tiles)
        self.recount()

    def recount(self) -> None:
        """Recompute the cached counts (after the tiles or marks were set directly)."""
        if len(self.taken) != len(self.tiles):
            self.taken = [False] * len(self.tiles)
        untaken = [p for p in range(len(self.tiles)) if not self.taken[p]]
        self._remaining = sum(1 for p in untaken if p not in self.skip)
        self._face_down = sum(1 for p in untaken if p not in self.face_up)

    def mark_face_up(self, pos: int, drawable: bool) -> None:
        """Turn the tile at ``pos`` face up; draws skip it unless ``drawable``."""
        self.face_up.add(pos)
        if not drawable:
            self.skip.add(pos)
        self.recount()

    # -- geometry -----------------------------------------------------------------
    def tail_position(self, k: int) -> int:
        """The position of the ``k``-th tile in replacement-draw order."""
        n = len(self.tiles)
        if n % 2:
            # An odd wall has a lone tile at its far end: it goes first.
            if k == 0:
                return n - 1
            k -= 1
            n -= 1
        stack = n // 2 - 1 - k // 2
        return 2 * stack + k % 2

    # -- draws --------------------------------------------------------------------
    def _available(self, pos: int) -> bool:
        return not self.taken[pos] and pos not in self.skip

    def remaining(self) -> int:
        """Tiles still drawable (head or tail)."""
        return self._remaining

    def face_down_left(self) -> int:
        """Face-down tiles still in the wall (live and dead): the scenario's ``wall_left``."""
        return self._face_down

    def _take(self, pos: int) -> Tile:
        self.taken[pos] = True
        self._remaining -= 1
        if pos not in self.face_up:
            self._face_down -= 1
        return self.tiles[pos]

    def peek_head(self) -> Tile | None:
        pos = self.head
        while pos < len(self.tiles) and not self._available(pos):
            pos += 1
        return self.tiles[pos] if pos < len(self.tiles) else None

    def draw_head(self) -> Tile:
        while self.head < len(self.tiles) and not self._available(self.head):
            self.head += 1
        if self.head >= len(self.tiles):
            raise WallExhausted("no tile left at the head")
        return self._take(self.head)

    def draw_tail(self) -> Tile:
        n = len(self.tiles)
        while self.tail_cursor < n:
            pos = self.tail_position(self.tail_cursor)
            self.tail_cursor += 1
            if self._available(pos):
                return self._take(pos)
        raise WallExhausted("no tile left at the tail")

    def face_up_tiles(self) -> list[Tile]:
        return [self.tiles[p] for p in sorted(self.face_up) if not self.taken[p]]

    # -- snapshots ----------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "tiles": list(self.tiles),
            "taken": [i for i, t in enumerate(self.taken) if t],
            "skip": sorted(self.skip),
            "face_up": sorted(self.face_up),
            "head": self.head,
            "tail_cursor": self.tail_cursor,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Wall:
        tiles = list(data["tiles"])
        taken = [False] * len(tiles)
        for i in data["taken"]:
            # A snapshot from outside (a replay someone sends) may name any position: one off the
            # wall is refused, not wrapped round (-1) or left to fail as an IndexError.
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(tiles):
                raise ValueError(f"wall position {i!r} is not in a wall of {len(tiles)} tiles")
            taken[i] = True
        return cls(
            tiles=tiles,
            taken=taken,
            skip=set(data["skip"]),
            face_up=set(data["face_up"]),
            head=data["head"],
            tail_cursor=data["tail_cursor"],
        )


def rigged_wall(
    total: int,
    head: Sequence[Tile],
    tail: Sequence[Tile],
    filler: Sequence[Tile],
    fixed: dict[int, Tile] | None = None,
    fixed_tail: dict[int, Tile] | None = None,
) -> Wall:
    """A wall of ``total`` positions whose draws are given.

    ``head`` are the tiles normal draws take in order, ``tail`` those replacement
    draws take in order; ``fixed`` pins tiles to head-order positions and
    ``fixed_tail`` to tail-order ranks (for face-up tiles such as an indicator);
    ``filler`` fills every other position in head order.
    """
    wall = Wall(tiles=[-1] * total)
    slots: list[Tile | None] = [None] * total
    for pos, tile in (fixed or {}).items():
        slots[pos] = tile
    for k, tile in (fixed_tail or {}).items():
        slots[wall.tail_position(k)] = tile
    k = 0
    for tile in tail:
        while slots[wall.tail_position(k)] is not None:
            k += 1
        slots[wall.tail_position(k)] = tile
        k += 1
    pos = 0
    for tile in head:
        while slots[pos] is not None:
            pos += 1
        slots[pos] = tile
        pos += 1
    rest = iter(filler)
    for i, s in enumerate(slots):
        slots[i] = next(rest, None) if s is None else s
    wall.tiles = [t for t in slots if t is not None]
    if len(wall.tiles) != total:
        raise ValueError("rigged wall: not enough filler tiles")
    wall.taken = [False] * total
    wall.recount()
    return wall
