"""Finished matches for the ratings tests, played through the real services: rigged one-hand
matches of four people whose outcome is known (plain functions; callers own the db marker).

- ``golden_match``: the GOLDEN deal (tests/platform/live_helpers.py): East discards 6s and South
  wins on it: South wins, East deals in.
- ``heaven_match``: East is dealt a complete hand and wins at once: 天和, self-drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth import get_user_model

from games import services
from games.engine.tiles import parse_tiles
from games.engine.variants import get_variant
from games.models import Hand, Table
from tests.platform.live_helpers import GOLDEN

HEAVEN = {
    "E": "123m 456m 789m 234s 11p",
    "S": GOLDEN["S"],
    "W": GOLDEN["W"],
    "N": GOLDEN["N"],
}


def users(prefix: str, n: int = 4) -> list[Any]:
    User = get_user_model()
    return [User.objects.create_user(f"{prefix}{i}", password="pw-123456") for i in range(n)]


def deal(hands: dict[str, str]) -> Any:
    return get_variant("zhejiang_caishen").rigged_hand(
        [parse_tiles(hands[s]) for s in "ESWN"], parse_tiles("3m")[0], [], []
    )


def seated(chairs: Sequence[Any | None], bots: bool = False, stake: int = 1) -> Table:
    """A one-hand zhejiang_caishen table with ``chairs`` (a user, or None for a bot), all ready."""
    owner = next(u for u in chairs if u is not None)
    table = services.create_table(owner, "zhejiang_caishen", {}, stake=stake, hands_total=1)
    for chair, user in enumerate(chairs):
        if user is not None:
            services.sit(table.pk, user, chair)
    table.seats.filter(user__isnull=True).update(is_bot=True)
    table.seats.update(ready=True)
    table.refresh_from_db()
    return table


def start(table: Table, hands: dict[str, str]) -> Hand:
    services.start_match(table, first_hand=deal(hands))
    return Hand.objects.get(table=table)


def act(row: Hand, user: Any, command: dict[str, Any]) -> None:
    row.refresh_from_db()
    services.submit(row.pk, user, command, row.seq)


def finish_golden(row: Hand, chairs: Sequence[Any | None]) -> Hand:
    """East (chair 0) discards 6s, South (chair 1) wins on it; people left in the window pass."""
    act(row, chairs[0], {"do": "discard", "tile": "6s"})
    act(row, chairs[1], {"do": "win"})
    for user in chairs[2:]:
        row.refresh_from_db()
        if row.status == Hand.FINISHED or user is None:
            continue
        act(row, user, {"do": "pass"})
    row.refresh_from_db()
    assert row.status == Hand.FINISHED, row.snapshot.get("phase")
    return row


def golden_match(chairs: Sequence[Any | None], stake: int = 1) -> Hand:
    return finish_golden(start(seated(chairs, stake=stake), GOLDEN), chairs)


def heaven_match(chairs: Sequence[Any | None], stake: int = 1) -> Hand:
    row = start(seated(chairs, stake=stake), HEAVEN)
    act(row, chairs[0], {"do": "win"})
    row.refresh_from_db()
    assert row.status == Hand.FINISHED
    return row
