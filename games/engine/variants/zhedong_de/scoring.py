"""D1's 和 points (胡数), 番 and 腊子: every player's hand is scored (spec/rules/SPEC.md §D1.2).

The winner may read any 得 as any tile and each 白板 as the 得's face or as 白板, and is paid
the highest total among all readings (the text: "服务器会自动为玩家算出最高的牌点").  The
search is exhaustive but small: the 白板 split (at most five ways), then every decomposition
of the hand into a pair and melds (``shapes.decompositions``: a wild sharing a group with real
tiles gets each possible face), then the face of the one group made only of 得 (there is at
most one: three 得, or four in the "next" mode), then which tile of the hand was the winning
one (it sets the wait bonus).  Non-winners score without any wild: 得 at face value, 白板 as
白板, with the greedy identical-tile count SPEC D1.3.14 decides.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine import shapes
from games.engine.patterns import Pattern, by_key, matching
from games.engine.state import KONG_ADDED, KONG_CONCEALED, KONG_EXPOSED, MELD_CHOW, MELD_PUNG, Meld
from games.engine.tiles import DRAGONS, NUM_KINDS, WHITE, WINDS, Tile, format_tiles, is_terminal_or_honour, suit_of

CAP = 100  # 腊子: no total goes past 100和
WIN_BONUS = 10  # 和家可额外获得的奖励均为10和

# Set kinds as scored.  A concealed triplet is also an undeclared four, or a triplet the winner
# forms with 得; a declined discard kong or add-kong leaves the tiles as they were.
PAIR, SEQUENCE, TRIPLET = "pair", "sequence", "concealed_triplet"
EXPOSED_CHOW, EXPOSED_PUNG, EXPOSED_KONG, CONCEALED_KONG = "chow", "exposed_pung", "exposed_kong", "concealed_kong"
SET_LABEL = {
    PAIR: "对子",
    SEQUENCE: "顺子",
    TRIPLET: "暗刻",
    EXPOSED_CHOW: "吃",
    EXPOSED_PUNG: "刻子",
    EXPOSED_KONG: "明杠",
    CONCEALED_KONG: "暗杠",
}
# Points of a 2–8 set; a 1, 9 or honour set scores double (SPEC D1.2 base-point table).
SIMPLE_POINTS = {EXPOSED_PUNG: 2, TRIPLET: 4, EXPOSED_KONG: 8, CONCEALED_KONG: 16}
MELD_SET = {MELD_CHOW: EXPOSED_CHOW, MELD_PUNG: EXPOSED_PUNG, KONG_EXPOSED: EXPOSED_KONG, KONG_ADDED: EXPOSED_KONG}
MELD_SET[KONG_CONCEALED] = CONCEALED_KONG

# Waits: (key, label); bonus by (discard, self-draw).
WAIT_CLOSED, WAIT_EDGE, WAIT_SINGLE = "wait_closed", "wait_edge", "wait_single"
WAIT_LABEL = {WAIT_CLOSED: "嵌档", WAIT_EDGE: "靠柄", WAIT_SINGLE: "单吊"}
WAIT_BONUS = {WAIT_CLOSED: (2, 4), WAIT_EDGE: (0, 2), WAIT_SINGLE: (2, 4)}

BIG_DRAGONS = "big_dragons"  # 大三元: 腊子 outright

# A group of three 得 may read as any triplet or any run.
_WILD_TRIPLET_FACES: tuple[tuple[str, tuple[Tile, ...]], ...] = (
    *((TRIPLET, (t, t, t)) for t in range(NUM_KINDS)),
    *((SEQUENCE, (t, t + 1, t + 2)) for t in range(27) if t % 9 <= 6),
)
_WILD_PAIR_FACES: tuple[tuple[str, tuple[Tile, ...]], ...] = tuple((PAIR, (t, t)) for t in range(NUM_KINDS))


@dataclass(frozen=True, slots=True)
class ScoredSet:
    """One set as scored: its kind, the faces it shows and the 得 faces inside it."""

    kind: str
    faces: tuple[Tile, ...]
    wild_as: tuple[Tile, ...] = ()


@dataclass(slots=True)
class ReadingFacts:
    """One reading of the winner's hand as its patterns see it (the winner's search weighs
    every reading, so D1 builds these per reading, once each)."""

    sets: tuple[ScoredSet, ...]
    suits: frozenset[int]  # the suits of every face shown (3: honours)
    faces: frozenset[Tile]
    runs: int  # sequences and chows
    wait: str | None  # the wait the winning tile completed (None: two-sided, 对倒 or unknown)
    single_honour: bool  # a 单吊 on the own wind or a dragon
    self_drawn: bool
    de: Tile
    dragon_triplets: int  # distinct dragons shown as a triplet or kong
    dragon_pair: bool  # a pair of a dragon

    @property
    def one_suit(self) -> bool:
        return len(self.suits - {3}) == 1


# Hand patterns the text defines but whose values it lost (each 番 a table option), in the order
# the breakdown lists them.  大三元 is 腊子 outright, so it adds no 番.
PATTERNS: tuple[Pattern[ReadingFacts], ...] = (
    Pattern("pure_one_suit", "清一色", lambda f: f.one_suit and 3 not in f.suits, "fan_pure_one_suit"),
    Pattern("mixed_one_suit", "混一色", lambda f: f.one_suit and 3 in f.suits, "fan_mixed_one_suit"),
    Pattern("all_pungs", "对对和", lambda f: f.runs == 0, "fan_all_pungs"),
    Pattern(
        "ping_hu",
        "平和",
        lambda f: f.runs == len(f.sets) - 1 and not f.self_drawn and f.wait != WAIT_CLOSED and not f.single_honour,
        "fan_ping_hu",
    ),
    Pattern("four_winds", "四风会齐", lambda f: set(WINDS) <= f.faces, "fan_four_winds"),
    Pattern("de_restored", "得还原", lambda f: any(f.de in s.wild_as for s in f.sets), "fan_de_restored"),
    Pattern("self_draw", "自摸", lambda f: f.self_drawn, "fan_self_draw"),
    Pattern(BIG_DRAGONS, "大三元", lambda f: f.dragon_triplets == 3, fixed=0),
    Pattern(
        "small_dragons",
        "小三元",
        lambda f: f.dragon_triplets == 2 and f.dragon_pair,
        "fan_small_dragons_extra",
    ),
)
PATTERN = by_key(PATTERNS)


@dataclass(frozen=True, slots=True)
class Item:
    """One line of a player's points: what it is, its tiles, its 和 and its 番."""

    key: str
    label: str
    tiles: str
    points: int
    fan: int = 0


@dataclass(frozen=True, slots=True)
class HandScore:
    """A player's scored hand.  ``total`` is what settlement uses (capped at 腊子)."""

    items: tuple[Item, ...]
    patterns: tuple[tuple[str, int], ...]  # (pattern key, 番 it adds)
    points: int  # H: the items' 和 (the winner's +10 not included)
    fan: int
    total: int
    raw: int  # before the cap
    winner: bool = False
    laizi: bool = False
    sets: tuple[ScoredSet, ...] = field(default=(), compare=False)

    def formula(self) -> str:
        base = f"({self.points} + {WIN_BONUS})" if self.winner else str(self.points)
        if any(k == BIG_DRAGONS for k, _ in self.patterns):
            return "大三元: 腊子 = 100"
        text = f"{base} × 2^{self.fan} = {self.raw}" if self.fan else f"{base} = {self.raw}"
        return text + (" → 腊子 100" if self.raw >= CAP else "")


def _is_th(t: Tile) -> bool:
    return is_terminal_or_honour(t)


def _honoured(t: Tile, own_wind: Tile) -> bool:
    """Own seat wind or a dragon: the pair scores 2, the triplet/kong adds 1番."""
    return t == own_wind or t in DRAGONS


def set_item(s: ScoredSet, own_wind: Tile) -> Item | None:
    """The points line of one set, or None when it scores nothing."""
    t = s.faces[0]
    tiles = format_tiles(s.faces)
    if s.kind in (SEQUENCE, EXPOSED_CHOW):
        return None
    if s.kind == PAIR:
        return Item(PAIR, SET_LABEL[PAIR], tiles, 2) if _honoured(t, own_wind) else None
    points = SIMPLE_POINTS[s.kind] * (2 if _is_th(t) else 1)
    return Item(s.kind, SET_LABEL[s.kind], tiles, points, 1 if _honoured(t, own_wind) else 0)


def hand_total(points: int, fan: int, winner: bool) -> tuple[int, int]:
    """(capped total, raw): ``(H [+ 10]) × 2^F``, no more than 腊子."""
    raw = (points + (WIN_BONUS if winner else 0)) * (1 << fan)
    return min(CAP, raw), raw


# ---------------------------------------------------------------------------------- non-winners
def score_non_winner(concealed: Sequence[Tile], melds: Sequence[Meld], own_wind: Tile) -> HandScore:
    """A loser's points: no wild at all (得 at face value, 白板 as 白板; SPEC D1.3.14).

    Exposed melds score as exposed; in the concealed tiles three or four of a kind are an
    暗刻 and an exact pair of the own wind or a dragon is a 2和 pair.  Runs score nothing,
    so they need no decomposition.
    """
    sets = [ScoredSet(MELD_SET[m.kind], tuple(m.tiles)) for m in melds if m.kind != MELD_CHOW]
    counts = [0] * NUM_KINDS
    for t in concealed:
        if t < NUM_KINDS:
            counts[t] += 1
    for t, n in enumerate(counts):
        if n >= 3:
            sets.append(ScoredSet(TRIPLET, (t, t, t)))
        elif n == 2 and _honoured(t, own_wind):
            sets.append(ScoredSet(PAIR, (t, t)))
    items = tuple(i for i in (set_item(s, own_wind) for s in sets) if i is not None)
    points = sum(i.points for i in items)
    fan = sum(i.fan for i in items)
    total, raw = hand_total(points, fan, winner=False)
    return HandScore(items, (), points, fan, total, raw, winner=False, laizi=raw >= CAP, sets=tuple(sets))


# ------------------------------------------------------------------------------------ the winner
@dataclass(frozen=True, slots=True)
class WinSpec:
    """Everything the winner's search needs, in plain values."""

    counts: tuple[int, ...]  # concealed tiles (34 kinds), winning tile included
    melds: tuple[Meld, ...]
    de: Tile  # the 得 kind (its live copies are the wilds)
    own_wind: Tile
    win_tile: Tile | None  # None: a win on the dealt hand
    self_drawn: bool
    options: Mapping[str, Any]


def stand_in_active(de: Tile) -> bool:
    """白板 plays the 得's face unless the 得 is 白板 itself."""
    return de != WHITE


def white_splits(counts: Sequence[int], de: Tile) -> Iterator[tuple[int, list[int], int]]:
    """(白板 read as the 得's face, concealed counts without wilds, wilds) for every split."""
    base = list(counts[:NUM_KINDS])
    wilds = base[de]
    base[de] = 0
    whites = base[WHITE] if stand_in_active(de) else 0
    for j in range(whites + 1):
        c = list(base)
        c[WHITE] -= j
        c[de] += j
        yield j, c, wilds


def can_win(counts: Sequence[int], de: Tile) -> bool:
    return any(shapes.is_standard_win(c, w) for _, c, w in white_splits(counts, de))


def _meld_readings(m: Meld, de: Tile) -> list[ScoredSet]:
    """The readings of one exposed meld: a 白板 in a chow plays the 得's face; a pung or kong
    of 白板 may be read as 白 or as the 得's face."""
    kind = MELD_SET[m.kind]
    if kind == EXPOSED_CHOW:
        faces = tuple(sorted(de if t == WHITE and stand_in_active(de) else t for t in m.tiles))
        return [ScoredSet(kind, faces)]
    t = m.tiles[0]
    n = len(m.tiles)
    if t == WHITE and stand_in_active(de):
        return [ScoredSet(kind, (WHITE,) * n), ScoredSet(kind, (de,) * n)]
    return [ScoredSet(kind, (t,) * n)]


def _group_readings(g: shapes.Group) -> Sequence[tuple[str, tuple[Tile, ...]]]:
    if g.kind == "wild_triplet":
        return _WILD_TRIPLET_FACES
    if g.kind == "wild_pair":
        return _WILD_PAIR_FACES
    kind = {"pair": PAIR, "triplet": TRIPLET, "sequence": SEQUENCE}[g.kind]
    return ((kind, g.tiles),)


def _symbolic(g: shapes.Group) -> bool:
    return g.kind in ("wild_pair", "wild_triplet")


def _wait(s: ScoredSet, face: Tile) -> str | None:
    """The wait a winning tile of ``face`` completed in set ``s`` (None: two-sided or 对倒)."""
    if s.kind == PAIR:
        return WAIT_SINGLE
    if s.kind == SEQUENCE:
        lo = s.faces[0]
        if face == lo + 1:
            return WAIT_CLOSED
        if (face == lo + 2 and lo % 9 == 0) or (face == lo and lo % 9 == 6):
            return WAIT_EDGE
    return None


@dataclass(slots=True)
class _Best:
    score: HandScore | None = None
    key: tuple[int, int, int] = (-1, -1, -1)
    seen: set[str] = field(default_factory=set)  # every pattern some reading shows (for 包牌)


def score_winner(spec: WinSpec) -> tuple[HandScore, frozenset[str]]:
    """The winner's highest total over every reading, and the patterns any reading shows."""
    best = _Best()
    meld_options = [_meld_readings(m, spec.de) for m in spec.melds]
    for j, counts, wilds in white_splits(spec.counts, spec.de):
        if not shapes.is_standard_win(counts, wilds):
            continue
        whites_left = spec.counts[WHITE] - j if stand_in_active(spec.de) else 0
        win_faces = _win_faces(spec, j, whites_left)
        for d in shapes.decompositions(counts, wilds):
            groups = d.groups
            for readings in itertools.product(*(_group_readings(g) for g in groups)):
                concealed = [
                    ScoredSet(kind, faces, faces if _symbolic(g) else g.wild_as)
                    for g, (kind, faces) in zip(groups, readings, strict=True)
                ]
                for exposed in itertools.product(*meld_options):
                    _consider(spec, best, concealed, list(exposed), groups, win_faces)
    assert best.score is not None, "score_winner needs a winning hand"
    return best.score, frozenset(best.seen)


def _win_faces(spec: WinSpec, whites_as_de: int, whites_left: int) -> tuple[Tile, ...] | None:
    """The faces the winning tile may show as a real tile; None when it is a 得 (any wild slot)."""
    t = spec.win_tile
    if t is None:
        return ()
    if t == spec.de:
        return None
    if t == WHITE and stand_in_active(spec.de):
        return tuple(f for f, ok in ((spec.de, whites_as_de > 0), (WHITE, whites_left > 0)) if ok)
    return (t,)


def _roles(
    concealed: Sequence[ScoredSet], groups: Sequence[shapes.Group], win_faces: tuple[Tile, ...] | None
) -> list[tuple[int, Tile] | None]:
    """Where the winning tile may sit: (set index, face), or None when no set can be named."""
    roles: list[tuple[int, Tile] | None] = []
    for i, (s, g) in enumerate(zip(concealed, groups, strict=True)):
        if win_faces is None:  # a self-drawn 得: any face a wild plays
            faces = set(s.wild_as)
        elif _symbolic(g):  # a group of 得 only holds no real winning tile
            faces = set()
        else:
            faces = {f for f in win_faces if f in g.real}
        roles.extend((i, f) for f in sorted(faces))
    return roles or [None]


def _consider(
    spec: WinSpec,
    best: _Best,
    concealed: list[ScoredSet],
    exposed: list[ScoredSet],
    groups: Sequence[shapes.Group],
    win_faces: tuple[Tile, ...] | None,
) -> None:
    own = spec.own_wind
    ron_exposed = not spec.self_drawn and spec.options["ron_triplet_exposed"]
    for role in _roles(concealed, groups, win_faces):
        sets = list(concealed)
        wait: str | None = None
        if role is not None:
            idx, face = role
            wait = _wait(sets[idx], face)
            if ron_exposed and sets[idx].kind == TRIPLET:
                sets[idx] = ScoredSet(EXPOSED_PUNG, sets[idx].faces, sets[idx].wild_as)
        all_sets = exposed + sets
        items = [i for i in (set_item(s, own) for s in all_sets) if i is not None]
        bonus = _wait_bonus(spec, wait, role)
        if bonus:
            assert role is not None
            key = wait or "self_draw_honour"
            items.append(Item(key, WAIT_LABEL.get(key, "自摸门风/箭牌"), format_tiles([role[1]]), bonus))
        patterns = _patterns(spec, all_sets, wait, role)
        _record(spec, best, items, patterns, all_sets)


def _wait_bonus(spec: WinSpec, wait: str | None, role: tuple[int, Tile] | None) -> int:
    """单吊 on the own wind or a dragon 2/4, 嵌档 2/4, 靠柄 0/2 (by discard / self-draw).

    With ``self_draw_honour_any_wait`` (SPEC D1.3.4's other reading) a self-drawn own-wind or
    dragon tile scores 4 whether it completed the pair or a triplet.
    """
    if role is None:
        return 0
    face = role[1]
    if spec.self_drawn and spec.options["self_draw_honour_any_wait"] and _honoured(face, spec.own_wind):
        return 4
    if wait is None or (wait == WAIT_SINGLE and not _honoured(face, spec.own_wind)):
        return 0
    return WAIT_BONUS[wait][1 if spec.self_drawn else 0]


def reading_facts(
    spec: WinSpec, sets: Sequence[ScoredSet], wait: str | None, role: tuple[int, Tile] | None
) -> ReadingFacts:
    faces = [t for s in sets for t in s.faces]
    dragon_sets = [s for s in sets if s.faces[0] in DRAGONS and s.kind not in (SEQUENCE, EXPOSED_CHOW)]
    return ReadingFacts(
        sets=tuple(sets),
        suits=frozenset(suit_of(t) for t in faces),
        faces=frozenset(faces),
        runs=sum(1 for s in sets if s.kind in (SEQUENCE, EXPOSED_CHOW)),
        wait=wait,
        single_honour=wait == WAIT_SINGLE and role is not None and _honoured(role[1], spec.own_wind),
        self_drawn=spec.self_drawn,
        de=spec.de,
        dragon_triplets=len({s.faces[0] for s in dragon_sets if s.kind != PAIR}),
        dragon_pair=any(s.kind == PAIR for s in dragon_sets),
    )


def _patterns(spec: WinSpec, sets: Sequence[ScoredSet], wait: str | None, role: tuple[int, Tile] | None) -> list[str]:
    return [p.key for p in matching(PATTERNS, reading_facts(spec, sets, wait, role))]


def _record(spec: WinSpec, best: _Best, items: list[Item], patterns: list[str], sets: Sequence[ScoredSet]) -> None:
    best.seen.update(patterns)
    points = sum(i.points for i in items)
    fan = sum(i.fan for i in items)
    scored: list[tuple[str, int]] = []
    for p in patterns:
        value = PATTERN[p].value(spec.options)
        scored.append((p, value))
        fan += value
    total, raw = hand_total(points, fan, winner=True)
    if BIG_DRAGONS in patterns:
        total, raw = CAP, max(raw, CAP)
    # Highest total first; among equals the higher uncapped figure, then the reading that shows more.
    key = (total, raw, len(patterns))
    if key > best.key:
        best.key = key
        best.score = HandScore(
            tuple(items), tuple(scored), points, fan, total, raw, winner=True, laizi=raw >= CAP, sets=tuple(sets)
        )
