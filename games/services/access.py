"""Who may open, watch and act at a table: the one place the pages, the REST API and the table
socket ask (the socket layer imports this, never the HTML views).

* open (see the table, watch it): :func:`can_open` — a public table is open to all; a private one
  to its owner, its players and the browsers that entered its room code (:func:`remember_room_code`);
* act (read a chair's private view, send commands): :func:`held_position` — only the chair the
  user holds now;
* what a reader is shown: :func:`state_for_reader` — the held chair's own view, else the watchers'
  delayed public one, so no side door shows play undelayed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.sessions.backends.base import SessionBase
from django.db.models import Q

from games import services
from games.models import Table
from games.services.reads import held_position
from games.wire import spectating
from games.wire.frames import Snapshot

ROOM_CODES_SESSION_KEY = "caishen_room_codes"  # room codes this browser has entered


def remember_room_code(session: SessionBase, table: Table) -> None:
    """This browser entered ``table``'s room code: it may open the private table from now on."""
    codes = list(session.get(ROOM_CODES_SESSION_KEY, []))
    if table.room_code not in codes:
        codes.append(table.room_code)
        session[ROOM_CODES_SESSION_KEY] = codes[-50:]


def can_open(user: Any, session: SessionBase | None, table: Table) -> bool:
    """A public table is open to all; a private one to its owner, its players and holders of its code."""
    if not table.is_private:
        return True
    signed_in = user is not None and user.is_authenticated
    if signed_in and (table.owner_id == user.pk or table.seats.filter(user=user).exists()):
        return True
    return session is not None and table.room_code in session.get(ROOM_CODES_SESSION_KEY, [])


def openable_tables(user: Any, session: SessionBase | None, table_ids: Iterable[int]) -> set[int]:
    """The tables among ``table_ids`` that :func:`can_open` lets this reader open, in two queries
    whatever their number (a player's statistics list hands from many tables)."""
    wanted = set(table_ids)
    if not wanted:
        return set()
    public = set(Table.objects.filter(pk__in=wanted, is_private=False).values_list("pk", flat=True))
    private = wanted - public
    allowed = Q(pk__in=[])  # nothing, unless one of the rule's grounds below holds
    codes = list(session.get(ROOM_CODES_SESSION_KEY, [])) if session is not None else []
    if codes:
        allowed |= Q(room_code__in=codes)
    if user is not None and user.is_authenticated:
        allowed |= Q(owner_id=user.pk) | Q(seats__user_id=user.pk)
    if not private:
        return public
    opened = Table.objects.filter(Q(pk__in=private, is_private=True) & allowed).values_list("pk", flat=True)
    return public | set(opened)


def state_for_reader(table: Table, user: Any) -> Snapshot:
    """The snapshot for a page or API reader: a seated player's own view, else the watcher's
    (delayed, public) — so no side door (the table page, the REST API) shows play undelayed."""
    if held_position(list(table.seats.all()), user) is not None:
        state = services.state_for(table, user)
        state["table"]["watchers"] = spectating.watcher_count(table.pk)
        return state
    return spectating.spectator_state(table)


__all__ = [
    "ROOM_CODES_SESSION_KEY",
    "can_open",
    "held_position",
    "openable_tables",
    "remember_room_code",
    "state_for_reader",
]
