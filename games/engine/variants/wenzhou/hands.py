"""温州麻将 (spec/rules/SPEC.md §D2) hand analysis: faces, 跑马 states, hand classes and multipliers.

Pure functions on count vectors, no ``Hand``: the variant module feeds them.

Faces.  The flipped kind is the 财神 (3 live copies, wild).  Unless the 财神 *is*
白板, every 白板 is a natural copy of the 财神's kind (白板代替财神原来牌值), so a
hand is read on *face counts*: the 财神 taken out as wilds, the 白板 counted at
the 财神's face.  A face may then hold up to 4 (白板) copies; reading the wilds
at their own face too (财神归位) can push it to 7, which is why the few checks
that need that reading use the small memoised search below rather than the
shape tables (those index counts 0..4).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from games.engine import shapes
from games.engine.hand import WinContext
from games.engine.patterns import Pattern, by_key, matching
from games.engine.state import MELD_CHOW, Meld
from games.engine.tiles import NUM_KINDS, WHITE, Tile
from games.engine.win import WinFacts

EIGHT_PAIRS: Final = shapes.EIGHT_PAIRS_PLUS_ONE  # 八对: 8 pairs + 1 (four of a kind = 2 pairs)
EIGHT_PAIRS_READY: Final = shapes.PairsForm("eight_pairs_ready", 8, 0, four_as_two_pairs=True)  # 已经有八对
_FOLLOWABLE: Final = frozenset(range(27, 33))  # 东南西北中发 (跟风); 白板 only through its face

# Hand classes and their multipliers: soft 1, hard 2, double 4.
SOFT, HARD, DOUBLE = "soft", "hard", "double"
CLASS_MULT: Final = {SOFT: 1, HARD: 2, DOUBLE: 4}
CLASS_LABEL: Final = {SOFT: "软牌", HARD: "硬牌", DOUBLE: "双翻"}
CLASS_RANK: Final = {SOFT: 1, HARD: 2, DOUBLE: 3}
# Priority among 双翻 when several seats win on one discard (SPEC D2.2): 单吊 > 硬八对 >
# 清一色 > 碰碰胡 > 三财神硬胡 > 地胡.  天胡 never meets a rival claim; it sits lowest.
DOUBLE_RANK: Final = {
    "single_wait": 6,
    "hard_eight_pairs": 5,
    "flush": 4,
    "all_pungs": 3,
    "three_caishen_hard": 2,
    "earth": 1,
    "heaven": 0,
}
SELF_DRAW_DOUBLED: Final = frozenset({"single_wait", "all_pungs", "flush"})  # 自摸翻倍 (SPEC D2.3.5)

# 跑马 states: the hand may only be won by self-draw.
PAOMA_LABELS: Final = {
    "caishen_pair": "财神牛",
    "caishen_single": "财神单吊",
    "eight_pairs_ready": "已经有八对",
    "three_caishen": "三财神软胡",
}


@dataclass(frozen=True, slots=True)
class Faces:
    """The 财神 kind of a hand and whether 白板 stands in for it."""

    wild: Tile

    @property
    def stand_in(self) -> bool:
        return self.wild != WHITE

    def face(self, t: Tile) -> Tile:
        """The value a physical tile plays (白板 → the 财神's face)."""
        return self.wild if t == WHITE and self.wild != WHITE else t

    def counts(self, counts: Sequence[int]) -> tuple[list[int], int]:
        """Face counts of the 34 kinds with the 财神 taken out, and how many 财神 there were."""
        c = list(counts[:NUM_KINDS])
        wild = self.wild
        n = c[wild]
        if wild != WHITE:
            c[wild] = c[WHITE]
            c[WHITE] = 0
        else:
            c[wild] = 0
        return c, n

    def is_honour(self, t: Tile) -> bool:
        """A wind or dragon for the discard rules (白板 only when it plays one); never a 财神."""
        return t != self.wild and self.face(t) >= 27

    def followable(self, t: Tile) -> bool:
        """跟风 applies to 东南西北中发 (白板 when it plays one of them)."""
        return t != self.wild and self.face(t) in _FOLLOWABLE


# ---------------------------------------------------------------------------
# Counting search for arbitrary counts
# ---------------------------------------------------------------------------
_INF: Final = 1 << 20


@lru_cache(maxsize=1 << 16)
def _cost(key: tuple[int, ...], pair: bool, runs: bool) -> int:
    """Fewest wilds that turn one component (a suit, or the honours with ``runs`` off)
    into melds, plus exactly one pair when ``pair``.  Counts may exceed four.

    The lowest real tile must sit in some group: a triplet or the pair of its face
    (wilds making up the rest), or a run in which faces below it are wilds and faces
    above it are real or wild.  Recursing on what is left finds the minimum.
    """
    i = next((r for r, n in enumerate(key) if n), -1)
    if i < 0:
        return 2 if pair else 0
    k = list(key)
    n = k[i]
    best = _INF
    for a in range(1, min(n, 3) + 1):
        k[i] = n - a
        best = min(best, 3 - a + _cost(tuple(k), pair, runs))
    if pair:
        for a in range(1, min(n, 2) + 1):
            k[i] = n - a
            best = min(best, 2 - a + _cost(tuple(k), False, runs))
    k[i] = n
    if runs and len(key) == 9:
        for start in (i - 2, i - 1, i):
            if start < 0 or start + 2 > 8:
                continue
            above = list(range(i + 1, start + 3))
            for mask in range(1 << len(above)):
                use = [r for j, r in enumerate(above) if mask >> j & 1]
                if any(k[r] == 0 for r in use):
                    continue
                k[i] -= 1
                for r in use:
                    k[r] -= 1
                best = min(best, 2 - len(use) + _cost(tuple(k), pair, runs))
                k[i] += 1
                for r in use:
                    k[r] += 1
    return best


def _components(counts: Sequence[int]) -> list[tuple[int, ...]]:
    return [tuple(counts[0:9]), tuple(counts[9:18]), tuple(counts[18:27]), tuple(counts[27:34])]


def _need(counts: Sequence[int], pair: bool, runs: bool) -> int:
    comps = _components(counts)
    melds = [_cost(c, False, runs and i < 3) for i, c in enumerate(comps)]
    total = sum(melds)
    if not pair:
        return total
    extra = min(_cost(c, True, runs and i < 3) - melds[i] for i, c in enumerate(comps))
    return total + extra


def _fits(counts: Sequence[int], wilds: int, need: int, size_mod: int) -> bool:
    return (sum(counts) + wilds) % 3 == size_mod and need <= wilds and (wilds - need) % 3 == 0


def standard_any(counts: Sequence[int], wilds: int) -> bool:
    """Pair + melds for any counts (the shape tables take at most four of a kind)."""
    if max(counts) <= 4:
        return shapes.is_standard_win(counts, wilds)
    return _fits(counts, wilds, _need(counts, True, True), 2)


def melds_only(counts: Sequence[int], wilds: int) -> bool:
    """Melds only (no pair): what is left of a 财神牛 hand beside its lone 财神."""
    return _fits(counts, wilds, _need(counts, False, True), 0)


def all_triplets(counts: Sequence[int], wilds: int) -> bool:
    """Pair + triplets only (碰碰胡's concealed part)."""
    return _fits(counts, wilds, _need(counts, True, False), 2)


def natural_eight_pairs(counts: Sequence[int]) -> bool:
    """8 pairs + 1 with no substitution: 17 tiles, exactly one kind with an odd count."""
    return sum(counts) == 17 and sum(1 for x in counts if x & 1) == 1


# ---------------------------------------------------------------------------
# Judging a win
# ---------------------------------------------------------------------------
@dataclass(slots=True)
class WenzhouFacts(WinFacts):
    """D2's facts of a win the quick test accepted: the shared ones (``wilds``: the 财神 in
    hand; ``shaped``: the standard shape, read on face counts) and what D2's patterns ask."""

    counts: tuple[int, ...] = ()  # face counts of the winning hand, 财神 taken out
    natural: tuple[int, ...] = ()  # the same with every 财神 at its own face (归位)
    pairs: bool = False  # the 八对 shape
    one_suit: bool = False  # every face (melds included) in one suit, no honour
    tile_face: Tile | None = None  # the face the winning tile plays (None: a 财神, or no tile)
    heaven: bool = False  # the dealer's dealt 17 tiles, before any discard
    earth: bool = False  # 地胡 by the table's rule
    kong_bloom: bool = False  # won on a replacement draw


def _caishen_pair(f: WenzhouFacts) -> bool:
    """财神牛 by self-draw: before the drawn tile, all melds formed and one 财神 waiting."""
    if f.tile is None:
        return False
    pre = list(f.counts)
    pre_wilds = f.wilds
    if f.tile_face is None:
        pre_wilds -= 1
    else:
        pre[f.tile_face] -= 1
    return pre_wilds >= 1 and melds_only(pre, pre_wilds - 1)


def _pattern(key: str, label: str, cls: str, applies: Callable[[WenzhouFacts], bool]) -> Pattern[WenzhouFacts]:
    return Pattern(key, label, applies, fixed=CLASS_MULT[cls])


# Each class's patterns in the order the breakdown lists them; a pattern's value is its class's
# multiplier.  A hand scores its highest class: 双翻 if any applies, else 硬, else 软.
DOUBLE_PATTERNS: Final = (
    _pattern("three_caishen_hard", "三财神硬胡", DOUBLE, lambda f: f.wilds >= 3 and f.shaped),
    _pattern("hard_eight_pairs", "硬八对", DOUBLE, lambda f: f.pairs and natural_eight_pairs(f.natural)),
    _pattern("heaven", "天胡", DOUBLE, lambda f: f.heaven),
    _pattern("earth", "地胡", DOUBLE, lambda f: f.earth),
    _pattern("single_wait", "单吊", DOUBLE, lambda f: f.shaped and len(f.melds) == 5),
    _pattern(
        "all_pungs",
        "碰碰胡",
        DOUBLE,
        lambda f: f.shaped and all(m.kind != MELD_CHOW for m in f.melds) and all_triplets(f.counts, f.wilds),
    ),
    _pattern("flush", "清一色", DOUBLE, lambda f: f.one_suit),
)
HARD_PATTERNS: Final = (
    _pattern("robbing_kong", "抢杠胡", HARD, lambda f: f.source == "robbing_kong"),
    _pattern("self_draw", "自摸", HARD, lambda f: f.self_drawn),
    _pattern("caishen_pair", "财神牛", HARD, lambda f: f.self_drawn and _caishen_pair(f)),
    _pattern(
        "three_caishen_soft",
        "三财神软胡",
        HARD,
        lambda f: f.self_drawn and f.wilds >= 3 and not f.shaped and not f.pairs,
    ),
    _pattern("plain", "平胡", HARD, lambda f: f.shaped and standard_any(f.natural, 0)),
    _pattern("soft_eight_pairs", "软八对", HARD, lambda f: f.pairs),  # natural 八对 is 硬八对, a 双翻
)
SOFT_PATTERN: Final = _pattern("soft", "软牌", SOFT, lambda f: True)
PATTERN: Final = by_key((SOFT_PATTERN, *HARD_PATTERNS, *DOUBLE_PATTERNS))
PATTERN_CLASS: Final = {
    **{p.key: DOUBLE for p in DOUBLE_PATTERNS},
    **{p.key: HARD for p in HARD_PATTERNS},
    SOFT_PATTERN.key: SOFT,
}


@dataclass(slots=True)
class Judgement:
    """A legal win: its class, patterns and multiplier M (SPEC D2.2 'Hand classes')."""

    cls: str
    patterns: list[str]  # every applicable pattern; ``counted`` is the one scored
    counted: str
    mult: int
    self_draw_double: bool
    kong_bloom: bool
    three_caishen_hard: bool
    priority: tuple[int, int]
    wilds: int


def win_facts(
    ctx: WinContext, c: Sequence[int], wilds: int, std: bool, pairs: bool, faces: Faces, **more: bool
) -> WenzhouFacts:
    """The facts of one win, built once (``more``: heaven, earth, kong_bloom)."""
    natural = list(c)
    natural[faces.wild] += wilds  # every 财神 at its own face (归位)
    one_suit = (std or pairs) and len(suits := _suit_set(c, ctx.melds, faces)) == 1 and min(suits) < 3
    tile = ctx.tile
    return WenzhouFacts.of(
        ctx,
        wilds=wilds,
        shaped=std,
        counts=tuple(c),
        natural=tuple(natural),
        pairs=pairs,
        one_suit=one_suit,
        tile_face=None if tile is None or tile == faces.wild else faces.face(tile),
        **more,
    )


def paoma_state(pre: Sequence[int], wilds: int, melds: int) -> str | None:
    """The 跑马 state of a hand *before* its winning tile (face counts, 财神 apart).

    财神牛: all melds formed and one lone 财神 waiting as half the pair (财神单吊 when
    the other five melds are all laid down); 已经有八对: 8 pairs among 16 concealed
    tiles.  Either way any tile completes the hand, and only a self-draw may.
    """
    if wilds >= 1 and melds_only(pre, wilds - 1):
        return "caishen_single" if melds == 5 else "caishen_pair"
    if melds == 0 and EIGHT_PAIRS_READY.is_win(pre, wilds):
        return "eight_pairs_ready"
    return None


def quick_win(c: Sequence[int], wilds: int, melds: int, self_draw: bool) -> tuple[bool, bool, bool]:
    """(standard shape, 八对 shape, any win) — the cheap test run on every discard."""
    std = shapes.is_standard_win(c, wilds)
    pairs = melds == 0 and EIGHT_PAIRS.is_win(c, wilds)
    return std, pairs, std or pairs or (self_draw and wilds >= 3)


def _suit_set(c: Sequence[int], melds: Sequence[Meld], faces: Faces) -> set[int]:
    suits = {t // 9 for t in range(NUM_KINDS) if c[t]}
    for m in melds:
        suits.update(faces.face(t) // 9 for t in m.tiles)
    return suits


def judge(facts: WenzhouFacts) -> Judgement:
    """Classify a win the quick test accepted (the 跑马 and 过胡 checks are the caller's)."""
    self_draw = facts.self_drawn
    doubles = [p.key for p in matching(DOUBLE_PATTERNS, facts)]
    if doubles:

        def value(p: str) -> tuple[int, int]:
            return (8 if self_draw and p in SELF_DRAW_DOUBLED else 4, DOUBLE_RANK[p])

        counted = max(doubles, key=value)
        mult = value(counted)[0]
        return Judgement(
            cls=DOUBLE,
            patterns=doubles,
            counted=counted,
            mult=mult * (2 if facts.kong_bloom else 1),
            self_draw_double=mult == 8,
            kong_bloom=facts.kong_bloom,
            three_caishen_hard="three_caishen_hard" in doubles,
            priority=(CLASS_RANK[DOUBLE], max(DOUBLE_RANK[p] for p in doubles)),
            wilds=facts.wilds,
        )
    hard = [p.key for p in matching(HARD_PATTERNS, facts)]
    if hard:
        return Judgement(
            cls=HARD,
            patterns=hard,
            counted=hard[0],
            mult=2 * (2 if facts.kong_bloom else 1),
            self_draw_double=False,
            kong_bloom=facts.kong_bloom,
            three_caishen_hard=False,
            priority=(CLASS_RANK[HARD], 1 if facts.source == "robbing_kong" else 0),
            wilds=facts.wilds,
        )
    return Judgement(
        cls=SOFT,
        patterns=[SOFT_PATTERN.key],
        counted=SOFT_PATTERN.key,
        mult=1,
        self_draw_double=False,
        kong_bloom=False,
        three_caishen_hard=False,
        priority=(CLASS_RANK[SOFT], 0),
        wilds=facts.wilds,
    )
