"""Shared set-up for live-table tests: seated tables, the rigged golden hand, socket headers.

Plain functions (no fixtures) so any test module can import them; callers own the database
marker (the socket tests need ``django_db(transaction=True)``).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from games import services
from games.engine.tiles import parse_tiles
from games.engine.variants import get_variant
from games.models import Hand, Table
from tests.v2_frames import WholeFrames

__all__ = ["GOLDEN", "ORIGIN", "WholeFrames", "rigged", "started", "started_rigged", "ws_path"]

# A same-origin socket as a browser opens it: a page of http://127.0.0.1 connecting back to its own
# Host (the full ASGI application compares the two: mahjong_platform/origins.py).
ORIGIN = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]


def ws_path(table_id: int) -> str:
    """The table socket's path as the browser opens it: protocol v2 (docs/protocol.md)."""
    return f"/ws/table/{table_id}/?v=2"


# A rigged zhejiang_caishen deal (indicator 3m, wild 3p): East, the dealer, must discard; South
# wins on East's 6s and West may pung it; nobody can win, kong or claim before East discards.
GOLDEN = {
    "E": "6s 1m 1m 4p 5p 7p 8p 1s 2s E S W N C",
    "S": "234m 567m 999p 55s 3p 8s",
    "W": "C 3p 6s S 8p 9s 6p 4m 7s 6s 6m 1s E",
    "N": "2p 5m E 2m 5s 4p 4p 7m 8s 3p 9s 9s 8m",
}


def rigged() -> Any:
    """The GOLDEN deal as an engine hand (pass it to ``services.start_match(first_hand=...)``)."""
    return get_variant("zhejiang_caishen").rigged_hand(
        [parse_tiles(GOLDEN[s]) for s in "ESWN"], parse_tiles("3m")[0], [], []
    )


def started(prefix: str = "s") -> tuple[Table, Hand, list[Any]]:
    """Four people sit at a zhejiang_caishen table and ready up: a seeded hand is running."""
    User = get_user_model()
    users = [User.objects.create_user(f"{prefix}{i}", password="pw-123456") for i in range(4)]
    table = services.create_table(users[0], "zhejiang_caishen", {})
    for u in users:
        services.sit(table.pk, u)
    for u in users:
        services.set_ready(table.pk, u)
    return table, Hand.objects.get(table=table), users


def started_rigged(prefix: str = "r", stake: int = 1) -> tuple[Table, Hand, list[Any]]:
    """Four people at a table whose first hand is the GOLDEN deal (chair 0 is East, to discard)."""
    User = get_user_model()
    users = [User.objects.create_user(f"{prefix}{i}", password="pw-123456") for i in range(4)]
    table = services.create_table(users[0], "zhejiang_caishen", {}, stake=stake, hands_total=1)
    for u in users:
        services.sit(table.pk, u)
    table.seats.update(ready=True)
    table.refresh_from_db()
    services.start_match(table, first_hand=rigged())
    return table, Hand.objects.get(table=table), users
