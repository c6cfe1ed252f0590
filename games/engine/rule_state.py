"""A hand's rule-set state: typed, one dataclass per rule set, saved in the snapshot.

The shared machine (:class:`games.engine.hand.Hand`) knows turns, claim windows and the wall;
what a rule set adds (the indicator, the gold, 分饼 rounds, 跟风 streaks, ...) lives in a
subclass of :class:`RuleState` that the rule set names as its ``state_type``.  Its fields are
plain JSON values (tiles as their codes), so the snapshot is the dataclass's fields by name.

Snapshots written before the typed state kept the same values under the same names in an
untyped ``extra`` dict; :meth:`RuleState.from_json` reads both (a key the old code had not
set yet takes the field's default, which is what the old code's ``extra.get`` assumed).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Self

from games.engine.tiles import Tile


@dataclass(slots=True)
class RuleState:
    """What every rule set records.  A rule set subclasses it with its own fields."""

    dice: list[int] | None = None  # the wall-break roll (a rule set with one die records its own)
    wilds: list[Tile] = field(default_factory=list)  # this hand's wild kinds (empty: none)
    auto_win: int | None = None  # a seat the rules made win by itself (the scenario runner accepts it)

    def to_json(self) -> dict[str, Any]:
        """Every field by name, as fresh JSON values (nothing shared with the live state)."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Self:
        """From a snapshot's ``state`` or an old snapshot's ``extra``; an unknown key is an error
        (a misspelt or forgotten field would otherwise vanish silently)."""
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown {cls.__name__} field(s) {sorted(unknown)}")
        return cls(**{k: _plain(v) for k, v in d.items()})

    def copy(self) -> Self:
        return type(self).from_json(self.to_json())


def _plain(v: Any) -> Any:
    """A deep copy of a JSON-shaped value (lists and dicts rebuilt, tuples as lists)."""
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


__all__ = ["RuleState"]
