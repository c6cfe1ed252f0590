"""A busy evening's arrivals: each table's match is started through the server, one table after
another over a ramp, so the server's own overload monitor decides which start.

Without a ramp the load test readies every seat in its own process (games.tools.loadtest.setup.start):
every match starts at once, whatever the server's state, which measures a server past its
capacity with no way to refuse.  With one, two seats per table are readied here and the last two
ready up through the server's REST API (``POST /api/tables/<id>/ready/``, signed in with the
seat's session, as a player's browser or script would), table after table, spread evenly over
the ramp.  A ``503`` with ``Retry-After`` (games/services/overload.py: the process is saturated) is
counted and the seat asks again after ``min(Retry-After, RETRY_CAP)`` seconds, jittered by
±50 % — players try again, each at their own moment — until the run ends.  (Without the
jitter every refused table would ask again in the same instant every 10 s: a burst of a few
hundred connections that stalls the event loop for half a second, a p95 the server would not see
from people.)
"""

from __future__ import annotations

import asyncio
import http.client
import json
import random
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from games.tools.loadtest.setup import Seat

RETRY_CAP = 10.0  # a refused seat asks again at least this often (the ready countdown is 30 s)
BUSY_WORDS = "busy"  # the English refusal says "The server is busy ..." (games/overload.message)


@dataclass
class Arrivals:
    """What the ramp saw: tables whose match started, refusals, and other failures."""

    tables: int = 0
    started: set[int] = field(default_factory=set)
    refused: int = 0  # 503 answers (the server's overload refusal)
    refused_tables: set[int] = field(default_factory=set)
    failed: int = 0  # any other non-2xx answer or a connection failure
    first_failure: str = ""
    message: str = ""  # the refusal's text, as the server gave it

    def summary(self) -> dict[str, Any]:
        return {
            "tables_offered": self.tables,
            "tables_started": len(self.started),
            "tables_refused_at_least_once": len(self.refused_tables),
            "refusals": self.refused,
            "failures": self.failed,
            "first_failure": self.first_failure,
            "refusal_message": self.message,
        }


def ready_post(base: str, seat: Seat, csrf: str) -> tuple[int, dict[str, Any], str | None]:
    """One ready-up through the API (blocking: run it in a thread).  Returns (status, body,
    Retry-After).  CSRF: Django's double submit — the same random secret as the cookie and the
    header, which is what a browser holding the site's csrftoken cookie sends."""
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=60)
    try:
        conn.request(
            "POST",
            f"/api/tables/{seat.table}/ready/",
            body=json.dumps({"ready": True}),
            headers={
                "Content-Type": "application/json",
                "Accept-Language": "en",
                "Cookie": f"sessionid={seat.cookie}; csrftoken={csrf}",
                "X-CSRFToken": csrf,
            },
        )
        response = conn.getresponse()
        raw = response.read()
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"detail": raw[:200].decode(errors="replace")}
        return response.status, body, response.getheader("Retry-After")
    finally:
        conn.close()


async def arrive(
    base: str, seats: list[Seat], delay: float, until: float, arrivals: Arrivals, rng: random.Random | None = None
) -> None:
    """One table's last two seats ready up at ``delay`` seconds from now, the second asking
    again after each refusal until the loop's time ``until``."""
    rng = rng or random.Random()
    loop = asyncio.get_running_loop()
    await asyncio.sleep(delay)
    csrf = secrets.token_hex(16)  # 32 characters: Django's unmasked secret length
    table = seats[0].table
    for seat in seats:
        while loop.time() < until:
            try:
                status, body, retry_after = await asyncio.to_thread(ready_post, base, seat, csrf)
            except OSError as exc:
                arrivals.failed += 1
                arrivals.first_failure = arrivals.first_failure or f"{type(exc).__name__}: {exc}"
                return
            if status == 503:
                arrivals.refused += 1
                arrivals.refused_tables.add(table)
                arrivals.message = arrivals.message or str(body.get("detail", ""))
                wait = min(float(retry_after or RETRY_CAP), RETRY_CAP)
                await asyncio.sleep(wait * rng.uniform(0.5, 1.5))
                continue
            if status >= 300:
                arrivals.failed += 1
                arrivals.first_failure = arrivals.first_failure or f"table {table}: {status} {body}"
                return
            break
        else:
            return  # the run ended while this seat was still refused
    arrivals.started.add(table)
