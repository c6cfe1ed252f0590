"""Bound each client's heavy reads on the event loop, before Django.

Some pages and API calls need no account and cost a table step's worth of work or more: a table's
page, a replay's page, a hand's replay, analysis or deal verification, a player's statistics, the
replay check (a replay replayed through the engine).  Served through Django they run on threads of
the one process that also runs the tables, and past a few dozen a second they slow every table
down — and a process whose tables slow down refuses new ones (games/runtime/saturation.py).  One
client fetching a table page in four threads made the server refuse another user's new tables
(docs/performance.md, "An anonymous flood").

So every client address gets a token bucket for these paths (``CAISHEN_HEAVY_READS_PER_S``), kept
here on the loop: a request over it is answered at once with 429, ``Retry-After`` and a translated
reason, and never reaches Django. A request with a session cookie or an ``Authorization`` header (a
person signed in, or a script with an API token) gets a bucket several times larger, because many
players may share one address (a household, a café behind one NAT); the cookie is not checked here
(that would cost the database), so a client that invents one gets the larger bucket and no more.
DRF's own per-address limit on the replay check (``AnonymousHeavyWork``) still applies behind this
one.

Each process keeps its own buckets (the scaled mode runs several): a client is bounded per
process, which is what protects each process's tables.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from core.client_address import address_from_scope, rate_limit_bucket
from mahjong_platform.overload_gate import language

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[..., Awaitable[None]]

HEAVY = re.compile(
    r"^/(?:"
    r"tables/\d+/"
    r"|hands/\d+/replay/"
    r"|api/tables/\d+/(?:hands/)?"
    r"|api/hands/\d+/(?:replay\.jsonl|analysis/|verify/)?"
    r"|api/replays/check/"
    r"|api/players/[^/]+/stats/"
    r"|ratings/players/[^/]+/"
    r")$"
)
MAX_CLIENTS = 50_000  # buckets kept; the least recently seen address is forgotten first


@dataclass(frozen=True)
class Allowance:
    """A token bucket: ``rate`` requests a second on average, bursts up to ``burst``."""

    rate: float
    burst: float


def allowances(rate: float) -> tuple[Allowance, Allowance]:
    """Without and with a session cookie or token, for ``CAISHEN_HEAVY_READS_PER_S`` = ``rate``:
    a person opens a table or a replay a few times a minute, and the burst covers a page's reloads
    and a replay viewer's API calls; signed in (or claiming to be), four times as much."""
    return Allowance(rate=rate, burst=20 * rate), Allowance(rate=4 * rate, burst=60 * rate)


ANONYMOUS, SIGNED_IN = allowances(1.0)  # the default's


class Buckets:
    """Token buckets by client and allowance, on one thread (the event loop's): no lock."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, size: int = MAX_CLIENTS) -> None:
        self.clock = clock
        self.size = size
        self._buckets: OrderedDict[tuple[str, Allowance], tuple[float, float]] = OrderedDict()
        self.limited = 0  # requests answered with 429 so far (for /healthz)

    def take(self, client: str, allowance: Allowance) -> float:
        """Take a token: 0 when allowed, else the seconds until one is free."""
        now = self.clock()
        key = (client, allowance)
        tokens, last = self._buckets.pop(key, (allowance.burst, now))
        tokens = min(allowance.burst, tokens + (now - last) * allowance.rate)
        wait = 0.0
        if tokens >= 1:
            tokens -= 1
        else:
            wait = (1 - tokens) / allowance.rate
            self.limited += 1
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.size:
            self._buckets.popitem(last=False)
        return wait


BUCKETS = Buckets()


def client_of(scope: Scope) -> str:
    """The client's bucket key, read as Django would read its address (core/client_address.py:
    the peer, or a trusted proxy's header)."""
    return rate_limit_bucket(address_from_scope(scope))


def signed_in(scope: Scope) -> bool:
    """Does the request carry a session cookie or an ``Authorization`` header (unchecked here)?"""
    cookie_name = settings.SESSION_COOKIE_NAME.encode()
    return any(
        name == b"authorization" or (name == b"cookie" and cookie_name + b"=" in value)
        for name, value in scope.get("headers") or []
    )


def reason() -> str:
    return _("Too many requests from your address for pages like this one. Wait a moment and try again.")


def limit_heavy_reads(app: App, buckets: Buckets = BUCKETS, rate: float | None = None) -> App:
    """``app`` behind the gate at ``rate`` (default ``CAISHEN_HEAVY_READS_PER_S``; 0: no gate)."""
    rate = settings.CAISHEN.heavy_reads_per_s if rate is None else rate
    if rate <= 0:
        return app
    anonymous, known = allowances(rate)

    async def gate(scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or not HEAVY.match(scope.get("path", "")):
            await app(scope, receive, send)
            return
        wait = buckets.take(client_of(scope), known if signed_in(scope) else anonymous)
        if wait <= 0:
            await app(scope, receive, send)
            return
        with translation.override(language(scope)):
            text = reason()
        api = scope.get("path", "").startswith("/api/")
        payload = json.dumps({"detail": text}, ensure_ascii=False).encode() if api else text.encode()
        await send(
            {
                "type": "http.response.start",
                "status": 429,
                "headers": [
                    (b"content-type", b"application/json" if api else b"text/plain; charset=utf-8"),
                    (b"retry-after", str(max(1, math.ceil(wait))).encode()),
                    (b"content-length", str(len(payload)).encode()),
                    (b"vary", b"Accept-Language"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    return gate
