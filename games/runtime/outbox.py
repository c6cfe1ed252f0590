"""The fan-out's sender: group messages handed to the channel layer without making the writer wait
(games/runtime/fanout.py builds the frames; this process's one outbox is on its Runtime)."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import threading
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

log = logging.getLogger("caishen.fanout")


class Outbox:
    """Hands group messages to the channel layer without making the writer wait.

    A step is applied on the process's one database thread (Channels' thread-sensitive
    executor); waiting there for the event loop to deliver its frames (``async_to_sync``) made
    every other table's step queue behind the sockets' I/O.  Once bound to the server's loop,
    the writer only enqueues; one task on the loop sends, in order, so a table's frames keep
    their ``seq`` order even on a layer whose sends yield (Redis).

    Outside a server (the Celery worker applying timer steps, management commands) there is no
    loop to bind: with a shared layer (Redis) the outbox runs its own loop on a daemon thread,
    started on first use in each (forked) process and drained at exit — ``async_to_sync`` per
    step spun up a loop and a new Redis connection every time.  With the in-memory layer (tests
    without a server) it sends synchronously: that layer's queues belong to the caller's loop.
    """

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[list[tuple[str, dict[str, Any]]]] | None = None
        self._task: asyncio.Task[None] | None = None
        self._lock = threading.Lock()
        self._own: tuple[int, asyncio.AbstractEventLoop, asyncio.Queue[list[tuple[str, dict[str, Any]]]]] | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.loop is loop and not loop.is_closed():
            return
        self.loop = loop
        self._queue = asyncio.Queue()
        self._task = loop.create_task(self._drain(self._queue))

    def put(self, messages: list[tuple[str, dict[str, Any]]]) -> None:
        loop, queue = self.loop, self._queue
        if loop is None or queue is None or loop.is_closed() or not loop.is_running():
            if isinstance(get_channel_layer(), InMemoryChannelLayer):
                async_to_sync(_send)(messages)
                return
            loop, queue = self._own_loop()
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            queue.put_nowait(messages)
        else:
            loop.call_soon_threadsafe(queue.put_nowait, messages)

    def _own_loop(self) -> tuple[asyncio.AbstractEventLoop, asyncio.Queue[list[tuple[str, dict[str, Any]]]]]:
        """This process's sender thread and its queue (started on first use, again after a fork)."""
        with self._lock:
            if self._own is None or self._own[0] != os.getpid():
                loop = asyncio.new_event_loop()
                ready = threading.Event()
                box: list[asyncio.Queue[list[tuple[str, dict[str, Any]]]]] = []

                def run() -> None:
                    asyncio.set_event_loop(loop)
                    queue: asyncio.Queue[list[tuple[str, dict[str, Any]]]] = asyncio.Queue()
                    box.append(queue)
                    loop.create_task(self._drain(queue))
                    ready.set()
                    loop.run_forever()

                threading.Thread(target=run, name="caishen-fanout", daemon=True).start()
                ready.wait()
                self._own = (os.getpid(), loop, box[0])
                atexit.register(self._drain_at_exit, loop, box[0])
            return self._own[1], self._own[2]

    @staticmethod
    def _drain_at_exit(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[Any]) -> None:
        """A worker or command exiting: hand over what is queued (bounded) before the thread dies."""
        if loop.is_running():
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(queue.join(), loop).result(timeout=5)

    async def _drain(self, queue: asyncio.Queue[list[tuple[str, dict[str, Any]]]]) -> None:
        while True:
            messages = await queue.get()
            try:
                await _send(messages)
            except Exception:  # never let the one sender die: later steps still need it
                log.exception("fan-out failed")
            finally:
                queue.task_done()

    def depth(self) -> int:
        """Message batches enqueued on the server's loop and not yet handed to the layer (the
        saturation monitor's view of the fan-out: games/runtime/saturation.py)."""
        queue = self._queue
        return queue.qsize() if queue is not None else 0

    async def flush(self) -> None:
        """Wait until everything enqueued so far is handed to the layer (tests, shutdown)."""
        if self._queue is not None and self.loop is asyncio.get_running_loop():
            await self._queue.join()


async def _send(messages: list[tuple[str, dict[str, Any]]]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    for group, message in messages:
        try:
            await layer.group_send(group, message)
        except Exception:  # a broken layer must not undo a committed move; clients resync on the gap
            log.exception("fan-out to %s failed", group)
