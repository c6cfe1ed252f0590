"""Helpers to write rigged hands in tile notation for engine tests."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from games.engine import scenario
from games.engine.hand import Hand
from games.engine.tiles import NUM_KINDS, format_tiles, parse_tiles

# The golden scenarios live with the specification they check (spec/README.md).
SCENARIOS = Path(__file__).resolve().parents[2] / "spec" / "scenarios"


def fill_hands(
    given: dict[str, str],
    avoid: str = "",
    flipped: str | None = None,
    wall: str = "",
    tail: str = "",
    dealer_size: int = 14,
) -> dict[str, str]:
    """Complete ``given`` hands with harmless ones: distinct kinds only (so no pung or kong
    is possible), avoiding the kinds in ``avoid`` and their suit neighbours (so no chow)."""
    used = Counter(t for h in given.values() for t in parse_tiles(h))
    used.update(parse_tiles(wall))
    used.update(parse_tiles(tail))
    if flipped:
        used.update(parse_tiles(flipped))
    banned: set[int] = set()
    for t in parse_tiles(avoid):
        banned.add(t)
        if t < 27:
            banned.update(x for x in (t - 2, t - 1, t + 1, t + 2) if 0 <= x < 27 and x // 9 == t // 9)
    out = dict(given)
    for seat in "ESWN":
        if seat in out:
            continue
        size = dealer_size if seat == "E" else dealer_size - 1
        tiles: list[int] = []
        for kind in range(NUM_KINDS):
            if len(tiles) == size:
                break
            if kind in banned or used[kind] >= 4:
                continue
            tiles.append(kind)
            used[kind] += 1
        if len(tiles) < size:
            raise ValueError(f"cannot fill seat {seat}")
        out[seat] = format_tiles(tiles)
    return out


def run(variant: str, hands: dict[str, str], actions: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    sc: dict[str, Any] = {"variant": variant, "hands": hands, "actions": actions, **extra}
    return scenario.run(sc)


def hand_after(variant: str, hands: dict[str, str], actions: list[dict[str, Any]], **extra: Any) -> Hand:
    """The engine hand after playing ``actions`` the way the scenario runner does."""
    sc: dict[str, Any] = {"variant": variant, "hands": hands, **extra}
    hand = scenario.build_hand(sc, open_empty_windows=True)
    for i, raw in enumerate(actions):
        scenario.play_one(hand, scenario.parse_action(raw, i))
    if hand.window is not None and hand.window.responses:
        scenario.close_window(hand)  # as the runner does: the listed answers were all the answers
    return hand


def act(seat: str, do: str, tile: str | None = None, tiles: str | None = None) -> dict[str, Any]:
    a: dict[str, Any] = {"seat": seat, "do": do}
    if tile is not None:
        a["tile"] = tile
    if tiles is not None:
        a["tiles"] = tiles
    return a


# A rigged hand used by several rule sets' tests: S pungs E's 7m, later draws the fourth 7m and
# adds it to the pung, while W waits on 7m (8m 9m) and may rob the added kong.  Fill the other
# hands with ``fill_hands(ROB_HANDS, avoid="7m P C E")``; W answers next.
ROB_HANDS = {
    "E": "7m 1s 2s 3s 4s 5s 6s 1m 2m 3m 4m 5m 6m P",
    "S": "7m 7m 2p 3p 4p 5p 6p 7p 8p 9p 1p C C",
    "W": "123p 456p 789p 8m 9m S S",
}
ROB_ACTIONS = [
    act("E", "discard", "7m"),
    act("S", "pung"),
    act("S", "discard", "C"),
    act("W", "discard", "E"),
    act("N", "discard", "E"),
    act("E", "discard", "E"),
    act("S", "draw"),
    act("S", "kong", "7m"),
]


def matches(want: Any, got: Any) -> bool:
    """Every field the expectation names has its value; a list matches item by item, so a
    breakdown line may carry fields the expectation does not name (its code, unit, params)."""
    if isinstance(want, dict):
        return isinstance(got, dict) and all(matches(v, got.get(k)) for k, v in want.items())
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(want) == len(got)
            and all(matches(w, g) for w, g in zip(want, got, strict=True))
        )
    return bool(want == got)
