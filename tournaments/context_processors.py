"""The header's tournament badge: the signed-in player's seat at a running tournament table.

Lazy and cached for the request: the one query runs only when a template asks, once."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from games.models import Table
from tournaments.models import Tournament


def seated_table(user: Any) -> dict[str, int] | None:
    """``{"table_id": ...}`` of a tournament table of a running event where the user holds a
    chair and the match is not over; None otherwise (one query)."""
    if not user.is_authenticated:
        return None
    table_id = (
        Table.objects.filter(
            seats__user=user,
            status__in=(Table.WAITING, Table.PLAYING),
            tournament_table__round__tournament__status=Tournament.RUNNING,
        )
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
    )
    return {"table_id": table_id} if table_id is not None else None


def tournament_seat(request: HttpRequest) -> dict[str, Any]:
    return {"tournament_seat": SimpleLazyObject(lambda: seated_table(request.user))}
