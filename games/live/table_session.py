"""Who reads a table socket, and what they may read (docs/protocol.md, "Who you are").

A :class:`TableSession` is the reader behind one socket: its user, the chair that user holds
now (or watching), the reader group it follows and whether it is counted at the table.  The
rights are asked of ``games.services.access`` (the one place the pages, the API and the socket ask); the
socket (``games.live.consumers``) only moves between channel-layer groups as the session says.

The methods without ``async`` touch the database: the socket calls them through
``database_sync_to_async``.
"""

from __future__ import annotations

from typing import Any, Literal

from django.contrib.sessions.backends.base import SessionBase

from games import services
from games.models import Seat, Table
from games.runtime.fanout import public_group, seat_group, seat_holder, table_changed
from games.services import access
from games.wire import spectating
from games.wire.frames import Snapshot, TableFrame

Where = int | None | Literal["gone"]  # the chair held, None: watching, "gone": no such table


class TableSession:
    """The reader of one socket at one table (a seat's player, or a watcher)."""

    def __init__(self, table_id: int, user: Any, session: SessionBase | None) -> None:
        self.table_id = table_id
        self.user = user
        self.session = session
        self.user_id: int | None = user.pk if user is not None and user.is_authenticated else None
        self.position: int | None = None  # the chair this socket reads, None: watching
        self.group = ""  # the reader group followed (games.runtime.fanout)
        self.delay = 0.0  # watchers only: CAISHEN_SPECTATOR_DELAY when they began watching
        self.in_group = False  # joined self.group
        self.present = False  # counted at the table (a seat's connection, or a watcher)

    @property
    def watching(self) -> bool:
        return self.position is None

    def move_to(self, position: int | None) -> None:
        """Read ``position`` from now on (the chair the user holds; None: watch)."""
        self.position = position
        self.group = seat_group(self.table_id, position) if position is not None else public_group(self.table_id)
        self.delay = 0.0 if position is not None else spectating.delay_seconds()

    # -- reads (database thread) -----------------------------------------------------------
    def read(self) -> tuple[Where, Snapshot | None]:
        """Where this reader's user stands now and the snapshot for that: (the chair the user
        holds, or None to watch; the state, or None if the user may not open the table).  The
        first item is "gone" when the table does not exist."""
        table = services.reads.table_row(self.table_id)
        if table is None:
            return "gone", None
        seats = services.reads.table_seats(table)
        position = access.held_position(seats, self.user)
        if position is not None:
            state = services.reads.render_for(table, seats, position)
            state["table"]["watchers"] = spectating.watcher_count(self.table_id)
            return position, state
        # Watching: public tables, and private ones by invitation (the owner, or a signed-in browser
        # holding the room code: games.services.access.can_open).
        if not access.can_open(self.user, self.session, table):
            return None, None
        delay = self.delay if (self.in_group and self.watching) else spectating.delay_seconds()
        return None, spectating.spectator_state(table, delay=delay)

    def state(self) -> Snapshot:
        """The snapshot for where this reader stands now (see :meth:`read`)."""
        where, state = self.read()
        if where == "gone" or state is None:
            raise Table.DoesNotExist(f"table {self.table_id} is gone or closed to this reader")
        return state

    def public_state(self) -> Snapshot:
        """The delayed public snapshot (a watcher's), the same for every watcher of the table."""
        table = services.reads.table_row(self.table_id)
        if table is None:
            raise Table.DoesNotExist(f"table {self.table_id} is gone")
        return spectating.spectator_state(table, delay=self.delay)

    def table_message(self, hand_id: int) -> TableFrame | None:
        """The ``table`` message for a seated reader still holding its chair whose hand
        ``hand_id`` is still the table's (0: no hand yet, at a table that has none — a table
        filling up, whose every ready-up and countdown is a change); None: the caller sends a
        snapshot instead."""
        table = services.reads.table_row(self.table_id)
        if table is None:
            return None
        seats = services.reads.table_seats(table)
        if self.position is None or access.held_position(seats, self.user) != self.position:
            return None
        current = services.current_seq(self.table_id)
        if (current[0] if current is not None else 0) != hand_id:
            return None
        return services.reads.table_message(table, seats, self.position)

    def holds_a_chair(self) -> bool:
        if self.user_id is None:
            return False
        mine = Seat.objects.filter(table_id=self.table_id, user_id=self.user_id)
        return any(seat_holder(s) == self.user_id for s in mine)  # the one rule: fanout.seat_holder

    def may_read(self, event: dict[str, Any]) -> bool:
        """The send-time check: a seat's frame goes only to a socket reading that chair whose
        user is the frame's named reader (its holder when the step was applied); a public frame
        only to a watching socket."""
        seat = event.get("seat")
        if seat is None:
            return self.watching
        return self.position == seat and self.user_id is not None and event.get("reader") == self.user_id

    # -- counted at the table (database thread) --------------------------------------------
    def arrive(self) -> None:
        """Count this reader at the table: its seat connected, or one more watcher (the socket
        keeps ``present``, on its event loop, so that two departures cannot both count)."""
        if self.position is not None:
            services.set_connected(self.table_id, self.user, True, position=self.position)
        else:
            spectating.watcher_joined(self.table_id)
            table_changed(self.table_id)  # the players see the count

    def depart(self) -> None:
        """Stop counting this reader at the table (the socket calls it once: ``present``)."""
        if self.position is not None:
            services.set_connected(self.table_id, self.user, False, position=self.position)
        else:
            spectating.watcher_left(self.table_id)
            table_changed(self.table_id)
