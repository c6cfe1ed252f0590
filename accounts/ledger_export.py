"""The ledger as CSV, shared by the account page (/accounts/ledger.csv) and the API."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from django.utils import timezone

from accounts.models import LedgerEntry
from core.spreadsheet_cells import SafeWriter

HEADER = ["id", "time", "amount", "balance_after", "reason", "reference", "note"]


class _Echo:
    """A file-like object whose write returns the line, for streaming through csv.writer."""

    def write(self, value: str) -> str:
        return value


def row(entry: LedgerEntry) -> list[Any]:
    return [
        entry.pk,
        timezone.localtime(entry.created_at).isoformat(timespec="seconds"),
        entry.amount,
        entry.balance_after,
        entry.reason,
        entry.reference,
        entry.note,
    ]


def lines(entries: Iterable[LedgerEntry]) -> Iterator[str]:
    # Staff notes and references are free text: SafeWriter keeps them from running as formulas.
    writer = SafeWriter(_Echo())
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
