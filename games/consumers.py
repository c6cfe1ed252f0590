"""The table socket: authenticate, authorise the seat, send snapshots, forward frames.

Thin on purpose: every change goes through ``games.services``; this class only
translates messages (docs/protocol.md).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from games import services, spectating
from games.fanout import public_group, seat_group, table_changed
from games.models import Table
from games.timers import IN_PROCESS, backend_name

MAX_FRAME = 16 * 1024  # bytes: every legal message is far smaller
# A seated ping that finds the hand ahead of this socket waits this long for the step's frame,
# which is usually on its way through the channel layer, before paying for a full snapshot.
PING_GRACE_SECONDS = 1.0

log = logging.getLogger("caishen.table")


class TableConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    table_id: int
    position: int | None
    group: str
    delay: float = 0.0  # spectators only: CAISHEN_SPECTATOR_DELAY
    in_group: bool = False  # joined self.group
    present: bool = False  # counted at the table (a seat's connection, or a watcher)
    # (hand id, seq) of the newest state this socket was sent (frame or snapshot).  Hand ids
    # grow with every hand, so tuples compare in time order.
    delivered: tuple[int, int] = (0, 0)
    catch_up: asyncio.Task[None] | None = None  # a ping's deferred check (PING_GRACE_SECONDS)

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels runs close_old_connections() before every message: a hop to the process's one
        # database thread, queued behind every table's steps, for every frame to every socket.
        # All database work here goes through database_sync_to_async, which already does that
        # around each call, so the hop is skipped (docs/performance.md).
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        if backend_name() == "inprocess":  # with Celery timers no daphne process runs a sweeper
            IN_PROCESS.bind(asyncio.get_running_loop())
        user = self.scope.get("user")
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        found = await database_sync_to_async(self._seat_of)(user)
        if found is None:
            await self.close(code=4404)
            return
        allowed, position = found
        if not allowed:
            await self.close(code=4403)
            return
        self.position = position
        self.group = seat_group(self.table_id, position) if position is not None else public_group(self.table_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.in_group = True
        await self.accept()
        if position is not None:
            await database_sync_to_async(services.set_connected)(self.table_id, user, True)
            self.present = True
        else:
            # Spectating: frames are held back for the delay; the gap between the delayed
            # snapshot below and the first held frame is covered by a second snapshot then.
            self.delay = spectating.delay_seconds()
            self.held: set[asyncio.TimerHandle] = set()
            await database_sync_to_async(self._watcher_joined)()
            self.present = True
            if self.delay > 0:
                self._later(self.send_snapshot)
        await self.send_snapshot()

    def _seat_of(self, user: Any) -> tuple[bool, int | None] | None:
        table = Table.objects.filter(pk=self.table_id).first()
        if table is None:
            return None
        authenticated = user is not None and user.is_authenticated
        seat = table.seats.filter(user=user).first() if authenticated else None
        if seat is not None:
            return True, seat.position
        # Watching: public tables, and private ones by invitation (the owner, or a session
        # holding the room code: games.views.can_open).
        from games.views import can_open

        return can_open(user, self.scope.get("session"), table), None

    def _watcher_joined(self) -> None:
        spectating.watcher_joined(self.table_id)
        table_changed(self.table_id)  # the players see the count

    def _watcher_left(self) -> None:
        spectating.watcher_left(self.table_id)
        table_changed(self.table_id)

    def _later(self, send: Any, *args: Any) -> None:
        """Run ``send(*args)`` after the spectator delay (frames keep their order: one delay)."""
        loop = asyncio.get_running_loop()

        def fire() -> None:
            self.held.discard(handle)
            asyncio.ensure_future(send(*args))

        handle = loop.call_later(self.delay, fire)
        self.held.add(handle)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        except Exception:
            # The socket dies with an error (the channel layer failed under it: Redis restarting).
            # No websocket.disconnect reaches us then, so leave the table here: else the seat
            # counts this socket as connected for good.
            await self._leave()
            raise

    async def disconnect(self, code: int) -> None:
        if self.catch_up is not None:
            self.catch_up.cancel()
        await self._leave()

    async def _leave(self) -> None:
        """Leave the group and the table, once; a broken layer or cache does not stop the rest."""
        if self.in_group:
            self.in_group = False
            try:
                await self.channel_layer.group_discard(self.group, self.channel_name)
            except Exception:  # the layer is down: its groups expire, or it restarted without them
                log.warning("leaving the group failed", exc_info=True, extra={"table": self.table_id})
        if not self.present:
            return
        self.present = False
        try:
            if self.position is not None:
                await database_sync_to_async(services.set_connected)(self.table_id, self.scope.get("user"), False)
            else:
                for handle in getattr(self, "held", ()):
                    handle.cancel()
                await database_sync_to_async(self._watcher_left)()
        except Exception:
            log.exception("leaving the table failed", extra={"table": self.table_id, "seat": self.position})

    async def send_snapshot(self) -> None:
        state = await database_sync_to_async(self._state)()
        await self.send_json(state)
        hand = state.get("hand") or {}
        if isinstance(hand.get("id"), int) and isinstance(hand.get("seq"), int):
            self.delivered = max(self.delivered, (hand["id"], hand["seq"]))

    def _state(self) -> dict[str, Any]:
        table = services.reads.table_row(self.table_id)
        if table is None:
            raise Table.DoesNotExist(f"table {self.table_id} is gone")
        user = self.scope.get("user")
        if self.position is None:
            return spectating.spectator_state(table, delay=self.delay)
        state = services.state_for(table, user)
        state["table"]["watchers"] = spectating.watcher_count(self.table_id)
        return state

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        # A flood is answered with an error and dropped (a token bucket per socket), and an
        # oversized or malformed frame gets an error reply; none may close or crash the table.
        if not self._allow():
            await self.send_json({"type": "error", "reason": "too many messages: slow down"})
            return
        # The cap is in bytes, as the reason says: in UTF-8 a character takes up to four.
        too_large = text_data is not None and (
            len(text_data) > MAX_FRAME or len(text_data.encode("utf-8", "surrogatepass")) > MAX_FRAME
        )
        if too_large:
            await self.send_json({"type": "error", "reason": f"message too large (over {MAX_FRAME} bytes)"})
            return
        if text_data is None:
            await self.send_json({"type": "error", "reason": "send JSON text frames"})
            return
        try:
            content = await self.decode_json(text_data)
        except ValueError:
            await self.send_json({"type": "error", "reason": "messages are JSON objects"})
            return
        await self.receive_json(content)

    def _allow(self) -> bool:
        """Token bucket: CAISHEN_SOCKET_RATE messages per second, bursts up to twice that."""
        rate = float(getattr(settings, "CAISHEN_SOCKET_RATE", 20))
        now = time.monotonic()
        tokens, last = getattr(self, "_bucket", (2 * rate, now))
        tokens = min(2 * rate, tokens + (now - last) * rate)
        if tokens < 1:
            self._bucket = (tokens, now)
            return False
        self._bucket = (tokens - 1, now)
        return True

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if not isinstance(content, dict):
            await self.send_json({"type": "error", "reason": "messages are JSON objects"})
            return
        kind = content.get("type")
        if kind == "act":
            await self.act(content)
        elif kind == "ping":
            await self.ping(content)
        elif kind == "resync":
            await (self.send_snapshot() if self.position is not None else self.watcher_sync(resync=True))
        elif kind == "choose":
            await self.choose(content)
        else:
            await self.send_json({"type": "error", "reason": f"unknown message type {_quoted(kind)}"})

    async def act(self, content: dict[str, Any]) -> None:
        if self.position is None:
            await self.send_json({"type": "refused", "reason": "spectators cannot act"})
            return
        hand_id, seq = content.get("hand"), content.get("seq")
        if not isinstance(hand_id, int) or isinstance(hand_id, bool):  # (JSON true is no hand id)
            await self.send_json({"type": "refused", "seq": seq, "reason": "a command names its hand"})
            return
        try:
            await database_sync_to_async(services.submit)(hand_id, self.scope["user"], content.get("action"), seq)
        except services.Refused as exc:
            await self.send_json({"type": "refused", "seq": seq, "reason": str(exc)})
        except Exception:
            # A failure inside the service (the database, the cache) must not crash the socket.
            log.exception("command failed", extra={"table": self.table_id, "hand": hand_id, "seat": self.position})
            await self._after_failure(hand_id, seq)

    async def _after_failure(self, hand_id: int, seq: Any) -> None:
        """Tell the client where the table stands after a command failed with an error.

        The transaction rolled back, so the hand is still at ``seq``: refused, nothing changed (try
        again).  If the hand is elsewhere (the failure came after the commit), a fresh snapshot.
        """
        try:
            state = await database_sync_to_async(self._state)()
        except Exception:
            state = None
        hand = (state or {}).get("hand") or {}
        if state is not None and (hand.get("id"), hand.get("seq")) != (hand_id, seq):
            await self.send_json(state)
        else:
            await self.send_json(
                {"type": "refused", "seq": seq, "reason": "the server could not apply the command: try again"}
            )

    async def choose(self, content: dict[str, Any]) -> None:
        if self.position is None:
            await self.send_json({"type": "refused", "reason": "spectators cannot choose"})
            return
        try:
            await database_sync_to_async(services.choose)(
                self.table_id, self.scope["user"], content.get("key"), content.get("value")
            )
        except services.Refused as exc:
            await self.send_json({"type": "refused", "reason": str(exc)})
        except Exception:
            log.exception("choice failed", extra={"table": self.table_id, "seat": self.position})
            await self.send_json({"type": "refused", "reason": "the server could not record the answer: try again"})

    async def ping(self, content: dict[str, Any]) -> None:
        # Every browser pings every 10 s: a seated player's ping reads only the hand's seq (one
        # small query) and renders the full state only when the client is behind.  A watcher's
        # view is delayed, so its seq is compared with the delayed state it would get.
        if self.position is not None:
            current = await database_sync_to_async(services.current_seq)(self.table_id)
            seq = current[1] if current is not None else None
            if content.get("seq") == seq:
                await self.send_json({"type": "pong", "seq": seq})
                return
            if current is not None and self.delivered >= current:
                # The newest frame already went down this socket, before this pong: the client
                # reads it first.  Its ping only crossed it.
                await self.send_json({"type": "pong", "seq": seq})
                return
            if current is None or self.catch_up is not None:
                await self.send_snapshot()  # the client missed something: a fresh snapshot
                return
            # The step committed but its frame has not reached this socket yet: under load it is
            # usually on its way through the layer.  A snapshot for every such ping — every
            # socket pinging every 10 s — was a tenth of a web process at 200 tables.  Check again
            # after a grace period; a frame that was lost (layer full or reconnecting) gets the
            # snapshot then.
            await self.send_json({"type": "pong", "seq": seq})
            self.catch_up = asyncio.create_task(self._snapshot_unless_delivered(current))
            return
        await self.watcher_sync(seq=content.get("seq"))

    # -- a watcher's resyncs and pings ----------------------------------------------------
    # Each renders the delayed public snapshot on the database thread the seated players' steps
    # share: 20 anonymous sockets resyncing 19 times a second took a seated command's round trip
    # from 7 ms to 453 ms.  So a watcher socket gets at most one such read per
    # CAISHEN_WATCHER_SYNC_SECONDS; what it asks for meanwhile is coalesced into one answer when
    # the interval is up (a resync among them: the snapshot; pings only: a pong, or the snapshot if
    # the last ping's seq is behind).  No error frame: a client that resyncs on every gap is
    # simply served a little later.
    watcher_next_sync: float = 0.0  # monotonic time of the next read allowed
    watcher_pending: asyncio.Task[None] | None = None
    watcher_wants: tuple[bool, Any] = (False, None)  # (a resync asked, the latest ping's seq)

    async def watcher_sync(self, resync: bool = False, seq: Any = None) -> None:
        wanted, _ = self.watcher_wants
        self.watcher_wants = (wanted or resync, seq)
        if self.watcher_pending is not None:
            return  # an answer is already scheduled: it covers this request too
        wait = self.watcher_next_sync - time.monotonic()
        if wait <= 0:
            await self._watcher_answer()
        else:
            self.watcher_pending = asyncio.create_task(self._watcher_answer_later(wait))

    async def _watcher_answer_later(self, wait: float) -> None:
        try:
            await asyncio.sleep(wait)
        finally:
            self.watcher_pending = None  # requests from here on are the next answer's
        try:
            if self.present:
                await self._watcher_answer()
        except Exception:  # the socket closed meanwhile: nobody to answer
            log.debug("deferred watcher answer dropped", exc_info=True, extra={"table": self.table_id})

    async def _watcher_answer(self) -> None:
        resync, seq = self.watcher_wants
        self.watcher_wants = (False, None)
        self.watcher_next_sync = time.monotonic() + float(getattr(settings, "CAISHEN_WATCHER_SYNC_SECONDS", 1.0))
        # Every watcher of the table asking at this moment shares one render (spectating.SharedRenders).
        render = database_sync_to_async(self._state)
        state = await spectating.WATCHER_RENDERS.get((self.table_id, self.delay), render)
        current = (state.get("hand") or {}).get("seq")
        if resync or seq != current:
            await self.send_json(state)
        else:
            await self.send_json({"type": "pong", "seq": current})

    # -- group messages ---------------------------------------------------------------
    async def _snapshot_unless_delivered(self, current: tuple[int, int]) -> None:
        try:
            await asyncio.sleep(PING_GRACE_SECONDS)
            if self.present and self.delivered < current:
                await self.send_snapshot()
        except Exception:  # the socket closed meanwhile: nothing to catch up
            log.debug("deferred snapshot dropped", exc_info=True, extra={"table": self.table_id})
        finally:
            self.catch_up = None

    async def table_frame(self, event: dict[str, Any]) -> None:
        # The writer serialised the frame once for the whole group: forward the text as is.
        text = event["text"] if "text" in event else json.dumps(event["frame"])
        if "seq" in event and self.position is not None:
            self.delivered = max(self.delivered, (event["hand"], event["seq"]))
        if self.position is None and self.delay > 0:
            self._later(self._send_text, text)  # spectators see play late
            return
        await self.send(text_data=text)

    async def _send_text(self, text: str) -> None:
        await self.send(text_data=text)

    async def table_changed(self, event: dict[str, Any]) -> None:
        if self.position is None and self.delay > 0:
            self._later(self.send_snapshot)
            return
        await self.send_snapshot()


def _quoted(value: Any, limit: int = 40) -> str:
    """A client's value in an error reason, cut short: an error must not echo kilobytes back."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
