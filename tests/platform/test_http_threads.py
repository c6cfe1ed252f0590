"""Django's HTTP views run on a few long-lived threads (mahjong_platform/http_threads.py): a
request's synchronous code stays on one thread, requests reuse the pool's threads (and so their
database connections) instead of a new thread each, and a busy thread is passed over."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.db import connection

from mahjong_platform.http_threads import HttpThreads, on_pooled_threads


class View:
    """What Django's handler does with a request: its own ThreadSensitiveContext, then the view's
    synchronous parts (here: which thread, and which database connection, each ran on)."""

    def __init__(self, hold: float = 0.0) -> None:
        self.hold = hold
        self.seen: list[tuple[int, int, int]] = []  # (first part's thread, second part's thread, connection)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        async with ThreadSensitiveContext():
            first = await sync_to_async(threading.get_ident)()
            second, conn = await sync_to_async(self.part)()
        self.seen.append((first, second, conn))

    def part(self) -> tuple[int, int]:
        time.sleep(self.hold)
        connection.ensure_connection()
        return threading.get_ident(), id(connection.connection)


def serve(app: Any, requests: int) -> None:
    async def all_at_once() -> None:
        scope = {"type": "http", "method": "GET", "path": "/"}
        await asyncio.gather(*(app(scope, None, None) for _ in range(requests)))

    asyncio.run(all_at_once())


def test_requests_reuse_the_pools_threads_and_their_connections(db: Any) -> None:
    view, threads = View(), HttpThreads(2)
    app = on_pooled_threads(view, threads)
    for _ in range(6):
        serve(app, 1)
    assert all(first == second for first, second, _ in view.seen)  # one thread per request
    assert len({first for first, _, _ in view.seen}) == 1  # always the idle pool's first thread
    assert len({conn for _, _, conn in view.seen}) == 1  # and its one persistent connection
    assert threads.in_flight == [0, 0]


def test_concurrent_requests_spread_over_the_pool(db: Any) -> None:
    view, threads = View(hold=0.2), HttpThreads(3)
    serve(on_pooled_threads(view, threads), 3)
    assert len({first for first, _, _ in view.seen}) == 3  # none waited behind another
    assert all(first == second for first, second, _ in view.seen)
    names = {t.name for t in threading.enumerate() if t.name.startswith("caishen-http_")}
    assert len(names) >= 3


def test_sockets_are_not_its_business() -> None:
    seen: list[str] = []

    async def socket_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(threading.current_thread().name)

    threads = HttpThreads(1)

    async def connect() -> None:
        await on_pooled_threads(socket_app, threads)({"type": "websocket"}, None, None)

    asyncio.run(connect())
    assert seen == [threading.main_thread().name] and threads.in_flight == [0]
