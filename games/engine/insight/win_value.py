"""What a ready hand's win would pay, wait by wait, from one seat's view.

A ready (听) concealed part waits on some kinds; each completes a winning hand that the rule
set's own scorer values.  Where the pay of a win grows with the hand, two ready hands with the
same number of waits are not worth the same:

* 浙东得 pays (和 + 10) · 2^番, up to 腊子: a closed wait (嵌档) or a pair wait on a dragon adds
  和, a wait that completes a dragon or own-wind triplet adds a 番, and the winner's 得 are read
  wherever they score most.  :func:`zhedong_ready_total` is the average winner's total.
* 东北 pays each loser 2^(番 of the winner + its own); the winner's 番 of the hand itself are
  立门, 七小对, 一般高 / 两般高, 四归一 and the flushes (报听 where declared).
  :func:`dongbei_ready_multiplier` is the average 2^番.

Each wait's figure is weighted by its unseen copies, for a win on a discard.  Only what the
seat may see is read: its own concealed part and melds, its seat wind and flags, the 得 and
the table's options.  The scorers' searches are exhaustive, so the figures are kept per part
(a seat meets the same part on its turn and in the claim windows between).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, Final

from games.engine.state import Meld
from games.engine.tiles import NUM_KINDS, Tile
from games.engine.variants import get_variant
from games.engine.variants.dongbei import hands as dongbei_hands
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


_FanKey = tuple[tuple[int, ...], _MeldsKey, bool, int, int, int]
_FANS: dict[_FanKey, int | None] = {}


def dongbei_win_fan(
    part: Sequence[int], melds: Sequence[Meld], tile: Tile, declared: bool, options: Mapping[str, Any]
) -> int | None:
    """The 番 the hand itself gives the winner of the 3n+1 ``part`` won on ``tile`` (its best
    reading; 十三幺 as the cap's 番 plus one, since it pays twice the cap); None when the tile
    does not complete it.  自摸, 点炮 and the dealer's 番 are the same for every wait and left out."""
    counts = list(part[:NUM_KINDS])
    counts[tile] += 1
    half = int(options.get("fan_half_flush", 1))
    full = int(options.get("fan_full_flush", 2))
    cap = int(options.get("cap", 8))
    key: _FanKey = (tuple(counts), tuple((m.kind, m.tiles) for m in melds), declared, half, full, cap)
    if key in _FANS:
        return _FANS[key]
    best: int | None = None
    for form in dongbei_hands.win_forms(counts, len(melds)):
        if form == dongbei_hands.THIRTEEN_ORPHANS:
            fan = cap + 1
        else:
            fan = 1 if declared else 0
            if form == dongbei_hands.SEVEN_PAIRS:
                fan += 3  # 七小对 does not add 立门
            else:
                fan += 1 if dongbei_hands.is_closed(melds) else 0
                fan += sum(f.value for f in dongbei_hands.best_sequence_fans(counts, melds))
            fan += 1 if dongbei_hands.is_one_left(sum(counts), melds, winning=True) else 0
            fan += sum(f.value for f in dongbei_hands.four_alike_fans(counts, melds, exposed_only=False))
            flush = dongbei_hands.flush_kind(dongbei_hands.all_tiles(counts, melds))
            fan += half if flush == "half" else full if flush == "full" else 0
        best = fan if best is None else max(best, fan)
    if len(_FANS) >= CACHE_LIMIT:
        _FANS.clear()
    _FANS[key] = best
    return best


def dongbei_ready_multiplier(
    part: Sequence[int],
    melds: Sequence[Meld],
    waits: Sequence[tuple[Tile, int]],
    declared: bool,
    options: Mapping[str, Any],
) -> float | None:
    """The average 2^番 (the hand's own, capped) over ``waits`` of a ready ``part``, weighted by
    the copies: 1 for an open hand with nothing more, 2 for a plain 立门; None when no wait
    is left to draw or none scores."""
    cap = int(options.get("cap", 8))
    weighted = 0.0
    copies = 0
    for tile, unseen in waits:
        if not unseen:
            continue
        fan = dongbei_win_fan(part, melds, tile, declared, options)
        if fan is None:
            continue
        weighted += unseen * float(2 ** min(fan, cap + 1))
        copies += unseen
    return weighted / copies if copies else None


def clear_cache() -> None:
    _TOTALS.clear()
    _FANS.clear()


__all__ = [
    "clear_cache",
    "dongbei_ready_multiplier",
    "dongbei_win_fan",
    "zhedong_ready_total",
    "zhedong_win_total",
]
