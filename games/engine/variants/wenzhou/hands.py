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

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from games.engine import shapes
from games.engine.state import MELD_CHOW, Meld
from games.engine.tiles import NUM_KINDS, WHITE, Tile

EIGHT_PAIRS: Final = shapes.EIGHT_PAIRS_PLUS_ONE  # 八对: 8 pairs + 1 (four of a kind = 2 pairs)
EIGHT_PAIRS_READY: Final = shapes.PairsForm("eight_pairs_ready", 8, 0, four_as_two_pairs=True)  # 已经有八对
_FOLLOWABLE: Final = frozenset(range(27, 33))  # 东南西北中发 (跟风); 白板 only through its face

# Pattern key -> (label, class).  Class multipliers: soft 1, hard 2, double 4.
SOFT, HARD, DOUBLE = "soft", "hard", "double"
CLASS_MULT: Final = {SOFT: 1, HARD: 2, DOUBLE: 4}
CLASS_LABEL: Final = {SOFT: "软牌", HARD: "硬牌", DOUBLE: "双翻"}
CLASS_RANK: Final = {SOFT: 1, HARD: 2, DOUBLE: 3}
PATTERNS: Final[dict[str, tuple[str, str]]] = {
    "soft": ("软牌", SOFT),
    "plain": ("平胡", HARD),
    "self_draw": ("自摸", HARD),
    "three_caishen_soft": ("三财神软胡", HARD),
    "robbing_kong": ("抢杠胡", HARD),
    "soft_eight_pairs": ("软八对", HARD),
    "caishen_pair": ("财神牛", HARD),
    "three_caishen_hard": ("三财神硬胡", DOUBLE),
    "hard_eight_pairs": ("硬八对", DOUBLE),
    "heaven": ("天胡", DOUBLE),
    "earth": ("地胡", DOUBLE),
    "single_wait": ("单吊", DOUBLE),
    "all_pungs": ("碰碰胡", DOUBLE),
    "flush": ("清一色", DOUBLE),
}
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
class WinFacts:
    """What the rules need to know about one winning attempt, beyond the tiles."""

    source: str  # "self_draw" | "discard" | "robbing_kong"
    tile: Tile | None  # the winning tile (None: the dealt hand)
    melds: Sequence[Meld]
    heaven: bool = False  # the dealer's dealt 17 tiles, before any discard
    earth: bool = False  # 地胡 by the table's rule
    kong_bloom: bool = False  # won on a replacement draw


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


def judge(c: Sequence[int], wilds: int, std: bool, pairs: bool, facts: WinFacts, faces: Faces) -> Judgement:
    """Classify a win the quick test accepted (the 跑马 and 过胡 checks are the caller's)."""
    self_draw = facts.source == "self_draw"
    melds = facts.melds
    natural = list(c)
    natural[faces.wild] += wilds  # every 财神 at its own face (归位)
    doubles: list[str] = []
    three_hard = wilds >= 3 and std
    if three_hard:
        doubles.append("three_caishen_hard")
    if pairs and natural_eight_pairs(natural):
        doubles.append("hard_eight_pairs")
    if facts.heaven:
        doubles.append("heaven")
    if facts.earth:
        doubles.append("earth")
    if std and len(melds) == 5:
        doubles.append("single_wait")
    if std and all(m.kind != MELD_CHOW for m in melds) and all_triplets(c, wilds):
        doubles.append("all_pungs")
    if (std or pairs) and len(suits := _suit_set(c, melds, faces)) == 1 and min(suits) < 3:
        doubles.append("flush")
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
            three_caishen_hard=three_hard,
            priority=(CLASS_RANK[DOUBLE], max(DOUBLE_RANK[p] for p in doubles)),
            wilds=wilds,
        )
    hard: list[str] = []
    if facts.source == "robbing_kong":
        hard.append("robbing_kong")
    if self_draw:
        hard.append("self_draw")
        if facts.tile is not None:
            pre = list(c)
            pre_wilds = wilds
            if facts.tile == faces.wild:
                pre_wilds -= 1
            else:
                pre[faces.face(facts.tile)] -= 1
            if pre_wilds >= 1 and melds_only(pre, pre_wilds - 1):
                hard.append("caishen_pair")
        if wilds >= 3 and not std and not pairs:
            hard.append("three_caishen_soft")
    if std and standard_any(natural, 0):
        hard.append("plain")
    if pairs:
        hard.append("soft_eight_pairs")  # natural 八对 was caught above as 硬八对
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
            wilds=wilds,
        )
    return Judgement(
        cls=SOFT,
        patterns=["soft"],
        counted="soft",
        mult=1,
        self_draw_double=False,
        kong_bloom=False,
        three_caishen_hard=False,
        priority=(CLASS_RANK[SOFT], 0),
        wilds=wilds,
    )
