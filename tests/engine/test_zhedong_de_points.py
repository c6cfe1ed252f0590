"""D1 scoring: the 和/番/腊子 arithmetic, non-winners, the winner's search against brute force,
and bot-played hands (zero sum, even totals so the halves are exact)."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator

import pytest

from games.engine.bots import BOTS
from games.engine.hand import ENDED
from games.engine.state import KONG_CONCEALED, KONG_EXPOSED, MELD_CHOW, MELD_PUNG, Meld
from games.engine.tiles import DRAGONS, NUM_KINDS, WHITE, parse_tile, parse_tiles, to_counts
from games.engine.variants import get_variant
from games.engine.variants.zhedong_de.scoring import (
    CAP,
    WinSpec,
    can_win,
    hand_total,
    score_non_winner,
    score_winner,
)

V = "zhedong_de"
OPTS = get_variant(V).validate_options({})
SOUTH = parse_tile("S")


# -- example 1: doubling and the 腊子 cap ------------------------------------------------------------
@pytest.mark.parametrize(("fan", "total"), [(0, 14), (1, 28), (2, 56), (3, 100), (4, 100)])
def test_example_1_doubling(fan: int, total: int) -> None:
    assert hand_total(4, fan, winner=True)[0] == total
    assert hand_total(14, fan, winner=False)[0] == total


def test_non_winner_points_table() -> None:
    def pts(concealed: str, melds: list[Meld] = (), own: str = "S") -> int:  # type: ignore[assignment]
        return score_non_winner(parse_tiles(concealed), list(melds), parse_tile(own)).total

    assert pts("SS") == 2 and pts("CC") == 2 and pts("EE") == 0 and pts("5m5m") == 0  # pairs
    assert pts("999m") == 8 and pts("555m") == 4 and pts("9999m") == 8 and pts("5555m") == 4
    assert pts("SSS") == 16 and pts("EEE") == 8  # own wind: 8 and 1番
    pung = Meld(MELD_PUNG, tuple(parse_tiles("FFF")), claimed=parse_tile("F"), from_seat=0)
    assert pts("", [pung]) == 8  # 4, 1番
    assert pts("", [Meld(MELD_PUNG, tuple(parse_tiles("555m")))]) == 2
    assert pts("", [Meld(KONG_EXPOSED, tuple(parse_tiles("9999m")))]) == 16
    assert pts("", [Meld(KONG_EXPOSED, tuple(parse_tiles("5555m")))]) == 8
    assert pts("", [Meld(KONG_CONCEALED, tuple(parse_tiles("9999m")))]) == 32
    assert pts("", [Meld(KONG_CONCEALED, tuple(parse_tiles("5555m")))]) == 16
    assert pts("", [Meld(MELD_CHOW, tuple(parse_tiles("123m")))]) == 0
    # CCC FFF PPP: 24 and 3番 -> 192 -> 腊子 (no 大三元 rule for a loser; the cap does it).
    assert pts("CCC FFF PPP") == CAP


# -- the brute-force oracle ---------------------------------------------------------------------
def _decomps(c: Counter[int], pair: bool) -> Iterator[list[tuple[str, tuple[int, ...]]]]:
    present = [t for t in sorted(c) if c[t] > 0]
    if not present:
        if not pair:
            yield []
        return
    t = present[0]
    if c[t] >= 3:
        c[t] -= 3
        for rest in _decomps(c, pair):
            yield [("triplet", (t, t, t)), *rest]
        c[t] += 3
    if pair and c[t] >= 2:
        c[t] -= 2
        for rest in _decomps(c, False):
            yield [("pair", (t, t)), *rest]
        c[t] += 2
    if t < 27 and t % 9 <= 6 and c[t + 1] > 0 and c[t + 2] > 0:
        for x in (t, t + 1, t + 2):
            c[x] -= 1
        for rest in _decomps(c, pair):
            yield [("sequence", (t, t + 1, t + 2)), *rest]
        for x in (t, t + 1, t + 2):
            c[x] += 1


def _th(t: int) -> bool:
    return t >= 27 or t % 9 in (0, 8)


def _oracle_total(groups: list[tuple[str, tuple[int, ...], str]], win: tuple[int, int] | None, spec: WinSpec) -> int:
    """One reading's total, by the rules as written (default options)."""
    own = spec.own_wind
    h = f = 0
    dragon_sets: list[int | str] = []
    for kind, faces, how in groups:
        t = faces[0]
        honoured = t == own or t in DRAGONS
        if kind == "pair":
            h += 2 if honoured else 0
            if t in DRAGONS:
                dragon_sets.append("pair")
        elif kind == "triplet":
            value = {"concealed": 4, "pung": 2, "kong": 8, "ckong": 16}[how]
            h += value * (2 if _th(t) else 1)
            f += honoured
            if t in DRAGONS:
                dragon_sets.append(t)
    if win is not None:
        kind, faces, _ = groups[win[0]]
        face = win[1]
        honoured = face == spec.own_wind or face in DRAGONS
        s = 1 if spec.self_drawn else 0
        single = kind == "pair" and honoured
        closed = kind == "sequence" and face == faces[1]
        edge = kind == "sequence" and (
            (face == faces[2] and faces[0] % 9 == 0) or (face == faces[0] and faces[0] % 9 == 6)
        )
        h += (2, 4)[s] if single or closed else (0, 2)[s] if edge else 0
    if len({d for d in dragon_sets if d != "pair"}) == 3:
        return CAP
    return min(CAP, (h + 10) << f)


def brute_force(spec: WinSpec, concealed: list[int], win_index: int | None) -> int:
    """Every face for every 得, both values for every 白板, every decomposition, every place
    the winning tile can sit: the highest total."""
    de = spec.de
    white = de != WHITE
    choices: list[tuple[int, ...]] = []
    for t in concealed:
        if t == de:
            choices.append(tuple(range(NUM_KINDS)))
        elif t == WHITE and white:
            choices.append((WHITE, de))
        else:
            choices.append((t,))
    exposed_choices = []
    for m in spec.melds:
        how = {MELD_CHOW: "chow", MELD_PUNG: "pung", KONG_EXPOSED: "kong", KONG_CONCEALED: "ckong"}[m.kind]
        if m.kind == MELD_CHOW:
            faces = tuple(sorted(de if x == WHITE and white else x for x in m.tiles))
            exposed_choices.append([(how, faces)])
        elif m.tiles[0] == WHITE and white:
            exposed_choices.append([(how, (WHITE,) * 3), (how, (de,) * 3)])
        else:
            exposed_choices.append([(how, (m.tiles[0],) * 3)])
    best = -1
    for faces in itertools.product(*choices):
        c: Counter[int] = Counter(faces)
        win_face = faces[win_index] if win_index is not None else None
        for d in _decomps(c, True):
            for exp in itertools.product(*exposed_choices):
                groups = [(k, f, "concealed") for k, f in d] + [
                    ("sequence" if how == "chow" else "triplet", f, how) for how, f in exp
                ]
                wins: list[tuple[int, int] | None] = [
                    (i, win_face) for i, (_, f, how) in enumerate(groups) if how == "concealed" and win_face in f
                ]
                for w in wins or [None]:
                    best = max(best, _oracle_total(groups, w, spec))
    return best


def _random_case(rng: random.Random, wilds: int, melds: int) -> tuple[WinSpec, list[int], int] | None:
    de = rng.randrange(NUM_KINDS)
    tiles: list[int] = []
    pair = rng.randrange(NUM_KINDS)
    tiles += [pair, pair]
    exposed: list[Meld] = []
    for i in range(4):
        t = rng.randrange(NUM_KINDS)
        group = [t, t + 1, t + 2] if t < 27 and t % 9 <= 6 and rng.random() < 0.5 else [t, t, t]
        if i < melds:
            if de in group:
                return None
            kind = MELD_CHOW if group[0] != group[1] else MELD_PUNG
            exposed.append(Meld(kind, tuple(group)))
        else:
            tiles += group
    # Some tiles become 得 (wild) and some de-face tiles are played by 白板.
    for i in rng.sample(range(len(tiles)), wilds):
        tiles[i] = de
    if de != WHITE and de in tiles and rng.random() < 0.5:
        k = tiles.index(de)
        tiles[k] = WHITE
    counts = to_counts(tiles)
    if max(counts) > 4 or counts[de] > 3:
        return None
    win_index = rng.randrange(len(tiles))
    self_drawn = rng.random() < 0.5
    if tiles[win_index] == de and not self_drawn:
        self_drawn = True  # a discarded 得 cannot be won on
    spec = WinSpec(tuple(counts), tuple(exposed), de, 27 + rng.randrange(4), tiles[win_index], self_drawn, OPTS)
    return spec, tiles, win_index


@pytest.mark.parametrize("seed", range(60))
def test_winner_search_matches_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    while True:
        wilds = rng.choice((0, 1, 1, 2, 2))
        case = _random_case(rng, wilds, melds=rng.choice((2, 3)))
        if case is None:
            continue
        spec, tiles, win_index = case
        if can_win(spec.counts, spec.de):
            break
    got, _ = score_winner(spec)
    assert got.total == brute_force(spec, tiles, win_index), (tiles, spec)


def test_three_de_search_matches_brute_force() -> None:
    rng = random.Random(7)
    done = 0
    while done < 3:
        case = _random_case(rng, 3, melds=3)
        if case is None:
            continue
        spec, tiles, win_index = case
        got, _ = score_winner(spec)
        assert got.total == brute_force(spec, tiles, win_index), (tiles, spec)
        done += 1


def test_white_reads_either_way_at_a_win() -> None:
    de = parse_tile("1s")
    # P 2s 3s needs P as 1s; PP as a pair is better as 白 (2) than as 1s (0).
    for concealed, total in (("P 2s 3s 456m 789m 555p 9s 9s", 14), ("P P 234m 567m 234p 678p", 12)):
        counts = to_counts(parse_tiles(concealed))
        spec = WinSpec(tuple(counts), (), de, SOUTH, parse_tile("9s" if "9s" in concealed else "8p"), False, OPTS)
        assert score_winner(spec)[0].total == total


def test_patterns_are_recognised_and_house_fan_applies() -> None:
    de = parse_tile("1p")
    counts = to_counts(parse_tiles("123m 456m 789m 111m 55m"))
    spec = WinSpec(tuple(counts), (), de, SOUTH, parse_tile("4m"), False, OPTS)
    best, seen = score_winner(spec)
    assert "pure_one_suit" in seen and ("pure_one_suit", 0) in best.patterns
    opts = get_variant(V).validate_options({"fan_pure_one_suit": 2})
    spec2 = WinSpec(tuple(counts), (), de, SOUTH, parse_tile("4m"), False, opts)
    assert score_winner(spec2)[0].total == (8 + 10) * 4


# -- bots: zero sum, even totals ----------------------------------------------------------------
@pytest.mark.parametrize("seed", range(30))
def test_bot_hands_are_zero_sum_with_even_totals(seed: str) -> None:
    rng = random.Random(seed)
    hand = get_variant(V).new_hand(seed=f"bots-{seed}")
    bots = [BOTS["greedy"](), BOTS["random"](), BOTS["greedy"](), BOTS["greedy"]()]
    while hand.phase != ENDED:
        for s in range(4):
            legal = hand.legal_actions(s)
            if legal:
                hand.apply(bots[s].choose(hand, s, rng, legal))
                break
    r = hand.result
    assert r is not None and sum(r.deltas) == 0
    for b in r.breakdown:
        if b.name.endswith(":total"):
            assert b.value % 2 == 0 and 0 <= b.value <= CAP
