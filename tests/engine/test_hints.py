"""听牌 hints (games/engine/insight) on rigged hands in tile notation: the discards that keep a
hand ready and their waits with unseen counts, "any tile" with wilds, 白板 read both ways in 得,
claim verdicts, and no hint that depends on a tile its reader may not see."""

from __future__ import annotations

import random
from typing import Any

from games.engine import scenario
from games.engine.insight.hints import IMPROVES, KEEPS, WINS, WORSENS, HintSet, hints
from games.engine.insight.seat_view import SeatView
from games.engine.tiles import format_tiles, parse_tile, parse_tiles, tile_str
from games.engine.variants import get_variant
from tests.engine.rig import act, fill_hands, hand_after


def seat_view(variant: str, hands: dict[str, str], actions: list[dict[str, Any]], seat: int, **extra: Any) -> SeatView:
    view = SeatView.from_view(hand_after(variant, hands, actions, **extra).view(seat))
    assert view is not None
    return view


def rows(found: HintSet) -> dict[str, Any]:
    return {tile_str(d.tile): d for d in found.discards}


def waits(found: HintSet, tile: str) -> dict[str, int]:
    d = rows(found)[tile]
    assert d.waits is not None, f"discarding {tile} should leave the hand ready"
    return {tile_str(t): n for t, n in d.waits.tiles}


def test_a_ready_discard_names_its_waits_and_counts_only_what_the_seat_has_seen() -> None:
    # 东北 (no wilds): throwing E from 123m 456m 789m 11p 45s E waits on 3s and 6s.  S holds two
    # 6s, hidden from E: they are still unseen to E.
    hands = fill_hands({"E": "123m456m789m11p45sE", "S": "6s6s 1m4m7m 2p5p8p 1s 7s E S W"}, avoid="3s6s1p")
    found = hints(seat_view("dongbei", hands, [], 0))
    assert found.distance == 0
    assert [tile_str(d.tile) for d in found.discards if d.ready] == ["E"]
    assert rows(found)["E"].best
    assert waits(found, "E") == {"3s": 4, "6s": 4}
    assert rows(found)["1m"].distance == 1 and not rows(found)["1m"].best


def test_a_tile_in_a_pond_is_seen_the_same_tile_in_a_hidden_hand_is_not() -> None:
    hands = fill_hands({"E": "123m456m789m11p45sE"}, avoid="3s6s1p")
    view = hand_after("dongbei", hands, []).view(0)
    assert waits(hints(SeatView.from_view(view)), "E")["3s"] == 4  # type: ignore[arg-type]
    ponds = {**view, "players": [dict(p) for p in view["players"]]}
    ponds["players"][2]["discards"] = "3s"
    assert waits(hints(SeatView.from_view(ponds)), "E")["3s"] == 3  # type: ignore[arg-type]


def test_with_a_wild_a_single_wait_is_any_tile() -> None:
    # 财神: indicator 4s makes 4m the wild.  Four melds + the wild + E: throwing E leaves the
    # wild alone as half the pair, and every tile completes it.
    hands = fill_hands({"E": "123m567m789p123s4mE"}, avoid="4m", flipped="4s")
    found = hints(seat_view("zhejiang_caishen", hands, [], 0, flipped="4s"))
    e = rows(found)["E"]
    assert e.ready and e.waits is not None and e.waits.any_tile and e.best
    # Throwing the wild instead leaves E alone: a single wait on E, or on the wild drawn back.
    assert waits(found, "4m") == {"4m": 3, "E": 3}
    assert not rows(found)["4m"].best  # 6 unseen tiles against every tile


def test_de_reads_white_as_the_de_face_or_as_itself() -> None:
    # 得 (flipped 2s: 2s is the 得, and 白板 may play 2s): 11p + PP is ready on 1p, on 白板, or
    # on a 得 (a wild); the flipped 2s is seen.
    hands = fill_hands({"E": "123m456m789m11pPPE"}, avoid="1p", flipped="2s")
    found = hints(seat_view("zhedong_de", hands, [], 0, flipped="2s"))
    assert waits(found, "E") == {"1p": 2, "2s": 3, "P": 2}


def test_improves_compares_with_the_hand_before_the_draw() -> None:
    # S was 1 from ready (12m, 45s); it draws the 3m: throwing the lone N makes it ready, which
    # improves on before the draw; throwing the 3m back does not.
    hands = fill_hands({"S": "12m456m789p11s45sN"}, avoid="3m3s6s1s", wall="3m")
    thrown = tile_str(parse_tiles(hands["E"])[-1])
    hand = hand_after("dongbei", hands, [act("E", "discard", tile=thrown)], wall="3m")
    scenario.close_window(hand)  # nobody claims: S draws
    view = SeatView.from_view(hand.view(1))
    assert view is not None and view.drawn == parse_tile("3m")
    found = rows(hints(view))
    assert found["N"].ready and found["N"].improves
    assert found["3m"].distance == 1 and not found["3m"].improves


def test_claim_offers_say_whether_taking_them_helps() -> None:
    # 财神 (indicator 4s: 4m wild, which nobody holds).  E throws C.  S holds C C in a hand 1 from
    # ready: the pung and a discard make it ready (improves).  W waits on C alone: the win.
    hands = fill_hands(
        {"E": "1m3m7m2p5p8p2s5s7sESWNC", "S": "CC123m456m789p1s9s", "W": "123p456p789p111sC"},
        avoid="C1s9s",
        flipped="4s",
    )
    actions = [act("E", "discard", tile="C")]
    s = hints(seat_view("zhejiang_caishen", hands, actions, 1, flipped="4s"))
    pung = next(c for c in s.claims if c.action["do"] == "pung")
    assert pung.verdict == IMPROVES and pung.distance == 0 and s.distance == 1
    w = hints(seat_view("zhejiang_caishen", hands, actions, 2, flipped="4s"))
    assert {c.action["do"]: c.verdict for c in w.claims}["win"] == WINS


def test_a_chow_that_breaks_two_melds_worsens_the_hand() -> None:
    # 东北: S is ready (123m 567m 789p 11s 45s, on 3s/6s).  E throws 4m: chowing it with 3m 5m
    # takes a tile from two melds (worse); with 5m 6m or 2m 3m it only swaps a meld (keeps).
    hands = fill_hands({"E": "4m 9m 1p 3p 5p 2s 8s 9s E S W N C F", "S": "123m567m789p11s45s"}, avoid="4m3s6s1s")
    view = seat_view("dongbei", hands, [act("E", "discard", tile="4m")], 1)
    verdicts = {c.action["tiles"]: c.verdict for c in hints(view).claims if c.action["do"] == "chow"}
    assert verdicts == {"234m": KEEPS, "345m": WORSENS, "456m": KEEPS}


def dealt_around(key: str, own: list[int], flipped: int | None, seed: int) -> Any:
    """A hand where seat E holds ``own`` and the rest of the set is shuffled by ``seed``."""
    variant = get_variant(key)
    pool = list(variant.tile_set(variant.validate_options({})))
    for t in [*own, *([flipped] if flipped is not None else [])]:
        pool.remove(t)
    pool = [t for t in pool if t < 34]  # flowers stay in the wall the rig fills
    random.Random(seed).shuffle(pool)
    size = variant.hand_size
    hands = {"E": format_tiles(own)}
    for i, seat in enumerate("SWN"):
        hands[seat] = format_tiles(pool[i * size : (i + 1) * size])
    extra = {"flipped": tile_str(flipped)} if flipped is not None else {}
    return hand_after(key, hands, [], **extra)


def test_no_hint_depends_on_a_hidden_tile() -> None:
    """E's hand and the public centre fixed, the other hands and the wall dealt three ways:
    E's hints are the same every time."""
    flips = {"zhejiang_caishen": "4s", "zhedong_de": "2s", "wenzhou": "7p", "zhangzhou": "9p", "dongbei": None}
    for key, flip in flips.items():
        variant = get_variant(key)
        own = variant.new_hand({}, {}, seed=f"hidden-{key}").players[0].hand[: variant.hand_size + 1]
        own = [t for t in own if t < 34][: variant.hand_size + 1]
        flipped = parse_tile(flip) if flip else None
        seen = {
            repr(hints(SeatView.from_view(dealt_around(key, own, flipped, seed).view(0))).to_json())
            for seed in (1, 2, 3)
        }  # type: ignore[arg-type]
        assert len(seen) == 1, key


def test_one_step_from_ready_the_closest_discards_list_their_useful_tiles() -> None:
    # 东北: 123m 456m 789p 1s 45s 8s N — throwing N (or 1s, or 8s) leaves 1 from ready.  Every
    # kind listed must make it ready, and every kind left out must not.
    hands = fill_hands({"E": "123m456m789p1s45s8sN"}, avoid="3s6s1s8s")
    view = seat_view("dongbei", hands, [], 0)
    found = hints(view)
    closest = [d for d in found.discards if d.distance == found.distance]
    assert found.distance == 1 and closest
    reader = view.reader()
    for d in closest:
        assert d.useful is not None and d.useful.tiles
        counts = view.counts()
        counts[d.tile] -= 1
        for kind, unseen in d.useful.tiles:
            counts[kind] += 1
            assert reader.distance(counts, 0) == 0, tile_str(kind)
            counts[kind] -= 1
            assert unseen == view.unseen(kind)
        others = {k for k in range(34) if counts[k] < 4} - {k for k, _ in d.useful.tiles}
        for kind in others:  # and no kind that would is left out
            counts[kind] += 1
            assert reader.distance(counts, 0) == 1, tile_str(kind)
            counts[kind] -= 1
    assert {"3s", "6s"} <= {tile_str(k) for k, _ in next(d for d in closest if tile_str(d.tile) == "N").useful.tiles}  # type: ignore[union-attr]
    # Farther discards list theirs too (every distance).
    assert all(d.useful is not None for d in found.discards if d.distance > found.distance)


def test_the_batched_distances_equal_one_distance_per_kind() -> None:
    """``shanten_each`` (one pass for all 34 kinds) against ``shanten`` per kind, with wilds."""
    from games.engine import shapes
    from games.engine.tiles import to_counts

    rng = random.Random(20261204)
    tiles = [t for t in range(34) for _ in range(4)]
    for _ in range(400):
        size = rng.choice([1, 4, 7, 10, 13, 16])
        wilds = min(size, rng.choice([0, 0, 1, 2, 3]))
        counts = to_counts(rng.sample(tiles, size - wilds))
        each = shapes.shanten_each(counts, wilds)
        for k in range(34):
            if counts[k] < 4:
                counts[k] += 1
                assert each[k] == shapes.shanten(counts, wilds)
                counts[k] -= 1


def test_far_from_ready_every_discard_is_ranked_by_the_unseen_tiles_that_lower_its_distance() -> None:
    """牌效 at every distance: each discard lists exactly the kinds whose draw lowers the
    distance it leaves, with their unseen copies; rank 1 (marked best) is the lowest distance
    with the most such tiles, and the ranks follow (distance, fewer tiles)."""
    for variant, flipped in (("zhejiang_caishen", "4s"), ("zhedong_de", "2s"), ("dongbei", None)):
        extra = {"flipped": flipped} if flipped else {}
        hands = fill_hands({"E": "19m 258p 369s ESWN CF"}, flipped=flipped)
        view = seat_view(variant, hands, [], 0, **extra)
        found = hints(view)
        assert found.distance is not None and found.distance >= 2, variant
        reader = view.reader()
        for d in found.discards:
            assert d.useful is not None and d.waits is None
            counts = view.counts()
            counts[d.tile] -= 1
            lowering = set()
            for k in range(34):
                if counts[k] < 4:
                    counts[k] += 1
                    if reader.distance(counts, 0) < d.distance:
                        lowering.add(k)
                    counts[k] -= 1
            assert {k for k, _ in d.useful.tiles} == lowering, (variant, tile_str(d.tile))
            assert all(n == view.unseen(k) for k, n in d.useful.tiles)
        order = sorted(found.discards, key=lambda d: d.rank)
        keys = [(d.distance, -d.useful.unseen) for d in order if d.useful is not None]
        assert keys == sorted(keys)
        assert {d.rank for d in found.discards if d.best} == {1} and order[0].best
        assert any(d.rank > 1 for d in found.discards), "a far hand has better and worse discards"
        assert [d.rank for d in order] == [1 + sum(k < key for k in keys) for key in keys]


def test_every_rule_sets_batched_distances_equal_one_distance_per_kind() -> None:
    """``ShapeReader.distances_after_each`` (the batch behind 牌效 at every distance) against
    ``distance`` per kind, for each rule set's reader: its wilds, its stand-ins (白板 as the
    wild's face, 得's 白板 both ways) and its special forms, on random parts with the wild and
    白板 drawn often."""
    from games.engine.tiles import to_counts
    from tests.engine.test_acceptance import FLIPS, _dealt

    rng = random.Random(20261206)
    for key, flip in FLIPS.items():
        table = _dealt(key, flip, seed=f"batch-{key}").view(0)["table"]
        reader = get_variant(key).shape_reader(table)
        tiles = [t for t in range(34) for _ in range(4)] + sorted(reader.remapped) * 8
        for _ in range(150):
            size = rng.choice([1, 4, 7, 10, 13, 16])
            counts = to_counts(rng.sample(tiles, size))
            if max(counts) > 4:
                continue
            melds = rng.choice([0, 0, (16 - size) // 3])
            batch = reader.distances_after_each(counts, melds)
            for k in range(34):
                if counts[k] < 4:
                    counts[k] += 1
                    assert batch[k] == reader.distance(counts, melds), (key, counts, tile_str(k))
                    counts[k] -= 1
