"""The table socket: a transport between one client and the table (docs/protocol.md).

Thin on purpose: the reader and its rights are a :class:`TableSession`, missed frames come from
games/live/catch_up.py, every change goes through ``games.services``, frames are the types of
games/wire/frames.py.  This class moves the socket between reader groups and forwards frames.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from core.client_address import address_from_scope, rate_limit_bucket
from games import services
from games.live import catch_up, table_commands
from games.live.table_session import TableSession
from games.runtime.fanout import public_group, seat_group
from games.runtime.positions import kept_in_memory
from games.runtime.process import runtime
from games.runtime.socket_counts import Refusal, Ticket
from games.runtime.timers import backend_name
from games.wire.frames import (
    CLOSE_BAD_VERSION,
    CLOSE_FORBIDDEN,
    CLOSE_NOT_FOUND,
    CLOSE_SILENT,
    CLOSE_TOO_MANY_SOCKETS,
    ServerFrame,
    Snapshot,
    emote_shown,
    error_frame,
    pong,
    quoted,
    read_client_text,
    version_refusal,
)

log = logging.getLogger("caishen.table")


class DirectDispatchConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """A JSON socket whose messages go to their handlers without Channels' database hop.

    Channels runs close_old_connections() before every message: a hop to the process's one
    database thread, queued behind every table's steps, for every frame to every socket.  All
    database work of these sockets goes through database_sync_to_async, which already does that
    around each call, so the hop is skipped (docs/performance.md).  The table socket and the
    load test's reference server share this, so the reference is not charged for a hop the real
    server does not make."""

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message['type']}")
        await handler(message)


class TableConsumer(DirectDispatchConsumer):
    """One socket of one browser tab at one table.

    What a socket reads follows what its user holds *now* (docs/protocol.md, "Who you are"): the
    group of the chair the user sits in, else the public group (or nothing, at a private table
    the user may no longer open).  Every table change makes each socket re-read its snapshot,
    and that read moves the socket to the right group; every seat frame names its rightful
    reader, so a frame that reaches a socket before the move is dropped, never shown.
    """

    table_id: int
    reader: TableSession
    # The newest position (hand id, seq) this socket was sent, by a frame or a snapshot.
    delivered: catch_up.Position = (0, 0)
    ping_check: asyncio.Task[None] | None = None  # a ping's deferred check (catch_up.PING_GRACE_SECONDS)
    recheck: asyncio.Task[None] | None = None  # a snapshot after a frame for another reader
    last_heard: float = 0.0  # time.monotonic() of the client's last message (or the connect)
    idle_check: asyncio.TimerHandle | None = None
    place: Ticket | None = None  # this socket's place in the per-user and per-address counts

    async def connect(self) -> None:
        if backend_name() == "inprocess":  # with Celery timers no daphne process runs a sweeper
            runtime().timers.bind(asyncio.get_running_loop())
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.reader = TableSession(self.table_id, self.scope.get("user"), self.scope.get("session"))
        self.held: set[asyncio.TimerHandle] = set()  # a watcher's frames held for the delay
        self.watcher = catch_up.WatcherSync(self._watcher_answer, lambda: self.reader.present)
        query = parse_qs((self.scope.get("query_string") or b"").decode("latin-1"))
        if not await self._take_place():
            return
        refusal = version_refusal(query)  # v1 (or no v), retired, included
        if refusal is not None:
            await self.accept()
            await self.send_frame(refusal)
            await self.close(code=CLOSE_BAD_VERSION)
            return
        since = catch_up.since_in_query(query)
        if since is not None:
            caught = await database_sync_to_async(catch_up.on_reconnect)(self.reader, since)
            if caught is not None:
                where, frames, current = caught
                await self.accept()
                await self._follow(where)
                for text in frames:
                    await self.send(text_data=text)
                self.delivered = max(self.delivered, current)
                self._heard_from()
                return
        runtime().snapshots["connect"] += 1
        where, state = await database_sync_to_async(self.reader.read)()
        # Accept first, then refuse with a close code: a socket closed during the handshake gets
        # a bare HTTP 403, and the client could not tell "no such table" (4404) from "private"
        # (4403).  Nothing is sent before the close.
        await self.accept()
        if where == "gone":
            await self.close(code=CLOSE_NOT_FOUND)
            return
        if state is None:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        await self._follow(where)
        await self._send_state(state)
        self._heard_from()

    async def _take_place(self) -> bool:
        """Count this socket against its user and address (games/runtime/socket_counts.py); past
        either cap, refuse it with 4429 and an error frame that says which (after the handshake,
        as every refusal: a browser cannot read one inside it).  A refused socket holds no place."""
        user = None if self.reader.user_id is None else str(self.reader.user_id)
        taken = runtime().sockets.take(user, rate_limit_bucket(address_from_scope(self.scope)))
        if isinstance(taken, Refusal):
            log.info("socket refused: too many open", extra={"table": self.table_id, "per": taken.per})
            await self.accept()
            await self.send_frame(too_many_sockets(taken))
            await self.close(code=CLOSE_TOO_MANY_SOCKETS)
            return False
        self.place = taken
        return True

    def _give_back_place(self) -> None:
        if self.place is not None:
            runtime().sockets.release(self.place)
            self.place = None

    def _heard_from(self) -> None:
        self.last_heard = time.monotonic()
        self._arm_idle_check(idle_seconds())

    def _arm_idle_check(self, delay: float) -> None:
        """A client that says nothing past the heartbeat limit is gone (or stuck): close it, so
        its seat shows disconnected and its buffers go.  The browser pings every ~10 s and a
        closed client reconnects and resyncs.  One timer per socket, re-armed, never a loop."""
        if delay <= 0:
            return
        self.idle_check = asyncio.get_running_loop().call_later(delay, self._check_idle)

    def _check_idle(self) -> None:
        limit = idle_seconds()
        silent = time.monotonic() - self.last_heard
        if silent < limit:
            self._arm_idle_check(limit - silent)
            return
        log.info("socket closed: silent past the heartbeat limit", extra={"table": self.table_id})
        asyncio.ensure_future(self.close(code=CLOSE_SILENT))

    async def _follow(self, position: int | None) -> None:
        """Make this socket a reader of ``position`` (the chair its user holds now; None: a
        watcher), leaving whatever it read before: the group, and its count at the table."""
        reader = self.reader
        if reader.in_group and position == reader.position:
            return
        await self._leave()
        reader.move_to(position)
        await self.channel_layer.group_add(reader.group, self.channel_name)
        reader.in_group = reader.present = True
        await database_sync_to_async(reader.arrive)()
        # Spectating: frames are held back for the delay; the gap between the delayed snapshot
        # and the first held frame is covered by a second snapshot then.
        if reader.watching and reader.delay > 0:
            self._later(self.send_snapshot)

    def _later(self, send: Callable[..., Awaitable[None]], *args: Any) -> None:
        """Run ``send(*args)`` after the spectator delay (frames keep their order: one delay)."""

        def fire() -> None:
            self.held.discard(handle)
            asyncio.ensure_future(send(*args))

        handle = asyncio.get_running_loop().call_later(self.reader.delay, fire)
        self.held.add(handle)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        except Exception:
            # The socket dies with an error (the channel layer failed under it: Redis restarting).
            # No websocket.disconnect reaches us then, so leave the table here: else the seat
            # counts this socket as connected for good.
            if hasattr(self, "reader"):
                await self._leave()
            raise
        finally:
            # However the socket ended (a disconnect, an error, a cancelled task), its place in
            # the counts is given back: a lost release would shut its user out for good.
            self._give_back_place()

    async def disconnect(self, code: int) -> None:
        self._give_back_place()
        if self.idle_check is not None:
            self.idle_check.cancel()
        for task in (self.ping_check, self.recheck):
            if task is not None:
                task.cancel()
        self.watcher.cancel()
        await self._leave()

    async def _leave(self) -> None:
        """Leave the group and the table, once; a broken layer or cache does not stop the rest."""
        reader = self.reader
        if reader.in_group:
            reader.in_group = False
            try:
                await self.channel_layer.group_discard(reader.group, self.channel_name)
            except Exception:  # the layer is down: its groups expire, or it restarted without them
                log.warning("leaving the group failed", exc_info=True, extra={"table": self.table_id})
        if not reader.present:
            return
        reader.present = False
        if reader.watching:
            for handle in self.held:
                handle.cancel()
            self.held.clear()
        try:
            await database_sync_to_async(reader.depart)()
        except Exception:
            log.exception("leaving the table failed", extra={"table": self.table_id, "seat": reader.position})

    async def send_snapshot(self, cause: str = "other") -> None:
        runtime().snapshots[cause] += 1
        where, state = await database_sync_to_async(self.reader.read)()
        if where == "gone":
            await self.close(code=CLOSE_NOT_FOUND)
            return
        if state is None:  # a private table this user may no longer open (stood up, unseated)
            await self._leave()
            await self.close(code=CLOSE_FORBIDDEN)
            return
        await self._follow(where)
        await self._send_state(state)

    async def _send_state(self, state: Snapshot) -> None:
        await self.send_frame(state)
        hand = state.get("hand") or {}
        if isinstance(hand.get("id"), int) and isinstance(hand.get("seq"), int):
            self.delivered = max(self.delivered, (hand["id"], hand["seq"]))

    async def send_frame(self, frame: ServerFrame) -> None:
        await self.send_json(frame)

    # -- from the client ----------------------------------------------------------------------
    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        self.last_heard = time.monotonic()
        # A flood is answered with an error and dropped (a token bucket per socket), and an
        # oversized or malformed frame gets an error reply; none may close or crash the table.
        if not self._allow():
            await self.send_frame(error_frame("too many messages: slow down", "too_many_messages"))
            return
        content, error = read_client_text(text_data)
        if error is not None:
            await self.send_frame(error)
            return
        assert content is not None
        kind = content.get("type")
        if kind == "ping":
            await self.ping(content)
        elif kind == "resync":
            await self.resync(content)
        elif kind in table_commands.COMMANDS:
            reply = await table_commands.answer(self.reader, kind, content)
            if reply is not None:
                await self.send_frame(reply)
            elif kind == "emote":
                await self._send_emote(content["code"])
        else:
            reason = f"unknown message type {quoted(kind)}"
            await self.send_frame(error_frame(reason, "unknown_message_type", {"type": quoted(kind)}))

    def _allow(self) -> bool:
        """Token bucket: CAISHEN_SOCKET_RATE messages per second, bursts up to twice that."""
        rate = float(settings.CAISHEN_SOCKET_RATE)
        now = time.monotonic()
        tokens, last = getattr(self, "_bucket", (2 * rate, now))
        tokens = min(2 * rate, tokens + (now - last) * rate)
        if tokens < 1:
            self._bucket = (tokens, now)
            return False
        self._bucket = (tokens - 1, now)
        return True

    async def resync(self, content: dict[str, Any]) -> None:
        """A watcher's: its delayed snapshot (rate-limited).  A seat's: the frames it missed
        since the position it names, if this process still has them all, else a snapshot."""
        if self.reader.watching:
            await self.watcher.ask(resync=True)
            return
        missed = await database_sync_to_async(catch_up.on_resync)(self.reader, content)
        if missed is None:
            await self.send_snapshot("resync")
            return
        frames, current = missed
        for text in frames:
            await self.send(text_data=text)
        self.delivered = max(self.delivered, current)

    async def _send_emote(self, code: str) -> None:
        """A seat's accepted quick phrase, to every socket of the table (games.live.emotes)."""
        event = {"type": "table.emote", "position": self.reader.position, "code": code}
        for group in [seat_group(self.table_id, p) for p in range(4)] + [public_group(self.table_id)]:
            await self.channel_layer.group_send(group, event)

    async def ping(self, content: dict[str, Any]) -> None:
        # Every browser pings every 10 s: a seated player's ping reads only the hand's seq (one
        # small query) and renders the full state only when the client is behind.  A watcher's
        # view is delayed, so its seq is compared with the delayed state it would get.
        if self.reader.watching:
            await self.watcher.ask(seq=content.get("seq"))
            return
        current = await self._current_position()
        answer = catch_up.ping_answer(content.get("seq"), current, self.delivered, self.ping_check is not None)
        if answer == "snapshot":
            await self.send_snapshot("ping")
            return
        await self.send_frame(pong(current[1] if current is not None else None))
        if answer == "pong_then_check" and current is not None:
            self.ping_check = asyncio.create_task(self._snapshot_unless_delivered(current))

    async def _current_position(self) -> catch_up.Position | None:
        """The table's current hand and seq: from this process's memory when it is the only one
        applying steps (games/runtime/positions.py), else from the database."""
        positions = runtime().positions
        local = kept_in_memory()
        if local:
            known, position = positions.known(self.table_id)
            if known:
                return position
        current = await database_sync_to_async(services.current_seq)(self.table_id)
        if local:
            positions.learn(self.table_id, current)
        return current

    async def _snapshot_unless_delivered(self, current: catch_up.Position) -> None:
        try:
            if await catch_up.frame_overdue(current, lambda: self.delivered, lambda: self.reader.present):
                await self.send_snapshot("ping_grace")
        except Exception:  # the socket closed meanwhile: nothing to catch up
            log.debug("deferred snapshot dropped", exc_info=True, extra={"table": self.table_id})
        finally:
            self.ping_check = None

    async def _watcher_answer(self, resync: bool, seq: Any) -> None:
        """Answer a watcher's coalesced resyncs and pings (catch_up.WatcherSync)."""
        if await self._sat_down("watcher_seated"):
            return
        # Watchers asking at this moment share one render of the public view (spectating.SharedRenders).
        render = database_sync_to_async(self.reader.public_state)
        state: Snapshot = await runtime().watcher_renders.get((self.table_id, self.reader.delay), render)
        current = (state["hand"] or {}).get("seq")
        await self.send_frame(state if resync or seq != current else pong(current))

    async def _sat_down(self, cause: str) -> bool:
        """A watcher whose user sat down reads its own chair now, live: True when it did."""
        if self.reader.user_id is None or not await database_sync_to_async(self.reader.holds_a_chair)():
            return False
        await self.send_snapshot(cause)
        return True

    # -- group messages ---------------------------------------------------------------
    async def table_frame(self, event: dict[str, Any]) -> None:
        if not self.reader.may_read(event):
            # A frame for another reader: this socket's user no longer holds the chair whose
            # group it is in (stood up, unseated, walked out), and the table change that moves
            # it is still on its way.  Drop it; a snapshot re-reads where the user stands now.
            log.info("frame for another reader dropped", extra={"table": self.table_id, "seat": self.reader.position})
            if self.recheck is None:
                self.recheck = asyncio.create_task(self._recheck())
            return
        # The writer serialised the frame once for the whole group: forward the text as is.
        text = event["text"] if "text" in event else json.dumps(event["frame"])
        if "seq" in event and not self.reader.watching:
            self.delivered = max(self.delivered, (event["hand"], event["seq"]))
            catch_up.record(self.reader.group, event, text)
        if self.reader.watching and self.reader.delay > 0:
            self._later(self.send, text)  # spectators see play late
            return
        await self.send(text_data=text)

    async def _recheck(self) -> None:
        try:
            await self.send_snapshot("recheck")
        except Exception:  # the socket closed meanwhile
            log.debug("re-check dropped", exc_info=True, extra={"table": self.table_id})
        finally:
            self.recheck = None

    async def table_emote(self, event: dict[str, Any]) -> None:
        frame = emote_shown(event["position"], event["code"])
        if self.reader.watching and self.reader.delay > 0:
            self._later(self.send_frame, frame)  # watchers see the table late: the phrase with it
            return
        await self.send_frame(frame)

    async def table_changed(self, event: dict[str, Any]) -> None:
        if not self.reader.watching:
            # The table and seats only, when the user still holds this chair and the hand is the
            # one this socket follows (no engine view rendered); else a snapshot, which also
            # moves the socket where its user stands now.
            message = await database_sync_to_async(self.reader.table_message)(self.delivered[0])
            await (self.send_snapshot("table_changed") if message is None else self.send_frame(message))
            return
        # A watcher: if the change is that its user sat down, it reads the chair now (its own
        # view is live).  Else it re-reads the public view like a resync — late by the spectator
        # delay, shared with the other watchers asking at that moment, at most once a second
        # (every watcher's own render made N watchers joining cost N² renders).
        if await self._sat_down("table_changed"):
            return
        if self.reader.delay > 0:
            self._later(self.watcher.ask, True)
        else:
            await self.watcher.ask(resync=True)


def idle_seconds() -> float:  # silence after which a socket is closed (0: never)
    return float(settings.CAISHEN_SOCKET_IDLE_SECONDS)


def too_many_sockets(refusal: Refusal) -> ServerFrame:
    """The error frame sent before the 4429 close: which cap the socket met, and its value."""
    if refusal.per == "user":
        reason = f"too many open table sockets: at most {refusal.limit} per account"
        return error_frame(reason, "too_many_sockets_per_user", {"limit": refusal.limit})
    reason = f"too many open table sockets: at most {refusal.limit} per network address"
    return error_frame(reason, "too_many_sockets_per_address", {"limit": refusal.limit})
