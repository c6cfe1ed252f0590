"""The pure rules engine: deterministic, typed, and free of Django.

Nothing under ``games.engine`` may import Django (an import-linter contract,
checked by the test suite, enforces it).  Time and randomness come in as
arguments so that a variant, its options, a wall and a list of actions always
yield exactly one history.

This is the engine's front door: the platform, the tools and the tests need nothing else.

* making a hand: :func:`new_hand` (a real, seeded deal) and :func:`rigged_hand` (a deal as
  given, the scenario runner's), or :func:`load_hand` (a saved snapshot, older ones too:
  :func:`current_snapshot`);
* playing it: :meth:`Hand.legal_actions`, :meth:`Hand.refusal`, :meth:`Hand.apply` (raises
  :class:`IllegalAction`), :meth:`Hand.view`;
* driving it: :func:`turn` says who owes a decision now, what the rules force, each seat's
  timeout default, and who has nothing to claim in an open window (:func:`idle_passes`);
  :func:`advance` plays the automatic seats (:func:`bot_chooser`) until a person must decide;
* the phases (:data:`PLAY`, :data:`CLAIM`, :data:`ENDED`) and the shared verbs (:data:`DISCARD`,
  :data:`PASS`, ...);
* the notation: tiles as ``5m``, ``E``, ``C`` (:func:`parse_tile`, :func:`tile_str`, ...);
* the rule sets (:func:`get_variant`, :func:`all_variants`, :class:`Variant`, their
  :class:`Option` and :class:`PreHandQuestion`), the seeds (:func:`new_seed`,
  :func:`seed_commitment`), refusals (:func:`refuse`), the bots (:class:`GreedyBot`,
  :class:`StrongBot`) and the
  insight the tables and replays show (:func:`hints`, :class:`SeatView`, :func:`analyse`).

Code outside the engine imports from here only (an import-linter contract in pyproject.toml
keeps it so); what lies behind the door may move without the platform noticing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.engine.bots import Bot, GreedyBot
from games.engine.driver import (
    Chooser,
    Turn,
    advance,
    bot_chooser,
    claim_taken,
    decide,
    decision_rng,
    idle_passes,
    turn,
)
from games.engine.hand import CLAIM, ENDED, PLAY, Hand
from games.engine.insight.analysis import HandAnalysis, analyse
from games.engine.insight.hints import hints
from games.engine.insight.seat_view import SeatView
from games.engine.options import Option, OptionsError
from games.engine.refusals import JSONValue, refuse
from games.engine.state import (
    CHOW,
    DISCARD,
    KONG,
    PASS,
    PUNG,
    SEATS,
    WIN,
    Action,
    Event,
    IllegalAction,
    Result,
    seat_index,
    seat_name,
)
from games.engine.strong_bot import StrongBot
from games.engine.tiles import Tile, TileNotationError, format_tiles, parse_tile, parse_tiles, tile_str
from games.engine.variants import all_variants, current_snapshot, get_variant, load_hand
from games.engine.variants.base import PreHandQuestion, Variant
from games.engine.wall import new_seed, seed_commitment


def new_hand(
    variant: str,
    options: Mapping[str, Any] | None = None,
    context: Mapping[str, Any] | None = None,
    seed: str | None = None,
    *,
    open_empty_windows: bool = False,
) -> Hand:
    """A real deal of the rule set ``variant``: shuffled by ``seed`` (a fresh one if ``None``).

    ``open_empty_windows`` is claim protection: a claim window after every discard, whether or
    not anyone can claim (the live table plays so).  It is saved in the hand's snapshot."""
    return get_variant(variant).new_hand(options, context, seed, open_empty_windows=open_empty_windows)


def rigged_hand(
    variant: str,
    hands: Sequence[Sequence[Tile]],
    flipped: Tile | None = None,
    head: Sequence[Tile] = (),
    tail: Sequence[Tile] = (),
    options: Mapping[str, Any] | None = None,
    context: Mapping[str, Any] | None = None,
    *,
    open_empty_windows: bool = False,
) -> Hand:
    """A deal as given: the four dealt hands (East's first), the flipped tile where the rule set
    has one, the next draws from the head and the tail; every other tile fills deterministically."""
    return get_variant(variant).rigged_hand(
        hands, flipped, head, tail, options, context, open_empty_windows=open_empty_windows
    )


__all__ = [
    "CHOW",
    "CLAIM",
    "DISCARD",
    "ENDED",
    "KONG",
    "PASS",
    "PLAY",
    "PUNG",
    "SEATS",
    "WIN",
    "Action",
    "Chooser",
    "Event",
    "Bot",
    "GreedyBot",
    "Hand",
    "HandAnalysis",
    "IllegalAction",
    "JSONValue",
    "Option",
    "OptionsError",
    "PreHandQuestion",
    "Result",
    "SeatView",
    "Tile",
    "TileNotationError",
    "Turn",
    "Variant",
    "advance",
    "all_variants",
    "analyse",
    "bot_chooser",
    "claim_taken",
    "current_snapshot",
    "decide",
    "decision_rng",
    "format_tiles",
    "get_variant",
    "hints",
    "idle_passes",
    "load_hand",
    "new_hand",
    "new_seed",
    "parse_tile",
    "parse_tiles",
    "refuse",
    "rigged_hand",
    "seat_index",
    "seat_name",
    "seed_commitment",
    "tile_str",
    "turn",
    "StrongBot",
]
