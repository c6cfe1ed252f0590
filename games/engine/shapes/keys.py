"""Keys (a component's counts read as a base-5 number) and the fast win checks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from games.engine.shapes.tables import _ALL_COSTLY, _HONOUR_CODE, _SUIT_CODE, _UNKNOWN, POW5, Keys, _suit_code


def suit_keys(counts: Sequence[int]) -> Keys:
    """The keys of the three suits and the honours of a count vector."""
    c = counts
    return (
        c[0] + 5 * c[1] + 25 * c[2] + 125 * c[3] + 625 * c[4]
        + 3125 * c[5] + 15625 * c[6] + 78125 * c[7] + 390625 * c[8],
        c[9] + 5 * c[10] + 25 * c[11] + 125 * c[12] + 625 * c[13]
        + 3125 * c[14] + 15625 * c[15] + 78125 * c[16] + 390625 * c[17],
        c[18] + 5 * c[19] + 25 * c[20] + 125 * c[21] + 625 * c[22]
        + 3125 * c[23] + 15625 * c[24] + 78125 * c[25] + 390625 * c[26],
        c[27] + 5 * c[28] + 25 * c[29] + 125 * c[30] + 625 * c[31]
        + 3125 * c[32] + 15625 * c[33],
    )  # fmt: skip


_KEY_STEP: Final = tuple((t // 9, POW5[t % 9]) if t < 27 else (3, POW5[t - 27]) for t in range(34))


def key_step(tile: int) -> tuple[int, int]:
    """``(component, step)``: adding one ``tile`` adds ``step`` to ``keys[component]``."""
    return _KEY_STEP[tile]


def update_keys(keys: Keys, tile: int, delta: int = 1) -> Keys:
    """The keys after adding ``delta`` copies of ``tile`` (negative to remove)."""
    comp, step = _KEY_STEP[tile]
    k = list(keys)
    k[comp] += delta * step
    return (k[0], k[1], k[2], k[3])


def _fill_codes(k0: int, k1: int, k2: int) -> int:
    return _suit_code(k0) + _suit_code(k1) + _suit_code(k2)


def is_win_keys(keys: Keys, wilds: int) -> bool:
    """Standard win (melds + one pair) from maintained keys: four table reads.

    The hand size need not be passed: each component's F0 already encodes its
    size mod 3, so the ``% 3`` test below rejects hands of the wrong size.
    """
    t = _SUIT_CODE
    s = t[keys[0]] + t[keys[1]] + t[keys[2]]
    if s >= _UNKNOWN:  # one sum test instead of three: any unknown entry overflows it
        s = _fill_codes(keys[0], keys[1], keys[2])
    s += _HONOUR_CODE[keys[3]]
    d = wilds - (s >> 3) - (2 if s & 7 == _ALL_COSTLY else -1)
    return d >= 0 and d % 3 == 0


def is_standard_win(counts: Sequence[int], wilds: int) -> bool:
    """Standard win: a pair and melds, with ``wilds`` wild tiles anywhere.

    Requires ``sum(counts) + wilds`` to be ``2 (mod 3)``; the wild tiles may
    form the pair and any number of all-wild melds.
    """
    c = counts
    t = _SUIT_CODE
    # Keys computed inline: this is the hot path, and a helper call (or going
    # through bytes and a dict, which was tried) costs as much again.
    k0 = (c[0] + 5 * c[1] + 25 * c[2] + 125 * c[3] + 625 * c[4]
          + 3125 * c[5] + 15625 * c[6] + 78125 * c[7] + 390625 * c[8])  # fmt: skip
    k1 = (c[9] + 5 * c[10] + 25 * c[11] + 125 * c[12] + 625 * c[13]
          + 3125 * c[14] + 15625 * c[15] + 78125 * c[16] + 390625 * c[17])  # fmt: skip
    k2 = (c[18] + 5 * c[19] + 25 * c[20] + 125 * c[21] + 625 * c[22]
          + 3125 * c[23] + 15625 * c[24] + 78125 * c[25] + 390625 * c[26])  # fmt: skip
    s = t[k0] + t[k1] + t[k2]
    if s >= _UNKNOWN:
        s = _fill_codes(k0, k1, k2)
    s += _HONOUR_CODE[c[27] + 5 * c[28] + 25 * c[29] + 125 * c[30] + 625 * c[31] + 3125 * c[32] + 15625 * c[33]]
    d = wilds - (s >> 3) - (2 if s & 7 == _ALL_COSTLY else -1)
    return d >= 0 and d % 3 == 0


def _codes(counts: Sequence[int]) -> tuple[Keys, tuple[int, int, int, int]]:
    keys = suit_keys(counts)
    t = _SUIT_CODE
    codes = (t[keys[0]], t[keys[1]], t[keys[2]], _HONOUR_CODE[keys[3]])
    if codes[0] == _UNKNOWN or codes[1] == _UNKNOWN or codes[2] == _UNKNOWN:
        codes = (_suit_code(keys[0]), _suit_code(keys[1]), _suit_code(keys[2]), codes[3])
    return keys, codes


def wilds_needed(counts: Sequence[int]) -> int:
    """The fewest wilds that complete the standard shape.

    The answer ``w`` always satisfies ``(sum(counts) + w) % 3 == 2``; with
    more wilds a hand wins exactly when it holds ``w + 3j`` of them (the
    extra ones form all-wild melds).
    """
    _, codes = _codes(counts)
    s = codes[0] + codes[1] + codes[2] + codes[3]
    return (s >> 3) + (2 if s & 7 == _ALL_COSTLY else -1)
