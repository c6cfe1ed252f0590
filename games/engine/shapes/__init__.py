"""Hand-shape analysis with wild tiles: win, waits, shanten, decompositions.

Everything here works on count vectors (``Sequence[int]`` of length 34, indexed
by tile code, see :mod:`games.engine.tiles`) plus a separate number of wilds.
The caller has already taken the wild tiles out of the counts; a wild may stand
for any tile, including its own face, and never counts against the four-copy
limit.

Why tables
----------
A hand splits into four independent *components*: the three suits and the
honours.  No meld crosses a component, so everything about a component that
matters for the standard shape (melds + one pair) condenses into two numbers:

* ``F0`` - the fewest wilds that turn the component into melds only;
* ``F1`` - the fewest wilds that turn it into melds plus exactly one pair
  (the pair may be two wilds).

A component of ``n`` tiles has ``n + F0 = 0`` and ``n + F1 = 2`` (mod 3), and
one can always go from one to the other by adding a wild to a pair (``F0 <=
F1 + 1``) or a wild pair to the melds (``F1 <= F0 + 2``); so ``F1`` is either
``F0 - 1`` or ``F0 + 2`` and one bit says which.  A whole hand then needs
``sum(F0) - 1`` wilds if some component can host the pair cheaply and
``sum(F0) + 2`` otherwise (that ``+2`` is the all-wild pair).  Wilds left over
after that always come in threes (the hand size fixes it) and form all-wild
melds.

The per-component facts are looked up by a *key*: the component's count vector
read as a base-5 number (digit ``r`` is the count of rank ``r + 1``), so adding
or removing one tile moves the key by ``5 ** r``.  The honour table (5**7
keys) is built in full at import in a few milliseconds.  The suit table has
5**9 (about two million) keys, far too many to fill in pure Python at startup,
so it is a list pre-set to *unknown* and filled on first use by a short
memoised recursion over sub-keys; realistic hands touch a few tens of
thousands of keys, after which every query is a handful of list reads.
:func:`warm_tables` pre-fills all small suit shapes for servers that would
rather pay once at startup.

The other analyses reuse the same keys with their own lazily filled tables:
wait masks by wild budget (:func:`waits`), maximal tile *cover* by number of
melds (:func:`shanten`) and per-suit decomposition lists
(:func:`decompositions`).

The package splits along those lines: ``tables`` (the F0/F1 codes), ``keys`` (keys
and the fast win checks), ``waits`` (wait masks), ``shanten`` (cover tables), ``forms``
(the win forms and the analyses that take them) and ``decompositions``.  Import from
the package: every public name is re-exported here.
"""

from __future__ import annotations

from games.engine.shapes.decompositions import (
    _SPLITS,
    WILD_PAIR,
    WILD_TRIPLET,
    Decomposition,
    Group,
    GroupKind,
    PartialDecomposition,
    best_decomposition,
    decompositions,
)
from games.engine.shapes.forms import (
    EIGHT_PAIRS_PLUS_ONE,
    SEVEN_PAIRS,
    SEVEN_PAIRS_DISTINCT,
    STANDARD,
    THIRTEEN_ORPHANS,
    PairsForm,
    StandardForm,
    ThirteenOrphansForm,
    WinForm,
    is_win,
    shanten_special,
    shanten_special_each,
    substitute,
    waits,
)
from games.engine.shapes.keys import is_standard_win, is_win_keys, key_step, suit_keys, update_keys, wilds_needed
from games.engine.shapes.shanten import (
    _EMPTY_COVER,
    _HONOUR_COVER,
    _OTHER_JOINS,
    _PAIR_JOINS,
    _SUIT_COVER,
    shanten,
    shanten_each,
    shanten_each_and_wild,
)
from games.engine.shapes.tables import _SUIT_CODE, _UNKNOWN, NUM_SUIT_KEYS, UNREACHABLE, Keys, warm_tables
from games.engine.shapes.waits import _HONOUR_MASKS, _SUIT_MASKS

__all__ = [
    "EIGHT_PAIRS_PLUS_ONE",
    "SEVEN_PAIRS",
    "SEVEN_PAIRS_DISTINCT",
    "STANDARD",
    "THIRTEEN_ORPHANS",
    "UNREACHABLE",
    "WILD_PAIR",
    "WILD_TRIPLET",
    "Decomposition",
    "Group",
    "GroupKind",
    "Keys",
    "PairsForm",
    "PartialDecomposition",
    "StandardForm",
    "ThirteenOrphansForm",
    "WinForm",
    "best_decomposition",
    "clear_caches",
    "forget_joins",
    "decompositions",
    "is_standard_win",
    "is_win",
    "is_win_keys",
    "key_step",
    "shanten",
    "shanten_each",
    "shanten_each_and_wild",
    "shanten_special",
    "shanten_special_each",
    "substitute",
    "suit_keys",
    "update_keys",
    "waits",
    "wilds_needed",
    "warm_tables",
]


def forget_joins() -> None:
    """Forget the kept joins of two and three components (``shanten_each``'s), the shape
    tables' only entries that depend on more than one suit."""
    _PAIR_JOINS.clear()
    _OTHER_JOINS.clear()


def clear_caches() -> None:
    """Forget every lazily computed table entry (for tests and memory relief)."""
    _SUIT_CODE[1:] = [_UNKNOWN] * (NUM_SUIT_KEYS - 1)
    _SUIT_MASKS.clear()
    _HONOUR_MASKS.clear()
    for memo in (_SUIT_COVER, _HONOUR_COVER):
        memo.clear()
        memo[0] = _EMPTY_COVER
    forget_joins()
    _SPLITS.clear()
