"""东北麻将 (D4) hand shapes: the winning forms, the waits 报听 looks at, and the 番 patterns.

No wilds in this rule set, so every count vector here is the plain 34-kind one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from games.engine import shapes
from games.engine.state import KONG_ADDED, KONG_CONCEALED, KONG_EXPOSED, MELD_CHOW, MELD_PUNG, Meld
from games.engine.tiles import (
    NUM_KINDS,
    SUIT_CHARS,
    Tile,
    is_honour,
    is_suited,
    is_terminal_or_honour,
    rank_of,
    suit_of,
    tile_str,
)

STANDARD, SEVEN_PAIRS, THIRTEEN_ORPHANS = "standard", "seven_pairs", "thirteen_orphans"
YAOJIU: tuple[Tile, ...] = tuple(t for t in range(NUM_KINDS) if is_terminal_or_honour(t))
# Melds that open the hand (开门): everything but a concealed kong.
OPEN_KINDS = frozenset({MELD_CHOW, MELD_PUNG, KONG_EXPOSED, KONG_ADDED})


def has_yaojiu(counts: Sequence[int]) -> bool:
    return any(counts[t] for t in YAOJIU)


def win_forms(counts: Sequence[int], n_melds: int) -> list[str]:
    """The winning forms a concealed part (``counts``, 34 kinds) with ``n_melds`` melds beside it makes."""
    forms: list[str] = []
    if shapes.is_standard_win(counts, 0):
        forms.append(STANDARD)
    if n_melds == 0:
        # 七小对 must hold a 1, 9 or honour (不可少幺九).
        if shapes.SEVEN_PAIRS.is_win(counts, 0) and has_yaojiu(counts):
            forms.append(SEVEN_PAIRS)
        if shapes.THIRTEEN_ORPHANS.is_win(counts, 0):
            forms.append(THIRTEEN_ORPHANS)
    return forms


def waiting_tiles(counts: Sequence[int], n_melds: int) -> list[Tile]:
    """Every tile kind that would complete the 3n+1 concealed part ``counts``, in code order."""
    out = set(shapes.waits(counts, 0))
    if n_melds == 0:
        pairs_waits = shapes.SEVEN_PAIRS.waits(counts, 0)
        if pairs_waits:
            held = has_yaojiu(counts)
            out.update(t for t in pairs_waits if held or is_terminal_or_honour(t))
        out.update(shapes.THIRTEEN_ORPHANS.waits(counts, 0))
    return sorted(out)


def may_be_ready(counts: Sequence[int], n_melds: int) -> bool:
    """A cheap necessary test that some discard from the 3n+2 part ``counts`` leaves it waiting.

    报听 options are looked for on every turn, so this must cost next to nothing: a
    hand one tile from waiting needs at most three wilds to complete (one for the
    missing tile, two to absorb the extra one), and a wild count is one table lookup.
    """
    if shapes.wilds_needed(counts) <= 3:
        return True
    if n_melds:
        return False
    return sum(x >> 1 for x in counts) >= 6 or sum(counts[t] for t in YAOJIU) >= 12


def could_wait(counts: Sequence[int], n_melds: int) -> bool:
    """A cheap necessary test that the 3n+1 part ``counts`` waits on something."""
    if shapes.wilds_needed(counts) == 1:
        return True
    if n_melds:
        return False
    return sum(x >> 1 for x in counts) >= 6 or sum(counts[t] for t in YAOJIU) >= 12


@dataclass(slots=True)
class Fan:
    """One 番 item: a stable key, the Chinese label, its value and a note (明/暗, the tile...)."""

    name: str
    label: str
    value: int
    detail: str = ""
    tiles: str = ""  # the tiles it is made of, in tile notation ("234p", "2m")
    exposed: bool | None = None  # 明 (True) or 暗 (False); None: neither applies


def run_str(start: Tile) -> str:
    """``234p`` for the sequence starting at 2p."""
    r = rank_of(start)
    return f"{r}{r + 1}{r + 2}{SUIT_CHARS[suit_of(start)]}"


def sequence_fans(exposed: Iterable[Tile], concealed: Iterable[Tile], exposed_only: bool) -> list[Fan]:
    """一般高 (two identical sequences, 1番) and 两般高 (three, 2番) from sequence start tiles.

    ``exposed`` are the starts of chowed melds, ``concealed`` those read from the hand.
    A pattern is 明 only when every sequence in it is exposed; with ``exposed_only``
    (a loser's payment) only the exposed sequences are looked at, so only 明 patterns
    count.  Three or more alike make 两般高, which does not also score 一般高 (SPEC D4.3.5).
    """
    shown = Counter(exposed)
    hidden: Counter[Tile] = Counter() if exposed_only else Counter(concealed)
    fans: list[Fan] = []
    for start in sorted(set(shown) | set(hidden)):
        n = shown[start] + hidden[start]
        run = run_str(start)
        if n >= 3:
            ming = shown[start] >= 3
            fans.append(Fan("triple_sequence", "两般高", 2, f"{run} {'明' if ming else '暗'}", run, ming))
        elif n == 2:
            ming = shown[start] == 2
            fans.append(Fan("double_sequence", "一般高", 1, f"{run} {'明' if ming else '暗'}", run, ming))
    return fans


def four_alike_fans(concealed: Sequence[int], melds: Sequence[Meld], exposed_only: bool) -> list[Fan]:
    """四归一: four of one suited kind among the hand and its chows/pungs (never a kong), 1番 each.

    明 when all four lie in exposed melds; with ``exposed_only`` (a loser's payment) only
    the 明 ones count.
    """
    shown = [0] * NUM_KINDS
    for m in melds:
        if m.kind in (MELD_CHOW, MELD_PUNG):
            for t in m.tiles:
                shown[t] += 1
    fans: list[Fan] = []
    for t in range(27):
        n = shown[t] + (0 if exposed_only else concealed[t])
        if n == 4:
            ming = shown[t] == 4
            fans.append(Fan("four_alike", "四归一", 1, f"{tile_str(t)} {'明' if ming else '暗'}", tile_str(t), ming))
    return fans


def best_sequence_fans(counts: Sequence[int], melds: Sequence[Meld]) -> list[Fan]:
    """The reading of a standard win that scores the most 一般高/两般高."""
    chows = [m.tiles[0] for m in melds if m.kind == MELD_CHOW]
    best: list[Fan] = sequence_fans(chows, (), exposed_only=False)
    best_total = sum(f.value for f in best)
    for d in shapes.decompositions(counts, 0):
        runs = [g.tiles[0] for g in d.melds if g.kind == "sequence"]
        fans = sequence_fans(chows, runs, exposed_only=False)
        total = sum(f.value for f in fans)
        if total > best_total:
            best, best_total = fans, total
    return best


def all_tiles(counts: Sequence[int], melds: Sequence[Meld]) -> list[Tile]:
    tiles = [t for t in range(NUM_KINDS) for _ in range(counts[t])]
    for m in melds:
        tiles.extend(m.tiles)
    return tiles


def flush_kind(tiles: Iterable[Tile]) -> str | None:
    """``"full"`` (清一色), ``"half"`` (混一色) or ``None``."""
    suits = set()
    honours = False
    for t in tiles:
        if is_honour(t):
            honours = True
        elif is_suited(t):
            suits.add(suit_of(t))
    if len(suits) != 1:
        return None
    return "half" if honours else "full"


def is_closed(melds: Sequence[Meld]) -> bool:
    """立门 (门清): no chow, pung or exposed/added kong; a concealed kong keeps the hand closed."""
    return not any(m.kind in OPEN_KINDS for m in melds)


def is_one_left(concealed_size: int, melds: Sequence[Meld], winning: bool) -> bool:
    """手把一: four chowed/punged/明杠 melds and one tile in hand (two with the winning tile); no 暗杠."""
    if any(m.kind == KONG_CONCEALED for m in melds) or len(melds) != 4:
        return False
    return concealed_size == (2 if winning else 1)
