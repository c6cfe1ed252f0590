"""What a ready hand's win would pay, wait by wait, from one seat's view.

A ready (听) concealed part waits on some kinds; each completes a winning hand that the rule
set's own scorer values.  Where the pay of a win grows with the hand (浙东得's (和 + 10) · 2^番,
up to 腊子), two ready hands with the same number of waits are not worth the same: a closed
wait (嵌档) or a pair wait on a dragon adds 和, a wait that completes a dragon or own-wind
triplet adds a 番, and the winner's 得 are read wherever they score most.
:func:`zhedong_ready_total` weighs each wait's total by its unseen copies: the average total
of the win this part would make, were it won on a discard.

Only what the seat may see is read: its own concealed part and melds, its seat wind, the 得
and the table's options.  The scorer's search is exhaustive, so the totals are kept per part
(a seat meets the same part on its turn and in the claim windows between).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, Final

from games.engine.state import Meld
from games.engine.tiles import NUM_KINDS, Tile
from games.engine.variants import get_variant
from games.engine.variants.zhedong_de import scoring as zhedong_scoring

CACHE_LIMIT: Final = 50_000

_MeldsKey = tuple[tuple[str, tuple[Tile, ...]], ...]
_TotalKey = tuple[tuple[int, ...], _MeldsKey, Tile, Tile, Tile, tuple[tuple[str, Any], ...]]
_TOTALS: dict[_TotalKey, int | None] = {}


def zhedong_win_total(
    part: Sequence[int], melds: Sequence[Meld], de: Tile, own_wind: Tile, tile: Tile, options: Mapping[str, Any]
) -> int | None:
    """The winner's total (capped at 腊子) of the 3n+1 ``part`` won on a discarded ``tile``;
    None when that tile does not complete it."""
    counts = list(part[:NUM_KINDS])
    counts[tile] += 1
    key: _TotalKey = (
        tuple(counts),
        tuple((m.kind, m.tiles) for m in melds),
        de,
        own_wind,
        tile,
        tuple(sorted(options.items())),
    )
    if key in _TOTALS:
        return _TOTALS[key]
    total: int | None = None
    if zhedong_scoring.can_win(counts, de):
        full = {**_zhedong_defaults(), **options}  # a view carries every option; a test may not
        spec = zhedong_scoring.WinSpec(tuple(counts), tuple(melds), de, own_wind, tile, False, full)
        total = zhedong_scoring.score_winner(spec)[0].total
    if len(_TOTALS) >= CACHE_LIMIT:
        _TOTALS.clear()
    _TOTALS[key] = total
    return total


@functools.cache
def _zhedong_defaults() -> dict[str, Any]:
    return dict(get_variant("zhedong_de").validate_options({}))


def zhedong_ready_total(
    part: Sequence[int],
    melds: Sequence[Meld],
    waits: Sequence[tuple[Tile, int]],
    de: Tile,
    own_wind: Tile,
    options: Mapping[str, Any],
) -> float | None:
    """The average winner's total over ``waits`` ((kind, unseen copies)) of a ready ``part``,
    weighted by the copies; None when no wait is left to draw or none scores."""
    weighted = 0.0
    copies = 0
    for tile, unseen in waits:
        if not unseen:
            continue
        total = zhedong_win_total(part, melds, de, own_wind, tile, options)
        if total is None:
            continue
        weighted += unseen * total
        copies += unseen
    return weighted / copies if copies else None


def clear_cache() -> None:
    _TOTALS.clear()


__all__ = ["clear_cache", "zhedong_ready_total", "zhedong_win_total"]
