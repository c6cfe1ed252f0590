"""Scoring patterns as small objects: a key, the label players read, a value (fixed, or from
one of the table's options) and ``applies(facts)``.

A rule set lists its patterns once, in the order its breakdown shows them, and asks
:func:`matching` which of them a win shows; the label and value come from the same object,
so the breakdown line and the detector cannot drift apart.  ``facts`` is the rule set's
:class:`games.engine.win.WinFacts` (or its subclass), built once per evaluation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from games.engine.state import BreakdownItem

F = TypeVar("F")


def never(facts: object) -> bool:
    """For a pattern a rule set names and prices but detects elsewhere (a search, a prompt)."""
    return False


@dataclass(frozen=True, slots=True)
class Pattern(Generic[F]):
    """One scoring pattern of one rule set."""

    key: str  # stable, e.g. "kong_bloom"; the breakdown line's ``name``
    label: str  # what players read, e.g. "杠开"
    applies: Callable[[F], bool] = never  # does a win with these facts show the pattern?
    option: str | None = None  # the table option holding its value, if it has one
    fixed: int = 1  # its value when no option prices it
    price: Callable[[Mapping[str, Any]], int] | None = None  # a value made of several options
    unit: str = "multiplier"  # what the value counts (games.engine.state.UNITS)

    def value(self, options: Mapping[str, Any]) -> int:
        if self.price is not None:
            return self.price(options)
        return int(options[self.option]) if self.option is not None else self.fixed

    def item(self, options: Mapping[str, Any], detail: str = "", **params: Any) -> BreakdownItem:
        """The pattern's breakdown line (no payments: those are the settlement's lines); its
        value is also a parameter named by its unit (``{"multiplier": 2}``, ``{"fan": 1}``)."""
        value = self.value(options)
        return BreakdownItem(self.key, self.label, value, detail, unit=self.unit, params={self.unit: value, **params})


def matching(patterns: Iterable[Pattern[F]], facts: F) -> list[Pattern[F]]:
    """The patterns ``facts`` show, in the rule set's order."""
    return [p for p in patterns if p.applies(facts)]


def by_key(patterns: Iterable[Pattern[F]]) -> dict[str, Pattern[F]]:
    """A rule set's patterns by key; a key used twice is a mistake in the table."""
    out: dict[str, Pattern[F]] = {}
    for p in patterns:
        if p.key in out:
            raise ValueError(f"pattern {p.key!r} listed twice")
        out[p.key] = p
    return out


__all__ = ["Pattern", "matching", "by_key", "never"]
