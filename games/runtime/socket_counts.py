"""How many table sockets each user and each client address holds open in this process.

Why: every open socket costs the server a kernel send queue, and a client that opens sockets
without reading them makes the kernel hold megabytes for each (mahjong_platform/socket_limits.py
bounds one socket; this bounds how many one client may open).  The table consumer takes a place
before it reads anything and gives it back when the socket ends; past
``CAISHEN_SOCKETS_PER_USER`` for a signed-in user, or ``CAISHEN_SOCKETS_PER_ADDRESS`` for an
address (everyone at it, signed in or not), the socket is refused (close code 4429).

The counts are this process's: the embedded mode is one process, so they are the server's; in
the scaled mode each web process counts its own, so a client spread over P processes may hold up
to P times the limits.  Each place is a ticket, and the counts are the sets of open tickets, so a
count can never go below zero, a release is harmless when repeated, and a refused socket holds
nothing to release.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class Ticket:
    """One open socket's place: what it counts against, to give back when it ends."""

    number: int
    user: str | None
    address: str


@dataclass(frozen=True)
class Refusal:
    """Why a socket is refused: which limit (``user`` or ``address``) and its value."""

    per: str
    limit: int


def per_user_limit() -> int:
    return int(settings.CAISHEN_SOCKETS_PER_USER)


def per_address_limit() -> int:
    return int(settings.CAISHEN_SOCKETS_PER_ADDRESS)


class SocketCounts:
    """The open table sockets of this process, by user and by client address."""

    def __init__(self) -> None:
        self._numbers = itertools.count(1)
        self._by_user: dict[str, set[int]] = {}
        self._by_address: dict[str, set[int]] = {}

    def open_for_user(self, user: str) -> int:
        return len(self._by_user.get(user, ()))

    def open_for_address(self, address: str) -> int:
        return len(self._by_address.get(address, ()))

    def take(self, user: str | None, address: str) -> Ticket | Refusal:
        """A place for a new socket of ``user`` (None: signed out) at ``address``, or why not.
        A limit of 0 is no limit."""
        user_limit, address_limit = per_user_limit(), per_address_limit()
        if user is not None and 0 < user_limit <= self.open_for_user(user):
            return Refusal("user", user_limit)
        if 0 < address_limit <= self.open_for_address(address):
            return Refusal("address", address_limit)
        ticket = Ticket(next(self._numbers), user, address)
        if user is not None:
            self._by_user.setdefault(user, set()).add(ticket.number)
        self._by_address.setdefault(address, set()).add(ticket.number)
        return ticket

    def release(self, ticket: Ticket) -> None:
        """Give the place back (again: nothing happens)."""
        if ticket.user is not None:
            _discard(self._by_user, ticket.user, ticket.number)
        _discard(self._by_address, ticket.address, ticket.number)

    def clear(self) -> None:
        """Forget every place (tests, between cases: their sockets are gone)."""
        self._by_user.clear()
        self._by_address.clear()


def _discard(counts: dict[str, set[int]], key: str, number: int) -> None:
    open_ = counts.get(key)
    if open_ is None:
        return
    open_.discard(number)
    if not open_:
        del counts[key]  # an address seen once must not stay in memory for good
