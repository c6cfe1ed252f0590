"""Each client's heavy reads are bounded on the loop, before Django (mahjong_platform/heavy_read_gate.py):
a client over its bucket gets 429 with Retry-After and a translated reason, another client and
the paths that are not heavy are untouched."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import pytest

from mahjong_platform import heavy_read_gate
from mahjong_platform.heavy_read_gate import ANONYMOUS, SIGNED_IN, Allowance, Buckets, limit_heavy_reads


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Inner:
    """The application behind the gate: counts what reached it."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.paths.append(scope["path"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def get(
    app: Any,
    path: str,
    client: str = "203.0.113.7",
    language: str = "en",
    cookie: str | None = None,
    forwarded_for: str | None = None,
) -> tuple[int, dict[bytes, bytes], bytes]:
    headers = [(b"accept-language", language.encode())]
    if forwarded_for is not None:
        headers.append((b"x-forwarded-for", forwarded_for.encode()))
    if cookie is not None:
        headers.append((b"cookie", cookie.encode()))
    scope = {"type": "http", "method": "GET", "path": path, "headers": headers, "client": (client, 5555)}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    return sent[0]["status"], dict(sent[0].get("headers", [])), sent[1]["body"]


@pytest.fixture
def clock() -> Clock:
    return Clock()


class Sleeps:
    """The gate's sleep on the test clock: each hold moves the clock on by what it waited."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.clock.now += seconds


@pytest.fixture
def sleeps(clock: Clock) -> Sleeps:
    return Sleeps(clock)


@pytest.fixture
def gated(clock: Clock, sleeps: Sleeps) -> tuple[Inner, Any]:
    inner = Inner()
    return inner, limit_heavy_reads(inner, Buckets(clock), sleep=sleeps)


def test_a_bucket_allows_its_burst_then_asks_to_wait_and_refills(clock: Clock) -> None:
    buckets = Buckets(clock)
    allowance = Allowance(rate=2.0, burst=3.0)
    assert [buckets.take("a", allowance) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert buckets.take("a", allowance) == pytest.approx(0.5)  # one token at 2 a second
    assert buckets.take("b", allowance) == 0.0  # another client has its own bucket
    clock.now += 0.5
    assert buckets.take("a", allowance) == 0.0
    assert buckets.take("a", allowance) > 0
    assert buckets.limited == 2


def test_an_anonymous_flood_of_table_pages_is_answered_429_on_the_loop(clock: Clock) -> None:
    inner = Inner()
    app = limit_heavy_reads(inner, Buckets(clock), hold_seconds=0)  # answered at once
    burst = int(ANONYMOUS.burst)
    answers = [get(app, "/tables/5/")[0] for _ in range(burst + 10)]
    assert answers == [200] * burst + [429] * 10
    assert len(inner.paths) == burst  # the refused ones never reached Django
    status, headers, body = get(app, "/tables/5/")
    assert status == 429 and int(headers[b"retry-after"]) >= 1
    assert headers[b"content-type"].startswith(b"text/plain") and b"Too many requests" in body
    # Another address, and the pages that are not heavy, are not limited.
    assert get(app, "/tables/5/", client="198.51.100.9")[0] == 200
    assert get(app, "/tables/")[0] == 200 and get(app, "/")[0] == 200


def test_api_refusals_are_json_in_the_clients_language(gated: tuple[Inner, Any]) -> None:
    _, app = gated
    for _ in range(int(ANONYMOUS.burst)):
        get(app, "/api/hands/3/analysis/")
    status, headers, body = get(app, "/api/replays/check/", language="zh-hans")
    assert status == 429 and headers[b"content-type"] == b"application/json"
    detail = json.loads(body)["detail"]
    assert "请求" in detail and "Too many" not in detail


def test_a_session_cookie_gets_the_larger_bucket(gated: tuple[Inner, Any]) -> None:
    _, app = gated
    cookie = "sessionid=abc; csrftoken=x"
    answers = [get(app, "/tables/5/", cookie=cookie)[0] for _ in range(int(SIGNED_IN.burst))]
    assert set(answers) == {200}
    assert get(app, "/tables/5/", cookie=cookie)[0] == 429
    # Its bucket is its own: the same address without a cookie still has the anonymous one.
    assert get(app, "/tables/5/")[0] == 200


def test_behind_a_trusted_proxy_the_forwarded_address_is_the_client(gated: tuple[Inner, Any], settings: Any) -> None:
    settings.CAISHEN_CLIENT_IP_HEADER = "X-Forwarded-For"
    settings.CAISHEN_TRUSTED_PROXIES = "127.0.0.1/32"
    _, app = gated

    def via_proxy(client: str) -> int:
        return get(app, "/tables/5/", client="127.0.0.1", forwarded_for=client)[0]

    assert [via_proxy("203.0.113.7") for _ in range(int(ANONYMOUS.burst))] == [200] * int(ANONYMOUS.burst)
    assert via_proxy("203.0.113.7") == 429
    assert via_proxy("203.0.113.8") == 200  # the proxy's own address is not the bucket


def test_the_served_application_has_the_gate() -> None:
    from mahjong_platform import asgi

    http = asgi.application  # bound_to_server_loop(ProtocolTypeRouter(...))
    router = http.__closure__[0].cell_contents
    assert router.application_mapping["http"].__qualname__.startswith("limit_heavy_reads")


def test_the_rate_comes_from_the_environment_and_zero_switches_the_gate_off(
    clock: Clock, sleeps: Sleeps, settings: Any
) -> None:
    inner = Inner()
    assert limit_heavy_reads(inner, Buckets(clock), rate=0) is inner
    settings.CAISHEN = dataclasses.replace(settings.CAISHEN, heavy_reads_per_s=0.5, heavy_read_hold_seconds=1.5)
    app = limit_heavy_reads(inner, Buckets(clock), sleep=sleeps)  # read when the application is built
    assert [get(app, "/tables/5/")[0] for _ in range(11)] == [200] * 10 + [429]  # bursts of 20 × 0.5
    assert sleeps.waits == [1.5]  # the hold's bound, also read from the settings


def test_a_client_that_waits_for_its_answers_is_paced_to_its_bucket(
    gated: tuple[Inner, Any], clock: Clock, sleeps: Sleeps
) -> None:
    """Over its bucket, a request is held until a token would be free before its 429: a client
    asking again as soon as it is answered gets about one answer per token, not a thousand."""
    inner, app = gated
    burst = int(ANONYMOUS.burst)
    started = clock.now
    answers = [get(app, "/api/replays/check/")[0] for _ in range(burst + 20)]
    assert answers[:burst] == [200] * burst and sleeps.waits[0] == pytest.approx(1 / ANONYMOUS.rate)
    # Each 429 waited for the next token, which the following request then had: served and
    # refused alternate, at the bucket's rate, on the client's own time.
    assert answers[burst:] == [429, 200] * 10
    assert len(inner.paths) == burst + 10
    assert clock.now - started == pytest.approx(10 / ANONYMOUS.rate)


def test_a_held_refusal_asks_for_no_more_than_the_wait_left(clock: Clock, sleeps: Sleeps) -> None:
    inner = Inner()
    app = limit_heavy_reads(inner, Buckets(clock), hold_seconds=0.25, sleep=sleeps)
    for _ in range(int(ANONYMOUS.burst)):
        get(app, "/tables/5/")
    status, headers, _ = get(app, "/tables/5/")
    assert status == 429 and sleeps.waits == [0.25]  # held as long as allowed, not the whole second
    assert headers[b"retry-after"] == b"1"


def test_past_max_held_requests_the_refusal_goes_out_at_once(
    clock: Clock, sleeps: Sleeps, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner = Inner()
    buckets = Buckets(clock)
    app = limit_heavy_reads(inner, buckets, sleep=sleeps)
    for _ in range(int(ANONYMOUS.burst)):
        get(app, "/tables/5/")
    monkeypatch.setattr(heavy_read_gate, "MAX_HELD", 3)
    buckets.held = 3  # three clients waiting already
    assert get(app, "/tables/5/")[0] == 429 and sleeps.waits == []
    buckets.held = 2
    assert get(app, "/tables/5/")[0] == 429 and len(sleeps.waits) == 1
    assert buckets.held == 2  # the hold gave its place back


class Slow:
    """The application behind the gate, each request taking a while: how many ran at once."""

    def __init__(self) -> None:
        self.running = 0
        self.most = 0
        self.served: list[str] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.running += 1
        self.most = max(self.most, self.running)
        await asyncio.sleep(0.01)
        self.running -= 1
        self.served.append(scope["client"][0])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def request(path: str, client: str, cookie: str | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    headers = [(b"cookie", cookie.encode())] if cookie else []
    return {"type": "http", "method": "GET", "path": path, "headers": headers, "client": (client, 5555)}, []


async def send_all(app: Any, requests: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> None:
    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def one(scope: dict[str, Any], sent: list[dict[str, Any]]) -> None:
        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await app(scope, receive, send)

    await asyncio.gather(*(one(scope, sent) for scope, sent in requests))


def test_anonymous_heavy_reads_are_served_one_at_a_time_and_signed_in_ones_beside_them(clock: Clock) -> None:
    """A burst of anonymous replay checks from many addresses (each within its own bucket) reaches
    Django one request at a time, every one answered; signed-in players' reads are not queued
    behind them."""
    anonymous = Slow()
    app = limit_heavy_reads(anonymous, Buckets(clock), anonymous_at_once=1)
    burst = [request("/api/replays/check/", f"198.51.100.{i}") for i in range(12)]
    asyncio.run(send_all(app, burst))
    assert anonymous.most == 1 and len(anonymous.served) == 12
    assert all(sent[0]["status"] == 200 for _, sent in burst)

    mixed = Slow()
    app = limit_heavy_reads(mixed, Buckets(clock), anonymous_at_once=1)
    players = [request("/tables/5/", f"192.0.2.{i}", cookie="sessionid=x") for i in range(4)]
    strangers = [request("/api/replays/check/", f"198.51.100.{i}") for i in range(4)]
    asyncio.run(send_all(app, [*strangers, *players]))
    assert mixed.most == 5  # the four players ran beside the one anonymous request
    assert all(sent[0]["status"] == 200 for _, sent in [*strangers, *players])

    unlimited = Slow()
    again = [request("/api/replays/check/", f"198.51.100.{i}") for i in range(12)]
    asyncio.run(send_all(limit_heavy_reads(unlimited, Buckets(clock), anonymous_at_once=0), again))
    assert unlimited.most == 12
