"""Django's HTTP views on a few long-lived threads instead of a new thread per request.

Django's ASGI handler runs each request's synchronous code in a ``ThreadSensitiveContext`` of its
own, which asgiref serves with a new one-thread executor: a new thread per request, and so a new
database connection per request (Django's connections are per thread) — with PostgreSQL a new
server backend each time.  ``DJANGO_CONN_MAX_AGE`` keeps it open, so it is not closed when the
request ends: when its thread ends it becomes cyclic garbage with its wrapper, and the garbage
collector closes it later (a busy evening's daphne freed several SQLite connections in each young
collection: docs/performance.md, "A busy evening").

So each request enters a ``ThreadSensitiveContext`` with an executor of a small pool
(``CAISHEN_HTTP_THREADS`` long-lived threads, each keeping its own persistent connection), the
one with the fewest requests in flight; Django's own context inside it then changes nothing
(asgiref lets the outermost context with an executor decide).  All of a request's synchronous
code still runs on one thread, as Django requires; requests on the same thread take turns.

The sockets' database work is not here: it has the process's database thread (games/runtime/dbqueue.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext

App = Callable[..., Awaitable[None]]


class HttpThreads:
    """``size`` one-thread executors and the requests in flight on each (counted on the loop)."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("at least one HTTP thread")
        self.executors = [
            ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"caishen-http_{i}") for i in range(size)
        ]
        self.in_flight = [0] * size

    def least_busy(self) -> int:
        return min(range(len(self.executors)), key=self.in_flight.__getitem__)


def on_pooled_threads(app: App, threads: HttpThreads) -> App:
    async def pooled(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await app(scope, receive, send)
            return
        index = threads.least_busy()
        threads.in_flight[index] += 1
        try:
            async with ThreadSensitiveContext(executor=threads.executors[index]):
                await app(scope, receive, send)
        finally:
            threads.in_flight[index] -= 1

    return pooled
