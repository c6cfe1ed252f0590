"""An anonymous flood beside a running evening: can one client close the site to everyone else?

While the load test's tables play, ``FLOOD_THREADS`` threads of one anonymous client (one
address: 127.0.0.1) send the heavy requests that need no account as fast as they are answered,
one phase after the other: the replay check (``POST /api/replays/check/``, a replay replayed
through the engine) and a running table's page (``GET /tables/<id>/``).  Meanwhile another user,
signed in, creates a table every ``VICTIM_EVERY`` seconds through the API, as a person opening a
table would.  The server must answer the flood (a 429 with ``Retry-After`` once the client is
over its limit) without refusing the other user: every 503 they get is a refusal the flood caused
(docs/performance.md, "An anonymous flood").

It talks to 127.0.0.1 only and each phase stops by itself after its seconds.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import secrets
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from games.tools.loadtest.setup import Seat

FLOOD_THREADS = 4
VICTIM_EVERY = 2.0  # seconds between the other user's new tables
# Not a replay: the check reads and refuses it, which is the work an anonymous client can ask
# for without limit of size (the body is bounded by the parsers).
NOT_A_REPLAY = b'{"not": "a replay"}\n'


@dataclass
class PhaseResult:
    """One flood phase: what the flood got back, and what the other user got."""

    name: str
    seconds: float
    answers: Counter[int] = field(default_factory=Counter)  # the flood's status codes
    flood_errors: int = 0  # connections the flood could not make or finish
    victim: Counter[int] = field(default_factory=Counter)  # the other user's status codes
    victim_errors: int = 0
    victim_refusal: str = ""  # the first 503's text, if any

    @property
    def requests(self) -> int:
        return sum(self.answers.values())

    @property
    def refused(self) -> int:
        return self.victim[503]

    def summary(self) -> dict[str, Any]:
        return {
            "phase": self.name,
            "seconds": round(self.seconds, 1),
            "requests": self.requests,
            "per_s": round(self.requests / self.seconds, 1) if self.seconds else None,
            "limited_429": self.answers[429],
            "answers": {str(k): v for k, v in sorted(self.answers.items())},
            "flood_errors": self.flood_errors,
            "victim_created": self.victim[201],
            "victim_refused_503": self.refused,
            "victim_other": sum(v for k, v in self.victim.items() if k not in (201, 503)) + self.victim_errors,
            "victim_refusal": self.victim_refusal,
        }


def _request(base: str, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> tuple[int, bytes]:
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def _hammer(base: str, method: str, path: str, body: bytes | None, stop_at: float, result: PhaseResult) -> None:
    """One flood thread: a fresh connection per request (the cheapest client to write), until
    ``stop_at`` on the monotonic clock."""
    headers = {"Accept-Language": "en"}
    if body is not None:
        headers["Content-Type"] = "application/jsonl"
    local: Counter[int] = Counter()
    errors = 0
    while time.monotonic() < stop_at:
        try:
            status, _ = _request(base, method, path, body, headers)
        except OSError:
            errors += 1
            time.sleep(0.05)
            continue
        local[status] += 1
    with _merge:
        result.answers.update(local)
        result.flood_errors += errors


_merge = threading.Lock()


def _victim(base: str, cookie: str, stop_at: float, result: PhaseResult) -> None:
    """The other user: a new table every ``VICTIM_EVERY`` seconds (CSRF as ramp.ready_post)."""
    csrf = secrets.token_hex(16)
    headers = {
        "Content-Type": "application/json",
        "Accept-Language": "en",
        "Cookie": f"sessionid={cookie}; csrftoken={csrf}",
        "X-CSRFToken": csrf,
    }
    body = json.dumps({"variant": "zhejiang_caishen"}).encode()
    next_at = time.monotonic()
    while next_at < stop_at:
        time.sleep(max(0.0, next_at - time.monotonic()))
        next_at += VICTIM_EVERY
        try:
            status, raw = _request(base, "POST", "/api/tables/", body, headers)
        except OSError:
            result.victim_errors += 1
            continue
        result.victim[status] += 1
        if status == 503 and not result.victim_refusal:
            result.victim_refusal = raw[:300].decode(errors="replace")


async def run(base: str, victim_cookie: str, table: int, seconds: float) -> list[PhaseResult]:
    """The two phases, one after the other, each ``seconds`` long."""
    phases = [
        ("replay check", "POST", "/api/replays/check/", NOT_A_REPLAY),
        ("table page", "GET", f"/tables/{table}/", None),
    ]
    results = []
    for name, method, path, body in phases:
        result = PhaseResult(name, seconds)
        stop_at = time.monotonic() + seconds
        await asyncio.gather(
            asyncio.to_thread(_victim, base, victim_cookie, stop_at, result),
            *(asyncio.to_thread(_hammer, base, method, path, body, stop_at, result) for _ in range(FLOOD_THREADS)),
        )
        results.append(result)
    return results


def watched_table(seats: list[Seat]) -> int:
    """The table whose page the flood fetches: the load test's first."""
    return min(s.table for s in seats)
