"""How dangerous a discard is, from one seat's view: each opponent's threat and each tile's risk.

Two estimates, both read only from what the seat may see (its view's players: ponds, open melds,
public flags such as 东北's 报听 and 漳州's 游金):

* :func:`threat` — the chance that an opponent is ready now.  A declared ready hand (报听) is
  ready for sure; otherwise the chance grows with the discards the opponent has made (the turns
  it has had to build its hand) and with its open melds (each is a finished group on show).
* :func:`tile_risk` — the chance that a ready opponent waits on a kind.  A kind the opponent
  has thrown itself is less likely (nothing stops a win on it in these rule sets, but a player
  rarely keeps a wait on what it threw away); a suited kind three ranks from one it threw
  (筋, suji) is covered for a two-sided wait; an honour or terminal fits fewer waits than a
  middle tile; and the fewer copies are left unseen, the fewer pairs and triplets can wait on
  it — none when every other copy is in sight.  Safest of all is a kind another player threw
  after the opponent's own last discard: its waits are the same since, and it did not win.  A
  wild kind is never a risk: no rule set lets
  anyone win on a discarded wild.

The numbers are rough frequencies, not a model fitted to play: they order the tiles and scale
the strong bot's fold decision (:mod:`games.engine.strong_bot`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Final

from games.engine.tiles import Tile

# Chance a ready hand's waits include a kind, by its rank within a suit (1..9); honours apart.
_SUITED_RISK: Final = (0.055, 0.075, 0.095, 0.105, 0.105, 0.105, 0.095, 0.075, 0.055)
_HONOUR_RISK_PER_UNSEEN: Final = 0.03
# A kind the opponent threw itself, and a suited kind covered by 筋 (three ranks from one it threw).
_OWN_DISCARD: Final = 0.3
_SUJI: Final = 0.55
# A kind another player threw after the opponent's own last discard, which it did not win on:
# its waits have not changed since, and a player takes a win it is offered.
_PASSED: Final = 0.05
# With wilds a ready hand often waits on many kinds, and 筋 says less.
_WILD_SPREAD: Final = 1.6


@dataclass(frozen=True, slots=True)
class Opponent:
    """What a seat sees of another player."""

    seat: int
    discards: tuple[Tile, ...]  # its pond in order, claimed tiles included (it threw them)
    open_melds: int  # chows, pungs and exposed kongs (a concealed kong shows nothing)
    declared_ready: bool = False  # 报听
    passed: frozenset[Tile] = frozenset()  # kinds others threw since its own last discard
    safe: frozenset[Tile] = frozenset()  # kinds thrown since it declared ready: not its wait
    you: int = 0  # 漳州 游金 level: it passes discard wins while in 游


def threat(o: Opponent) -> float:
    """The chance that ``o`` is ready now (see the module docstring)."""
    if o.declared_ready:
        return 1.0
    progress = len(o.discards) + 2.5 * o.open_melds
    return 1.0 / (1.0 + math.exp(-(progress - 10.0) / 2.5))


def tile_risk(t: Tile, o: Opponent, unseen: int, wilds: Collection[Tile], has_wilds: bool) -> float:
    """The chance that ``o``, when ready, waits on kind ``t`` (``unseen``: copies the seat has not
    seen; ``wilds``: the wild kinds; ``has_wilds``: the rule set plays wilds at all)."""
    if t in wilds or t in o.safe:
        return 0.0
    if t >= 27:
        risk = _HONOUR_RISK_PER_UNSEEN * unseen
    else:
        rank = t % 9
        risk = _SUITED_RISK[rank] * (0.7 + 0.1 * unseen)
        if not has_wilds and _suji(t, o.discards):
            risk *= _SUJI
    if t in o.passed:
        return risk * _PASSED
    if t in o.discards:
        risk *= _OWN_DISCARD if not has_wilds else 0.5
    if has_wilds:
        risk *= _WILD_SPREAD
    return risk


def _suji(t: Tile, discards: Sequence[Tile]) -> bool:
    """Is suited ``t`` covered by 筋 of the opponent's discards?  Ranks 1-3 and 7-9 by the one
    tile three ranks inwards; 4-6 need both sides."""
    rank, base = t % 9, t - t % 9
    lower = rank - 3 >= 0 and base + rank - 3 in discards
    upper = rank + 3 <= 8 and base + rank + 3 in discards
    if rank <= 2:
        return upper
    if rank >= 6:
        return lower
    return lower and upper


def danger(t: Tile, opponents: Sequence[Opponent], unseen: int, wilds: Collection[Tile], has_wilds: bool) -> float:
    """The chance that discarding ``t`` deals into some opponent's win (each independent)."""
    safe = 1.0
    for o in opponents:
        if o.you:
            continue  # in 游 the next own draw wins bigger: a discard win is passed
        safe *= 1.0 - threat(o) * tile_risk(t, o, unseen, wilds, has_wilds)
    return 1.0 - safe
