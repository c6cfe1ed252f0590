"""Ranges of the integer columns, for serializers whose fields end in one.

A value past its column's range is not refused by the database driver with a validation error: it
raises (``OverflowError`` on SQLite, ``NumericValueOutOfRange`` on PostgreSQL) and the request is a
500.  Serializer fields that are saved into these columns carry ``max_value`` from here, so 10**24
is a 400 naming the field — and the OpenAPI schema states the bound.  The ranges are PostgreSQL's
(Django's ``integer_field_ranges``); SQLite stores 64 bits, so they hold on both.
"""

from __future__ import annotations

from typing import Final

POSITIVE_SMALL_MAX: Final = 32_767  # PositiveSmallIntegerField
# Wallet units per point, on tables and events alike (games.web.forms.TableForm has the same cap).
STAKE_MAX: Final = 1_000_000
