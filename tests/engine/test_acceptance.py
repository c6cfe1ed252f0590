"""Tile acceptance (games/engine/insight/acceptance.py): the unseen tiles that bring a hand
closer after each discard, ranked, on rigged hands of every rule set, checked one kind at a time
against the rule set's own distance and win test."""

from __future__ import annotations

import random
from typing import Any

from games.engine.hand import Hand
from games.engine.insight.acceptance import acceptance, clear_cache, discard_acceptance, part_acceptance, reader_for
from games.engine.insight.seat_view import SeatView
from games.engine.tiles import format_tiles, parse_tile, parse_tiles, tile_str, to_counts
from games.engine.variants import get_variant
from tests.engine.rig import fill_hands, hand_after

FLIPS = {"zhejiang_caishen": "4s", "zhedong_de": "2s", "wenzhou": "7p", "zhangzhou": "9p", "dongbei": None}


def seat_view(variant: str, hands: dict[str, str], actions: list[dict[str, Any]], seat: int, **extra: Any) -> SeatView:
    view = SeatView.from_view(hand_after(variant, hands, actions, **extra).view(seat))
    assert view is not None
    return view


def by_tile(view: SeatView) -> dict[str, Any]:
    return {tile_str(a.tile): a for a in acceptance(view)}


def test_a_ready_discard_accepts_its_waits_with_the_unseen_copies() -> None:
    # 东北: throwing E from 123m 456m 789m 11p 45s E waits on 3s and 6s; the 6s in S's hidden
    # hand are unseen to E, the 4s and 5s it holds are seen.
    hands = fill_hands({"E": "123m456m789m11p45sE", "S": "6s6s 1m4m7m 2p5p8p 1s 7s E S W"}, avoid="3s6s1p")
    view = seat_view("dongbei", hands, [], 0)
    ranked = acceptance(view)
    e = ranked[0]
    assert tile_str(e.tile) == "E" and e.distance == 0
    assert {tile_str(k): n for k, n in e.tiles} == {"3s": 4, "6s": 4}
    assert e.unseen == 8 and e.kinds == 2
    assert all(a.distance >= 1 for a in ranked[1:])


def test_tiles_in_a_pond_are_seen() -> None:
    hands = fill_hands({"E": "123m456m789m11p45sE"}, avoid="3s6s1p")
    raw = hand_after("dongbei", hands, []).view(0)
    ponds = {**raw, "players": [dict(p) for p in raw["players"]]}
    ponds["players"][2]["discards"] = "6s 6s"
    view = SeatView.from_view(ponds)
    assert view is not None
    assert {tile_str(k): n for k, n in by_tile(view)["E"].tiles} == {"3s": 4, "6s": 2}


def test_at_equal_distance_the_discard_keeping_more_unseen_tiles_ranks_first() -> None:
    # 东北: 123m 456m 789p 23s 5s 9s N, 1 from ready after throwing N, 9s or 5s.  Keeping 23s 5s
    # (throw 9s or N) accepts 1s 4s (two-sided) and the 5s pair and the 4s/6s near the 5s; keeping
    # 9s instead of 5s accepts fewer.  Acceptance, not the distance, tells them apart.
    hands = fill_hands({"E": "123m456m789p23s5s9sN"}, avoid="1s4s5s9s")
    view = seat_view("dongbei", hands, [], 0)
    rows = by_tile(view)
    assert rows["N"].distance == rows["9s"].distance == rows["5s"].distance == 1
    assert rows["N"].unseen > rows["5s"].unseen
    best = acceptance(view)[0]
    assert best.distance == 1 and best.unseen == max(a.unseen for a in acceptance(view) if a.distance == 1)


def test_every_kind_listed_lowers_the_distance_and_none_left_out_does() -> None:
    """Random hands of every rule set, every discard: the listed kinds are exactly those whose
    draw lowers the rule set's distance (or, when ready, wins by its win test)."""
    for key, flip in FLIPS.items():
        variant = get_variant(key)
        for i in range(6):
            hand = _dealt(key, flip, seed=f"acc-{key}-{i}")
            view = SeatView.from_view(hand.view(hand.turn))
            assert view is not None and view.discards
            _, reader = reader_for(view.variant, view.table)
            fresh = variant.shape_reader(view.table)
            counts = view.counts()
            for a in acceptance(view):
                part = list(counts)
                part[a.tile] -= 1
                assert a.distance == fresh.distance(part, view.n_melds)
                listed = {k for k, _ in a.tiles}
                for k in range(34):
                    if part[k] >= 4:
                        assert k not in listed
                        continue
                    part[k] += 1
                    lowers = (
                        fresh.wins(part, view.n_melds)
                        if a.distance == 0
                        else fresh.distance(part, view.n_melds) < a.distance
                    )
                    part[k] -= 1
                    assert (k in listed) == lowers, (key, tile_str(a.tile), tile_str(k))
                assert all(n == view.unseen(k) for k, n in a.tiles)


def _dealt(key: str, flip: str | None, seed: str) -> Hand:
    variant = get_variant(key)
    extra = {"flipped": flip} if flip else {}
    pool = [t for t in variant.tile_set(variant.validate_options({})) if t < 34]
    if flip:
        pool.remove(parse_tile(flip))
    random.Random(seed).shuffle(pool)
    size = variant.hand_size
    hands = {"E": format_tiles(pool[: size + 1])}
    for i, seat in enumerate("SWN"):
        hands[seat] = format_tiles(pool[size + 1 + i * size : size + 1 + (i + 1) * size])
    return hand_after(key, hands, [], **extra)


def test_a_wild_alone_accepts_every_tile() -> None:
    # 财神 (indicator 4s: 4m wild): four melds, the wild and E.  Throwing E leaves the wild as
    # half the pair: every kind completes it.
    hands = fill_hands({"E": "123m567m789p123s4mE"}, avoid="4m", flipped="4s")
    view = seat_view("zhejiang_caishen", hands, [], 0, flipped="4s")
    e = by_tile(view)["E"]
    assert e.distance == 0 and e.kinds == 34
    assert acceptance(view)[0].tile == parse_tile("E")


def test_seven_pairs_count_where_the_rule_set_has_them() -> None:
    # Six pairs and two singles: one discard from 七小对, a single wait on the other single.
    # 东北 wins it (with a 幺九: the 1m pair); 财神's standard shape alone is farther away.
    own = "1m1m 3p3p 5p5p 7s7s 9s9s C C E 2m"
    hands = fill_hands({"E": own}, avoid="E 2m")
    dongbei = by_tile(seat_view("dongbei", hands, [], 0))
    assert dongbei["E"].distance == 0 and [tile_str(k) for k, _ in dongbei["E"].tiles] == ["2m"]
    wilds = fill_hands({"E": own}, avoid="E 2m 4m", flipped="4s")
    caishen = by_tile(seat_view("zhejiang_caishen", wilds, [], 0, flipped="4s"))
    assert caishen["E"].distance > 0


def test_the_cache_keeps_rule_sets_and_wilds_apart() -> None:
    """The same counts read under two wilds, and under two rule sets, give their own answers."""
    clear_cache()
    counts = to_counts(parse_tiles("123m567m789p123s4m"))
    visible = [0] * 34
    k1, r1 = reader_for("zhejiang_caishen", {"wilds": "4m"})
    k2, r2 = reader_for("zhejiang_caishen", {"wilds": "9m"})
    k3, r3 = reader_for("dongbei", {})
    wild = part_acceptance(k1, r1, counts, 0, visible)
    plain = part_acceptance(k2, r2, counts, 0, visible)
    none = part_acceptance(k3, r3, counts, 0, visible)
    assert wild.kinds == 34
    # 123m 4m 567m: 1m, 4m or 7m makes the pair; with 9m wild, the 9m too.
    assert [tile_str(k) for k, _ in none.tiles] == ["1m", "4m", "7m"]
    assert [tile_str(k) for k, _ in plain.tiles] == ["1m", "4m", "7m", "9m"]
    # And the seat's visible tiles are applied per call, not cached with the distances.
    seen = list(visible)
    seen[parse_tile("4m")] = 2
    assert part_acceptance(k2, r2, counts, 0, seen).unseen == plain.unseen - 2


def test_melds_laid_down_shorten_the_hand() -> None:
    # 东北 after a pung: 10 concealed tiles + 1 meld.  Only discards the seat holds are ranked.
    key, reader = reader_for("dongbei", {})
    counts = to_counts(parse_tiles("123m456m78p 5s 9s N"))
    ranked = discard_acceptance(key, reader, counts, 1, [0] * 34, parse_tiles("N 9s 5s 1p"))
    assert [tile_str(a.tile) for a in ranked][:1] in (["N"], ["9s"], ["5s"])
    assert {tile_str(a.tile) for a in ranked} == {"N", "9s", "5s"}
    assert ranked[0].distance == 1 and {"6p", "9p"} <= {tile_str(k) for k, _ in ranked[0].tiles}
