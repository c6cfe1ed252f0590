"""Wait masks per component key, by wild budget: what :func:`games.engine.shapes.waits` reads.

The ``waits`` function itself lives in :mod:`games.engine.shapes.forms`, beside the win
forms it dispatches to (the standard form's waits are these masks: keeping the two
apart would make the modules import each other).
"""

from __future__ import annotations

from typing import Final

from games.engine.shapes.tables import _CACHE_LIMIT, _HONOUR_CODE, POW5, _code_f1, _suit_code

# Wait masks per key: (masks by budget when this component hosts the pair,
# masks by budget when it holds melds only, mask of every addable rank).
# "Budget" is the number of wilds the component may use after the tile is
# added; past the end of a tuple every addable rank qualifies.
_Masks = tuple[tuple[int, ...], tuple[int, ...], int]
_SUIT_MASKS: dict[int, _Masks] = {}
_HONOUR_MASKS: dict[int, _Masks] = {}


def _masks_from(values: list[tuple[int, int, int]]) -> _Masks:
    """``values`` holds (bit, F0 after adding, F1 after adding) per addable rank."""
    full = 0
    top = 0
    for bit, f0, f1 in values:
        full |= bit
        top = max(top, f0, f1)
    host = tuple(sum(bit for bit, _, f1 in values if f1 <= b) for b in range(top + 1))
    melds = tuple(sum(bit for bit, f0, _ in values if f0 <= b) for b in range(top + 1))
    return host, melds, full


def _suit_masks(key: int) -> _Masks:
    m = _SUIT_MASKS.get(key)
    if m is None:
        vals = []
        for r in range(9):
            if key // POW5[r] % 5 < 4:  # a fifth real copy cannot be drawn
                code = _suit_code(key + POW5[r])
                vals.append((1 << r, code >> 3, _code_f1(code)))
        m = _masks_from(vals)
        if len(_SUIT_MASKS) >= _CACHE_LIMIT:
            _SUIT_MASKS.clear()
        _SUIT_MASKS[key] = m
    return m


def _honour_masks(key: int) -> _Masks:
    m = _HONOUR_MASKS.get(key)
    if m is None:
        vals = []
        for r in range(7):
            if key // POW5[r] % 5 < 4:
                code = _HONOUR_CODE[key + POW5[r]]
                vals.append((1 << r, code >> 3, _code_f1(code)))
        m = _masks_from(vals)
        _HONOUR_MASKS[key] = m
    return m


def _mask_for(m: _Masks, host_budget: int, melds_budget: int) -> int:
    host, melds, full = m
    mask = 0
    if host_budget >= 0:
        mask = host[host_budget] if host_budget < len(host) else full
    if melds_budget >= 0:
        mask |= melds[melds_budget] if melds_budget < len(melds) else full
    return mask


_MASK_TILES: Final = tuple(
    tuple(tuple(base + r for r in range(9) if mask >> r & 1) for mask in range(512)) for base in (0, 9, 18, 27)
)
