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

A 429 alone does not slow a client that asks again as soon as it is answered: one anonymous
client in four threads made a thousand requests a second, each a new connection and an HTTP parse
on the loop that the tables' steps wait behind.  So a request over its bucket is held until a
token would be free (at most ``CAISHEN_HEAVY_READ_HOLD_SECONDS``) before its 429 goes out: a
sleeping coroutine costs the loop nothing, and a client that waits for its answers is paced to
what its bucket allows — a few requests a second however many threads it runs.  At most
``MAX_HELD`` requests are held at once in a process; past that they are answered at once.

A bucket still lets each new address make its burst at once, and Django serves requests on
several threads (mahjong_platform/http_threads.py) that share one interpreter lock with the
database thread: twenty replay checks in four threads took the lock from the tables' steps for
a fifth of a second, enough to queue fifty of them and close the lobby.  So requests without a
session cookie or token are run ``CAISHEN_ANONYMOUS_HEAVY_AT_ONCE`` at a time per process (by
default one), the others waiting their turn on the loop: anonymous work can take at most that
many threads' share of the lock, however many clients send it.  Signed-in players are not queued
behind them.

Each process keeps its own buckets (the scaled mode runs several): a client is bounded per
process, which is what protects each process's tables.
"""

from __future__ import annotations

import asyncio
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
# Requests held before their 429 at once, per process: each is a socket and a sleeping coroutine;
# past this many (clients that do not wait for their answers) a 429 goes out at once.
MAX_HELD = 2_000


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
        self.held = 0  # requests being held before their 429 now

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


class Turns:
    """At most ``size`` requests at once, the rest waiting in arrival order: an asyncio semaphore
    made for the loop that uses it (each test builds its own loop)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._semaphore: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:
            self._semaphore, self._loop = asyncio.Semaphore(self.size), loop
        return self._semaphore

    async def run(self, work: Callable[[], Awaitable[None]]) -> None:
        async with self.semaphore():
            await work()


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


async def hold(buckets: Buckets, seconds: float, sleep: Callable[[float], Awaitable[None]]) -> None:
    """Keep an over-limit request waiting ``seconds`` before its answer, unless ``MAX_HELD`` are
    waiting already."""
    if seconds <= 0 or buckets.held >= MAX_HELD:
        return
    buckets.held += 1
    try:
        await sleep(seconds)
    finally:
        buckets.held -= 1


def limit_heavy_reads(
    app: App,
    buckets: Buckets = BUCKETS,
    rate: float | None = None,
    hold_seconds: float | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    anonymous_at_once: int | None = None,
) -> App:
    """``app`` behind the gate at ``rate`` (default ``CAISHEN_HEAVY_READS_PER_S``; 0: no gate),
    an over-limit request held up to ``hold_seconds`` (default ``CAISHEN_HEAVY_READ_HOLD_SECONDS``)
    before its 429, and at most ``anonymous_at_once`` (default ``CAISHEN_ANONYMOUS_HEAVY_AT_ONCE``;
    0: no limit) requests without a session or token served at once."""
    rate = settings.CAISHEN.heavy_reads_per_s if rate is None else rate
    if rate <= 0:
        return app
    longest_hold = settings.CAISHEN.heavy_read_hold_seconds if hold_seconds is None else hold_seconds
    at_once = settings.CAISHEN.anonymous_heavy_at_once if anonymous_at_once is None else anonymous_at_once
    anonymous, known = allowances(rate)
    turns = Turns(at_once) if at_once > 0 else None

    async def gate(scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or not HEAVY.match(scope.get("path", "")):
            await app(scope, receive, send)
            return
        known_client = signed_in(scope)
        wait = buckets.take(client_of(scope), known if known_client else anonymous)
        if wait <= 0:
            if known_client or turns is None:
                await app(scope, receive, send)
            else:
                await turns.run(lambda: app(scope, receive, send))
            return
        held = min(wait, longest_hold)
        await hold(buckets, held, sleep)
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
                    (b"retry-after", str(max(1, math.ceil(wait - held))).encode()),
                    (b"content-length", str(len(payload)).encode()),
                    (b"vary", b"Accept-Language"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    return gate
