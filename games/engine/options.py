"""Per-table options: a small typed schema per variant with clear validation errors.

A HOUSE option carries a value the source text does not give (spec/rules/SPEC.md marks
them); the rules page shows which values are house values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


class OptionsError(ValueError):
    """Options that do not fit the variant's schema."""


@dataclass(frozen=True, slots=True)
class Option:
    key: str
    type: type  # bool, int or str
    default: Any
    label: str
    choices: tuple[Any, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    house: bool = False  # a HOUSE value: the source is silent, spec/rules/SPEC.md chose the default
    help: str = ""

    def validate(self, value: Any) -> Any:
        # bool is a subclass of int: refuse True where a number is meant, and 1 where a flag is.
        if self.type is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise OptionsError(f"option {self.key!r} must be an integer, got {value!r}")
        if self.type is bool and not isinstance(value, bool):
            raise OptionsError(f"option {self.key!r} must be true or false, got {value!r}")
        if self.type is str and not isinstance(value, str):
            raise OptionsError(f"option {self.key!r} must be a string, got {value!r}")
        if self.choices and value not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            raise OptionsError(f"option {self.key!r} must be one of {allowed}, got {value!r}")
        if self.minimum is not None and value < self.minimum:
            raise OptionsError(f"option {self.key!r} must be at least {self.minimum}, got {value!r}")
        if self.maximum is not None and value > self.maximum:
            raise OptionsError(f"option {self.key!r} must be at most {self.maximum}, got {value!r}")
        return value

    def describe(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "type": self.type.__name__,
            "default": self.default,
            "label": self.label,
            "choices": list(self.choices),
            "minimum": self.minimum,
            "maximum": self.maximum,
            "house": self.house,
            "help": self.help,
        }


BASE_OPTION = Option("base", int, 1, "底分 (wallet units per base point)", minimum=1, maximum=1_000_000)


@dataclass(frozen=True)
class OptionsSchema:
    options: Sequence[Option] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        keys = [o.key for o in self.all()]
        if len(keys) != len(set(keys)):
            raise ValueError(f"duplicate option keys in {keys}")

    def all(self) -> list[Option]:
        return [BASE_OPTION, *self.options]

    def defaults(self) -> dict[str, Any]:
        return {o.key: o.default for o in self.all()}

    def validate(self, given: Mapping[str, Any] | None, variant_key: str = "") -> dict[str, Any]:
        """Defaults overlaid with ``given``; unknown keys and bad values raise OptionsError."""
        if given is None:
            given = {}
        if not isinstance(given, Mapping):
            raise OptionsError(f"options must be an object, got {type(given).__name__}")
        by_key = {o.key: o for o in self.all()}
        out = self.defaults()
        for key, value in given.items():
            if key not in by_key:
                known = ", ".join(sorted(by_key))
                where = f" for {variant_key}" if variant_key else ""
                raise OptionsError(f"unknown option {key!r}{where}; known options: {known}")
            out[key] = by_key[key].validate(value)
        return out
