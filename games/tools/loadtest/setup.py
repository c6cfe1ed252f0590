"""Seat the load test's clients: four fresh accounts per table, signed in, ready; and clean up."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.test import Client

from games import services
from games.models import Hand, Table


@dataclass(frozen=True)
class Seat:
    table: int
    position: int
    cookie: str


def prepare(tables: int, variant: str = "zhejiang_caishen") -> tuple[str, list[Seat]]:
    """Create the tables and accounts (seated, not ready yet).  Returns the run's tag and seats."""
    User = get_user_model()
    tag = uuid.uuid4().hex[:8]
    seats: list[Seat] = []
    for t in range(tables):
        users = []
        for p in range(4):
            user = User(username=f"lt{tag}_{t}_{p}")
            user.set_unusable_password()
            user.save()  # the account's wallet and grant arrive with it (accounts.signals)
            users.append(user)
        table = services.create_table(
            users[0], variant, {}, stake=1, hands_total=64, turn_seconds=120, claim_seconds=60
        )
        for p, user in enumerate(users):
            services.sit(table.pk, user, p)
            client = Client()
            client.force_login(user)
            seats.append(Seat(table.pk, p, client.cookies["sessionid"].value))
    return tag, seats


def other_user(tag: str) -> str:
    """A signed-in account of the run that sits nowhere (the flood's other user,
    games.tools.loadtest.flood): its session cookie.  Its tables are the run's (``stop``)."""
    user = get_user_model()(username=f"lt{tag}_other")
    user.set_unusable_password()
    user.save()
    client = Client()
    client.force_login(user)
    return str(client.cookies["sessionid"].value)


def start(tag: str) -> None:
    """Everyone readies up: each table's match starts (its first hand is dealt)."""
    for table in Table.objects.filter(owner__username__startswith=f"lt{tag}_").order_by("pk"):
        for seat in table.seats.select_related("user"):
            assert seat.user is not None
            services.set_ready(table.pk, seat.user)


def ready_first(tag: str, count: int) -> None:
    """Ready the first ``count`` seats of each table (chairs 0..count-1), starting no match:
    the others ready up through the server (games.tools.loadtest.ramp)."""
    for table in Table.objects.filter(owner__username__startswith=f"lt{tag}_").order_by("pk"):
        for seat in table.seats.select_related("user").filter(position__lt=count):
            assert seat.user is not None
            services.set_ready(table.pk, seat.user)


def hand_seqs(tag: str) -> dict[int, int]:
    """Each of the run's hands' ``seq`` now.  Every applied step (a player's action, a timer's,
    the deal) saves its hand with ``seq + 1`` exactly once (games/services/play.py), so the
    advance of these between two reads counts the steps applied in between; a hand dealt in
    between started at 0."""
    hands = Hand.objects.filter(table__owner__username__startswith=f"lt{tag}_")
    return dict(hands.values_list("pk", "seq"))


def steps_between(before: dict[int, int], after: dict[int, int]) -> int:
    return sum(seq - before.get(pk, 0) for pk, seq in after.items())


def stop(tag: str) -> int:
    """End the run's matches: no deadline is left for timers to fire once the clients are gone."""
    tables = Table.objects.filter(owner__username__startswith=f"lt{tag}_")
    Hand.objects.filter(table__in=tables).update(deadline_at=None)
    for pk in tables.exclude(status=Table.ABORTED).values_list("pk", flat=True):
        services.holds.release(pk)  # an aborted match ends too: its stakes are free again
    return tables.update(status=Table.ABORTED, ready_deadline=None)
