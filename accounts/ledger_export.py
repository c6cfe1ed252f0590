"""The ledger as CSV, shared by the account page (/accounts/ledger.csv) and the API."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from typing import Any

from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from django.utils import timezone

from accounts.models import LedgerEntry

HEADER = ["id", "time", "amount", "balance_after", "reason", "reference", "note"]


class _Echo:
    """A file-like object whose write returns the line, for streaming through csv.writer."""

    def write(self, value: str) -> str:
        return value


def _text(value: str) -> str:
    # A spreadsheet runs a cell starting with one of these as a formula; staff notes are free text.
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def row(entry: LedgerEntry) -> list[Any]:
    return [
        entry.pk,
        timezone.localtime(entry.created_at).isoformat(timespec="seconds"),
        entry.amount,
        entry.balance_after,
        entry.reason,
        _text(entry.reference),
        _text(entry.note),
    ]


def lines(entries: Iterable[LedgerEntry]) -> Iterator[str]:
    writer = csv.writer(_Echo())
    yield writer.writerow(HEADER)
    for entry in entries:
        yield writer.writerow(row(entry))


def response(entries: QuerySet[LedgerEntry], filename: str) -> StreamingHttpResponse:
    """Every entry, newest first, as a download (UTF-8 with BOM so spreadsheets read Chinese notes)."""

    def content() -> Iterator[str]:
        yield "\ufeff"
        yield from lines(entries.order_by("-id").iterator(chunk_size=500))

    reply = StreamingHttpResponse(content(), content_type="text/csv; charset=utf-8")
    reply["Content-Disposition"] = f'attachment; filename="{filename}"'
    return reply
