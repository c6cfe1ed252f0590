"""The wall: seeded shuffle, break, head and tail draws, face-up tiles, commitment."""

from __future__ import annotations

from collections import Counter

import pytest

from games.engine.tiles import parse_tiles, standard_set
from games.engine.wall import Wall, break_order, rigged_wall, seed_commitment, shuffled_tiles


def test_same_seed_same_wall_and_dice() -> None:
    a = shuffled_tiles(standard_set(), "seed-1")
    assert a == shuffled_tiles(standard_set(), "seed-1")
    assert a != shuffled_tiles(standard_set(), "seed-2")
    assert Counter(a[0]) == Counter(standard_set())
    assert all(1 <= d <= 6 for d in a[1])


def test_commitment_is_sha256_of_seed() -> None:
    assert seed_commitment("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_break_rotates_the_ring_to_the_chosen_stack() -> None:
    ring = list(range(136))
    # dice 2+5: 对家's wall (3rd of four 17-stack walls), stack 3 -> ring position 2*(2*17+2)
    assert break_order(ring, (2, 5))[0] == 2 * (2 * 17 + 2)
    assert sorted(break_order(ring, (6, 6))) == ring


def test_tail_draws_take_stacks_from_the_far_end_top_first() -> None:
    wall = Wall(tiles=list(range(10)))
    assert [wall.draw_tail() for _ in range(4)] == [8, 9, 6, 7]
    assert [wall.draw_head() for _ in range(2)] == [0, 1]
    assert wall.remaining() == 4


def test_skipped_face_up_tile_is_never_drawn() -> None:
    wall = Wall(tiles=list(range(6)), skip={0}, face_up={0})
    drawn = [wall.draw_head() for _ in range(5)]
    assert drawn == [1, 2, 3, 4, 5] and wall.remaining() == 0
    assert wall.face_down_left() == 0 and wall.face_up_tiles() == [0]


def test_rigged_wall_places_head_tail_and_fixed_tiles() -> None:
    head, tail = parse_tiles("1m 2m 3m"), parse_tiles("9p 8p")
    filler = parse_tiles("E S W N C F")
    wall = rigged_wall(12, head, tail, filler, fixed={0: parse_tiles("5s")[0]})
    wall.mark_face_up(0, drawable=False)
    assert [wall.draw_head() for _ in range(3)] == head
    assert [wall.draw_tail() for _ in range(2)] == tail
    assert sorted(wall.tiles) == sorted(head + tail + filler + parse_tiles("5s"))


def test_snapshot_round_trip() -> None:
    wall = Wall(tiles=list(range(8)), skip={3}, face_up={3})
    wall.draw_head()
    wall.draw_tail()
    again = Wall.from_json(wall.to_json())
    assert again.to_json() == wall.to_json()
    assert [again.draw_head() for _ in range(2)] == [1, 2]


@pytest.mark.parametrize("position", [8, -1, 1.0, True, "2"])
def test_a_snapshot_naming_a_position_off_the_wall_is_refused(position: object) -> None:
    """A snapshot can come from outside (a replay sent for checking): a taken position that is not
    on the wall is a ValueError, never an IndexError nor a tile taken from the other end."""
    data = Wall(tiles=list(range(8))).to_json()
    data["taken"] = [0, position]
    with pytest.raises(ValueError, match="not in a wall of 8 tiles"):
        Wall.from_json(data)
