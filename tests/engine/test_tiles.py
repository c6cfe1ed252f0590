"""Tile codes and the CONTRACT notation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine.tiles import (
    NUM_ALL_KINDS,
    TileNotationError,
    format_tiles,
    from_counts,
    is_terminal_or_honour,
    parse_tile,
    parse_tiles,
    rank_of,
    standard_set,
    suit_of,
    tile_str,
    to_counts,
)


def test_codes_follow_the_notation_order() -> None:
    names = [tile_str(t) for t in range(NUM_ALL_KINDS)]
    assert names[:9] == [f"{r}m" for r in range(1, 10)]
    assert names[9:18] == [f"{r}p" for r in range(1, 10)]
    assert names[18:27] == [f"{r}s" for r in range(1, 10)]
    assert names[27:34] == list("ESWNCFP")
    assert names[34:] == [f"{r}h" for r in range(1, 9)]


def test_shared_suffix_and_whitespace() -> None:
    assert parse_tiles("123m456p EES") == parse_tiles("1m 2m 3m 4p 5p 6p E E S")
    assert parse_tiles(" 1 2 3 m\n") == parse_tiles("123m")
    assert format_tiles(parse_tiles("1m2m3m 4p E E S 1h")) == "123m 4p EES 1h"


@pytest.mark.parametrize("bad", ["123", "1x", "m", "0m", "9h", "1mE2", "12E", "Z"])
def test_bad_notation_is_refused(bad: str) -> None:
    with pytest.raises(TileNotationError):
        parse_tiles(bad)


def test_parse_tile_wants_exactly_one() -> None:
    assert parse_tile("P") == 33
    with pytest.raises(TileNotationError):
        parse_tile("12m")


@given(st.lists(st.integers(0, NUM_ALL_KINDS - 1), max_size=40))
def test_format_parse_round_trip(tiles: list[int]) -> None:
    assert parse_tiles(format_tiles(tiles)) == tiles


@given(st.lists(st.integers(0, 33), max_size=20))
def test_counts_round_trip(tiles: list[int]) -> None:
    assert from_counts(to_counts(tiles)) == sorted(tiles)


def test_properties() -> None:
    assert (suit_of(parse_tile("5p")), rank_of(parse_tile("5p"))) == (1, 5)
    assert suit_of(parse_tile("E")) == 3 and rank_of(parse_tile("E")) == 0
    assert is_terminal_or_honour(parse_tile("9s")) and is_terminal_or_honour(parse_tile("C"))
    assert not is_terminal_or_honour(parse_tile("2m"))
    assert len(standard_set()) == 136 and len(standard_set(with_flowers=True)) == 144


# Unicode digits that str.isdigit() (and, for most, int()) accept: full-width, Arabic-Indic,
# Devanagari, superscript, circled.  Only ASCII is notation.
NON_ASCII_DIGITS = ["５", "٥", "५", "⁵", "①", "𝟓"]


@pytest.mark.parametrize("digit", NON_ASCII_DIGITS)
def test_non_ascii_digits_are_refused_by_parse_tiles(digit: str) -> None:
    for text in (f"{digit}m", f"1{digit}3m", f"123m {digit}p EES", f"{digit}h"):
        with pytest.raises(TileNotationError, match="tile notation is ASCII"):
            parse_tiles(text)


@pytest.mark.parametrize("digit", NON_ASCII_DIGITS)
def test_non_ascii_digits_are_refused_by_parse_tile(digit: str) -> None:
    with pytest.raises(TileNotationError, match="tile notation is ASCII"):
        parse_tile(f"{digit}s")


@pytest.mark.parametrize("letter", ["ｍ", "Ｅ", "Ｐ", "ｈ"])
def test_full_width_suits_and_honours_are_refused(letter: str) -> None:
    with pytest.raises(TileNotationError, match="tile notation is ASCII"):
        parse_tiles(f"5{letter}" if letter in "ｍｈ" else letter)


@pytest.mark.parametrize("bad", ["５m", "٥p", "⁵s", "1m ５m"])
def test_non_ascii_digits_are_refused_where_actions_are_read(bad: str) -> None:
    # Action.from_json is how a socket or REST command's tile reaches the engine.
    from games.engine.state import Action

    with pytest.raises(TileNotationError):
        Action.from_json({"seat": "E", "do": "discard", "tile": bad})
    with pytest.raises(TileNotationError):
        Action.from_json({"seat": "E", "do": "chow", "tiles": bad})


@given(st.lists(st.integers(0, NUM_ALL_KINDS - 1), max_size=40), st.sampled_from([" ", "\n", "\t", "  "]))
def test_every_valid_spelling_still_parses(tiles: list[int], gap: str) -> None:
    # The contract is unchanged for ASCII: tile by tile, or suffix-shared, any ASCII whitespace.
    one_by_one = gap.join(tile_str(t) for t in tiles)
    assert parse_tiles(one_by_one) == tiles
    assert parse_tiles(format_tiles(tiles).replace(" ", gap)) == tiles


@pytest.mark.parametrize("value", [["1m"], 5, None, {"tile": "1m"}, b"1m"])
def test_notation_that_is_not_text_is_a_notation_error(value: object) -> None:
    # Replays and socket commands are JSON: a list where a tile string belongs must be a
    # TileNotationError, not an AttributeError (a 500 from the replay check).
    with pytest.raises(TileNotationError, match="tile notation is text"):
        parse_tiles(value)  # type: ignore[arg-type]
    with pytest.raises(TileNotationError, match="tile notation is text"):
        parse_tile(value)  # type: ignore[arg-type]
