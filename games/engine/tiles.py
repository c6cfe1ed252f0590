"""Tile codes and the CONTRACT notation (spec/DESIGN.md §3).

Internally a tile is an ``int``:

* ``0..8``   1m..9m (万), ``9..17`` 1p..9p (筒), ``18..26`` 1s..9s (条)
* ``27..30`` winds E S W N, ``31`` C 中, ``32`` F 发, ``33`` P 白
* ``34..41`` flowers 1h..8h (春夏秋冬梅兰竹菊)

Notation: ``1m..9m 1p..9p 1s..9s``, honours ``E S W N C F P``, flowers ``1h..8h``.
Runs of digits may share one suffix (``123m456p EES``); whitespace is ignored.
``format_tiles`` keeps the order of its input so that parse/format round-trip.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Final

Tile = int

NUM_KINDS: Final = 34  # playable kinds without flowers
NUM_ALL_KINDS: Final = 42  # with the 8 flowers
SUIT_CHARS: Final = "mps"
HONOUR_CHARS: Final = "ESWNCFP"
# ASCII digits only: str.isdigit() and int() also take "５" (full-width), "٥" (Arabic-Indic) and,
# for isdigit, "⁵" (superscript), none of which is notation.
RANK_CHARS: Final = "0123456789"
FLOWER_BASE: Final = 34

EAST, SOUTH, WEST, NORTH = 27, 28, 29, 30
RED, GREEN, WHITE = 31, 32, 33  # 中 发 白
WINDS: Final = (EAST, SOUTH, WEST, NORTH)
DRAGONS: Final = (RED, GREEN, WHITE)
HONOURS: Final = WINDS + DRAGONS


class TileNotationError(ValueError):
    """Raised for text that is not valid tile notation."""


def is_suited(t: Tile) -> bool:
    return 0 <= t < 27


def is_honour(t: Tile) -> bool:
    return 27 <= t < 34


def is_flower(t: Tile) -> bool:
    return FLOWER_BASE <= t < NUM_ALL_KINDS


def suit_of(t: Tile) -> int:
    """0 万, 1 筒, 2 条 for suited tiles; 3 for honours; 4 for flowers."""
    if t < 27:
        return t // 9
    return 3 if t < 34 else 4


def rank_of(t: Tile) -> int:
    """1..9 for suited tiles (and 1..8 for flowers); 0 for honours."""
    if t < 27:
        return t % 9 + 1
    if t >= FLOWER_BASE:
        return t - FLOWER_BASE + 1
    return 0


def is_terminal_or_honour(t: Tile) -> bool:
    """幺九: a 1, a 9 or an honour."""
    return is_honour(t) or (is_suited(t) and rank_of(t) in (1, 9))


def make_tile(rank: int, suit: str) -> Tile:
    """``make_tile(5, "p")`` is 5p; ``suit`` is one of ``m p s h``."""
    if suit == "h":
        if not 1 <= rank <= 8:
            raise TileNotationError(f"flower rank must be 1..8, got {rank}h")
        return FLOWER_BASE + rank - 1
    if suit not in SUIT_CHARS or len(suit) != 1:
        raise TileNotationError(f"unknown suit {suit!r}")
    if not 1 <= rank <= 9:
        raise TileNotationError(f"rank must be 1..9, got {rank}{suit}")
    return SUIT_CHARS.index(suit) * 9 + rank - 1


def tile_str(t: Tile) -> str:
    """The notation of one tile: ``5p``, ``E``, ``3h``."""
    if 0 <= t < 27:
        return f"{t % 9 + 1}{SUIT_CHARS[t // 9]}"
    if 27 <= t < 34:
        return HONOUR_CHARS[t - 27]
    if FLOWER_BASE <= t < NUM_ALL_KINDS:
        return f"{t - FLOWER_BASE + 1}h"
    raise TileNotationError(f"no tile has code {t}")


def parse_tiles(text: str) -> list[Tile]:
    """Parse notation into tile codes, keeping the written order."""
    if not isinstance(text, str):  # snapshots and commands come from JSON: a list or a number is no tile
        raise TileNotationError(f"tile notation is text, not {type(text).__name__}: {text!r:.40}")
    out: list[Tile] = []
    digits: list[int] = []
    for ch in text:
        if ch.isspace():
            continue
        if ch in RANK_CHARS:  # one character, so never the empty-substring match
            digits.append(int(ch))
        elif ch in SUIT_CHARS or ch == "h":
            if not digits:
                raise TileNotationError(f"suffix {ch!r} without ranks in {text!r}")
            out.extend(make_tile(r, ch) for r in digits)
            digits.clear()
        elif ch in HONOUR_CHARS:
            if digits:
                raise TileNotationError(f"ranks {''.join(map(str, digits))} need a suffix before {ch!r} in {text!r}")
            out.append(27 + HONOUR_CHARS.index(ch))
        elif not ch.isascii():
            raise TileNotationError(
                f"unexpected character {ch!r} in {text!r}: tile notation is ASCII (1m..9m 1p..9p 1s..9s ESWNCFP 1h..8h)"
            )
        else:
            raise TileNotationError(f"unexpected character {ch!r} in {text!r}")
    if digits:
        raise TileNotationError(f"ranks {''.join(map(str, digits))} lack a suffix in {text!r}")
    return out


def parse_tile(text: str) -> Tile:
    """Parse exactly one tile."""
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise TileNotationError(f"expected one tile, got {len(tiles)} in {text!r}")
    return tiles[0]


def format_tiles(tiles: Iterable[Tile]) -> str:
    """Format tiles in their given order, sharing suffixes within runs of one suit."""
    return _format_tuple(tuple(tiles))


# Every frame of every seat formats every player's discards and flowers again, and a step
# changes one of them at most: remembering recent results cut the fan-out's rendering by more
# than half (docs/performance.md).  Keyed by the tiles themselves, so it is never stale.
@functools.lru_cache(maxsize=16384)
def _format_tuple(tiles: tuple[Tile, ...]) -> str:
    groups: list[str] = []
    run: list[str] = []
    run_suit = ""
    honours = ""

    def flush() -> None:
        nonlocal run, run_suit, honours
        if run:
            groups.append("".join(run) + run_suit)
            run, run_suit = [], ""
        if honours:
            groups.append(honours)
            honours = ""

    for t in tiles:
        s = tile_str(t)
        if is_honour(t):
            if run:
                flush()
            honours += s
        else:
            if honours or (run and run_suit != s[-1]):
                flush()
            run.append(s[:-1])
            run_suit = s[-1]
    flush()
    return " ".join(groups)


def to_counts(tiles: Iterable[Tile], size: int = NUM_KINDS) -> list[int]:
    """A count vector indexed by tile code."""
    counts = [0] * size
    for t in tiles:
        counts[t] += 1
    return counts


def from_counts(counts: Sequence[int]) -> list[Tile]:
    """Tiles in code order from a count vector."""
    return [t for t, n in enumerate(counts) for _ in range(n)]


def standard_set(with_flowers: bool = False, exclude: Iterable[Tile] = ()) -> list[Tile]:
    """Four of each of the 34 kinds (less ``exclude`` kinds), plus one of each flower."""
    skip = set(exclude)
    tiles = [t for t in range(NUM_KINDS) if t not in skip for _ in range(4)]
    if with_flowers:
        tiles.extend(range(FLOWER_BASE, NUM_ALL_KINDS))
    return tiles
