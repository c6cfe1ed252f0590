"""Cells for CSV downloads that a spreadsheet will not run as formulas.

A spreadsheet treats a cell starting with ``=``, ``+``, ``-`` or ``@`` as a formula, and one
starting with a tab or a carriage return may be trimmed into one; usernames, notes and hand
names are chosen by players, so every text cell goes through :func:`cell` (the OWASP rule:
such a cell is prefixed with a single quote, which the spreadsheet shows as text).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import Any, Protocol

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

# A plain decimal number ("-3", "-0.2500") is data, not a formula: a spreadsheet reads it as
# the number it is, so the sign of a score or an amount is kept as is.
_PLAIN_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def cell(value: Any) -> Any:
    """The value as written to a CSV cell: numbers as they are, text neutralised if it could run."""
    if not isinstance(value, str):
        return value
    if value.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def row(values: Iterable[Any]) -> list[Any]:
    return [cell(v) for v in values]


class _Writable(Protocol):
    def write(self, s: str, /) -> Any: ...


class SafeWriter:
    """A ``csv.writer`` whose every row goes through :func:`row`; ``writerow`` returns what the file's write did."""

    def __init__(self, f: _Writable) -> None:
        self._writer = csv.writer(f)

    def writerow(self, values: Iterable[Any]) -> Any:
        return self._writer.writerow(row(values))
