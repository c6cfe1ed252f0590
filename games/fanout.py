"""Sending rendered frames to the right sockets, after commit only.

Groups: ``table.<id>.seat.<chair>`` for the seated player's sockets and
``table.<id>.public`` for everyone else (spectators, the lobby's table page).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games.engine.hand import Hand as EngineHand
from games.models import Hand, Seat, Table
from games.protocol import render_state, seat_list, table_info
from games.spectating import watcher_count

log = logging.getLogger("caishen.fanout")


def seat_group(table_id: int, position: int) -> str:
    return f"table.{table_id}.seat.{position}"


def public_group(table_id: int) -> str:
    return f"table.{table_id}.public"


def hand_frames(row: Hand, engine: EngineHand, seats: list[Seat], events: list[Any]) -> dict[str, str]:
    """One frame per reader, rendered inside the transaction from the state just saved, and
    serialised once here: every socket of a group gets the same text (no JSON per socket)."""
    table: Table = row.table
    people = seat_list(seats)  # the step's locked seats, loaded with their people
    frames: dict[str, str] = {}
    watchers = watcher_count(table.pk)
    about = table_info(table)  # the same for every reader: built once, not five times
    for position in [None, 0, 1, 2, 3]:
        reader = row.engine_seat(position) if position is not None else None
        frame = render_state(table, people, row, engine, position, about=dict(about))
        frame["type"] = "update"
        frame["seq"] = row.seq
        frame["events"] = [e.for_seat(reader) for e in events]
        frame["table"]["watchers"] = watchers  # spectating: shown to the players
        group = public_group(table.pk) if position is None else seat_group(table.pk, position)
        frames[group] = json.dumps(frame, separators=(",", ":"))
    return frames


class Outbox:
    """Hands group messages to the channel layer without making the writer wait.

    A step is applied on the process's one database thread (Channels' thread-sensitive
    executor); waiting there for the event loop to deliver its frames (``async_to_sync``) made
    every other table's step queue behind the sockets' I/O.  Once bound to the server's loop,
    the writer only enqueues; one task on the loop sends, in order, so a table's frames keep
    their ``seq`` order even on a layer whose sends yield (Redis).  Unbound (Celery workers,
    management commands, tests without a server) it sends synchronously as before.
    """

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[list[tuple[str, dict[str, Any]]]] | None = None
        self._task: asyncio.Task[None] | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.loop is loop and not loop.is_closed():
            return
        self.loop = loop
        self._queue = asyncio.Queue()
        self._task = loop.create_task(self._drain(self._queue))

    def put(self, messages: list[tuple[str, dict[str, Any]]]) -> None:
        loop, queue = self.loop, self._queue
        if loop is None or queue is None or loop.is_closed() or not loop.is_running():
            async_to_sync(_send)(messages)
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            queue.put_nowait(messages)
        else:
            loop.call_soon_threadsafe(queue.put_nowait, messages)

    async def _drain(self, queue: asyncio.Queue[list[tuple[str, dict[str, Any]]]]) -> None:
        while True:
            messages = await queue.get()
            try:
                await _send(messages)
            except Exception:  # never let the one sender die: later steps still need it
                log.exception("fan-out failed")
            finally:
                queue.task_done()

    async def flush(self) -> None:
        """Wait until everything enqueued so far is handed to the layer (tests, shutdown)."""
        if self._queue is not None and self.loop is asyncio.get_running_loop():
            await self._queue.join()


OUTBOX = Outbox()


async def _send(messages: list[tuple[str, dict[str, Any]]]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    for group, message in messages:
        try:
            await layer.group_send(group, message)
        except Exception:  # a broken layer must not undo a committed move; clients resync on the gap
            log.exception("fan-out to %s failed", group)


def _send_all(messages: list[tuple[str, dict[str, Any]]]) -> None:
    OUTBOX.put(messages)


def send_hand_frames(table_id: int, frames: dict[str, str]) -> None:
    """``frames``: group -> the frame already serialised (JSON text), forwarded as is by consumers."""
    _send_all([(group, {"type": "table.frame", "text": text}) for group, text in frames.items()])


def table_changed(table_id: int) -> None:
    """Seats, readiness or the match changed: every socket of the table re-reads its snapshot."""
    groups = [public_group(table_id), *(seat_group(table_id, p) for p in range(4))]
    _send_all([(group, {"type": "table.changed"}) for group in groups])


def bind_on_first_request(app: Any) -> Any:
    """ASGI wrapper: the first request binds the outbox to the server's event loop."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> Any:
        OUTBOX.bind(asyncio.get_running_loop())
        return await app(scope, receive, send)

    return wrapped
