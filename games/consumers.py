"""The table socket: authenticate, authorise the seat, send snapshots, forward frames.

Thin on purpose: every change goes through ``games.services``; this class only
translates messages (docs/protocol.md).
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import time
from typing import Any, Literal
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from games import access, dbqueue, emotes, services, spectating
from games.deltas import apply_delta, as_update, chains, state_of
from games.fanout import OUTBOX, public_group, seat_group, seat_holder, table_changed
from games.frame_cache import HISTORY, Received
from games.models import Seat, Table
from games.table_steps import table_step
from games.timers import IN_PROCESS, backend_name
from mahjong_platform.jsonlimits import JSONLimitError, loads_bounded

CLOSE_FORBIDDEN = 4403  # a private table this socket's user may not open
CLOSE_NOT_FOUND = 4404  # no such table
CLOSE_SILENT = 4408  # nothing heard from the client past CAISHEN_SOCKET_IDLE_SECONDS
CLOSE_BAD_VERSION = 4426  # a protocol version this server does not speak ("upgrade required")
MAX_FRAME = 16 * 1024  # bytes: every legal message is far smaller
# A seated ping that finds the hand ahead of this socket waits this long for the step's frame,
# which is usually on its way through the channel layer, before paying for a full snapshot.
PING_GRACE_SECONDS = 1.0
PROTOCOL_VERSIONS = (1, 2)  # ?v=2: delta frames with catch-up; none or v=1: whole frames (docs/protocol.md)
# ...and, while the process has a backlog (frames are late, not lost), up to this long in all:
# under the browser's 10 s heartbeat, so the next ping finds the check done.
PING_GRACE_MAX_SECONDS = 8.0

log = logging.getLogger("caishen.table")

# Full snapshots read for seated and re-reading sockets, by what asked for one: each is a render
# on the database thread, the single largest cost past saturation (docs/performance.md,
# "Overload (issue 17)").  Shown in /healthz ("load").
SNAPSHOTS: collections.Counter[str] = collections.Counter()


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
    user_id: int | None = None  # the signed-in user's id (None: anonymous)
    position: int | None = None  # the chair this socket reads, None: watching
    group: str = ""
    delay: float = 0.0  # spectators only: CAISHEN_SPECTATOR_DELAY
    in_group: bool = False  # joined self.group
    present: bool = False  # counted at the table (a seat's connection, or a watcher)
    # (hand id, seq) of the newest state this socket was sent (frame or snapshot).  Hand ids
    # grow with every hand, so tuples compare in time order.
    delivered: tuple[int, int] = (0, 0)
    catch_up: asyncio.Task[None] | None = None  # a ping's deferred check (PING_GRACE_SECONDS)
    recheck: asyncio.Task[None] | None = None  # a snapshot after a frame for another reader
    last_heard: float = 0.0  # time.monotonic() of the client's last message (or the connect)
    idle_check: asyncio.TimerHandle | None = None
    version: int = 1  # the protocol the client asked for (?v=2)
    # v1 sockets only: the state this socket's client holds, so that a delta frame can be turned
    # into the whole update frame v1 promises (done here, per v1 socket; v2 clients apply it).
    v1_state: dict[str, Any] | None = None

    async def connect(self) -> None:
        if backend_name() == "inprocess":  # with Celery timers no daphne process runs a sweeper
            IN_PROCESS.bind(asyncio.get_running_loop())
        user = self.scope.get("user")
        self.user_id = user.pk if user is not None and user.is_authenticated else None
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        query = parse_qs((self.scope.get("query_string") or b"").decode("latin-1"))
        self.version, since = _version_and_since(query)
        if self.version not in PROTOCOL_VERSIONS:
            await self.accept()
            await self.send_json(
                _refusal(
                    "error",
                    f"protocol version {self.version} is not spoken here: use v=2",
                    "protocol_version",
                    {"version": self.version},
                )
            )
            await self.close(code=CLOSE_BAD_VERSION)
            return
        if since is not None and self.version >= 2:
            caught = await database_sync_to_async(self._read_catch_up)(since)
            if caught is not None:
                where, catch_up, current = caught
                await self.accept()
                await self._follow(where)
                for text in catch_up:
                    await self.send(text_data=text)
                self.delivered = max(self.delivered, current)
                self.last_heard = time.monotonic()
                self._arm_idle_check(idle_seconds())
                return
        SNAPSHOTS["connect"] += 1
        where, state = await database_sync_to_async(self._read)()
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

    def _read(self) -> tuple[int | None | Literal["gone"], dict[str, Any] | None]:
        """Where this socket's user stands now and the snapshot for that: (the chair the user
        holds, or None to watch; the state, or None if the user may not open the table).  The
        first item is "gone" when the table does not exist."""
        table = services.reads.table_row(self.table_id)
        if table is None:
            return "gone", None
        user = self.scope.get("user")
        seats = services.reads.table_seats(table)
        position = access.held_position(seats, user)
        if position is not None:
            state = services.reads.render_for(table, seats, position)
            state["table"]["watchers"] = spectating.watcher_count(self.table_id)
            return position, state
        # Watching: public tables, and private ones by invitation (the owner, or a session
        # holding the room code: games.access.can_open).
        if not access.can_open(user, self.scope.get("session"), table):
            return None, None
        delay = self.delay if (self.in_group and self.position is None) else spectating.delay_seconds()
        return None, spectating.spectator_state(table, delay=delay)

    def _read_catch_up(self, since: tuple[int, int]) -> tuple[int, list[str], tuple[int, int]] | None:
        """A seated v2 client that had the hand at ``since`` (hand id, seq) reconnects: the chair
        its user holds, the frames it missed and then the table as it is now, and the (hand, seq)
        that leaves it at.  None when that cannot be done (not seated, or _missed_frames cannot):
        the caller sends a snapshot."""
        table = services.reads.table_row(self.table_id)
        if table is None:
            return None
        seats = services.reads.table_seats(table)
        position = access.held_position(seats, self.scope.get("user"))
        if position is None:
            return None
        missed = self._missed_frames(position, since)
        if missed is None:
            return None
        frames, current = missed
        table_now = services.reads.table_message(table, seats, position)
        return position, [*frames, json.dumps(table_now, separators=(",", ":"))], current

    def _missed_frames(self, position: int, since: tuple[int, int]) -> tuple[list[str], tuple[int, int]] | None:
        """The frames that take this socket's user at chair ``position`` from ``since`` (hand id,
        seq) to the hand's current step, from this process's history (games.frame_cache.HISTORY),
        with that step; None when the hand is another or the history does not cover the gap."""
        current = services.current_seq(self.table_id)
        if current is None or current[0] != since[0] or self.user_id is None:
            return None
        frames = HISTORY.since(seat_group(self.table_id, position), since[0], since[1], self.user_id, current[1])
        return (frames, current) if frames is not None else None

    async def _follow(self, position: int | None) -> None:
        """Make this socket a reader of ``position`` (the chair its user holds now; None: a
        watcher), leaving whatever it read before: the group, and its count at the table."""
        if self.in_group and position == self.position:
            return
        await self._leave()
        self.position = position
        self.group = seat_group(self.table_id, position) if position is not None else public_group(self.table_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.in_group = True
        self.present = True
        if position is not None:
            self.delay = 0.0
            await database_sync_to_async(services.set_connected)(
                self.table_id, self.scope.get("user"), True, position=position
            )
        else:
            # Spectating: frames are held back for the delay; the gap between the delayed
            # snapshot and the first held frame is covered by a second snapshot then.
            self.delay = spectating.delay_seconds()
            self.held: set[asyncio.TimerHandle] = set()
            await database_sync_to_async(self._watcher_joined)()
            if self.delay > 0:
                self._later(self.send_snapshot)

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
        if self.idle_check is not None:
            self.idle_check.cancel()
        for task in (self.catch_up, self.recheck, self.watcher_pending):
            if task is not None:
                task.cancel()
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
                await database_sync_to_async(services.set_connected)(
                    self.table_id, self.scope.get("user"), False, position=self.position
                )
            else:
                for handle in getattr(self, "held", ()):
                    handle.cancel()
                await database_sync_to_async(self._watcher_left)()
        except Exception:
            log.exception("leaving the table failed", extra={"table": self.table_id, "seat": self.position})

    async def send_snapshot(self, cause: str = "other") -> None:
        SNAPSHOTS[cause] += 1
        where, state = await database_sync_to_async(self._read)()
        if where == "gone":
            await self.close(code=CLOSE_NOT_FOUND)
            return
        if state is None:  # a private table this user may no longer open (stood up, unseated)
            await self._leave()
            await self.close(code=CLOSE_FORBIDDEN)
            return
        await self._follow(where)
        await self._send_state(state)

    async def _send_state(self, state: dict[str, Any]) -> None:
        await self.send_json(state)
        if self.version == 1:
            self.v1_state = state_of(state)
        hand = state.get("hand") or {}
        if isinstance(hand.get("id"), int) and isinstance(hand.get("seq"), int):
            self.delivered = max(self.delivered, (hand["id"], hand["seq"]))

    def _public_state(self) -> dict[str, Any]:
        """The delayed public snapshot (a watcher's), the same for every watcher of the table."""
        table = services.reads.table_row(self.table_id)
        if table is None:
            raise Table.DoesNotExist(f"table {self.table_id} is gone")
        return spectating.spectator_state(table, delay=self.delay)

    def _state(self) -> dict[str, Any]:
        """The snapshot for where this socket stands now (see _read)."""
        where, state = self._read()
        if where == "gone" or state is None:
            raise Table.DoesNotExist(f"table {self.table_id} is gone or closed to this reader")
        return state

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        self.last_heard = time.monotonic()
        # A flood is answered with an error and dropped (a token bucket per socket), and an
        # oversized or malformed frame gets an error reply; none may close or crash the table.
        if not self._allow():
            await self.send_json(_refusal("error", "too many messages: slow down", "too_many_messages"))
            return
        # The cap is in bytes, as the reason says: in UTF-8 a character takes up to four.
        too_large = text_data is not None and (
            len(text_data) > MAX_FRAME or len(text_data.encode("utf-8", "surrogatepass")) > MAX_FRAME
        )
        if too_large:
            await self.send_json(
                _refusal(
                    "error", f"message too large (over {MAX_FRAME} bytes)", "message_too_large", {"limit": MAX_FRAME}
                )
            )
            return
        if text_data is None:
            await self.send_json(_refusal("error", "send JSON text frames", "text_frames_only"))
            return
        try:
            content = await self.decode_json(text_data)
        except JSONLimitError as exc:  # too deep, a number out of range: said, and nothing else
            await self.send_json(_refusal("error", str(exc), "json_limit", {"detail": str(exc)}))
            return
        except ValueError:
            await self.send_json(_refusal("error", "messages are JSON objects", "not_a_json_object"))
            return
        await self.receive_json(content)

    @classmethod
    async def decode_json(cls, text_data: str) -> Any:
        # Bounded: a deeply nested frame under the size cap crashed the socket with a
        # RecursionError (close 1011) in json.loads (mahjong_platform/jsonlimits.py).
        return loads_bounded(text_data)

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

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if not isinstance(content, dict):
            await self.send_json(_refusal("error", "messages are JSON objects", "not_a_json_object"))
            return
        kind = content.get("type")
        if kind == "act":
            await self.act(content)
        elif kind == "ping":
            await self.ping(content)
        elif kind == "resync":
            if self.position is None:
                await self.watcher_sync(resync=True)
            elif not await self._catch_up(content):
                await self.send_snapshot("resync")
        elif kind == "choose":
            await self.choose(content)
        elif kind == "autoplay":
            await self.autoplay(content)
        elif kind == "emote":
            await self.emote(content)
        else:
            await self.send_json(
                _refusal(
                    "error", f"unknown message type {_quoted(kind)}", "unknown_message_type", {"type": _quoted(kind)}
                )
            )

    async def _catch_up(self, content: dict[str, Any]) -> bool:
        """A v2 ``resync`` naming the hand and seq the client holds: the frames it missed, if
        this process still has them all (else False: the caller sends a snapshot)."""
        since = (content.get("hand"), content.get("seq"))
        if self.version < 2 or self.position is None or not all(type(n) is int for n in since):
            return False  # (type, not isinstance: JSON true is no seq)
        missed = await database_sync_to_async(self._missed_frames)(self.position, since)
        if missed is None:
            return False
        frames, current = missed
        for text in frames:
            await self.send(text_data=text)
        self.delivered = max(self.delivered, current)
        return True

    async def act(self, content: dict[str, Any]) -> None:
        if self.position is None:
            await self.send_json(_refusal("refused", "spectators cannot act", "spectator_cannot_act"))
            return
        hand_id, seq = content.get("hand"), content.get("seq")
        if not isinstance(hand_id, int) or isinstance(hand_id, bool):  # (JSON true is no hand id)
            await self.send_json(_refusal("refused", "a command names its hand", "command_needs_hand", seq=seq))
            return
        try:
            await table_step(services.submit)(hand_id, self.scope["user"], content.get("action"), seq)
        except services.Refused as exc:
            await self.send_json(_refusal("refused", str(exc), exc.code, exc.params, seq=seq))
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
                _refusal(
                    "refused", "the server could not apply the command: try again", "server_failed_command", seq=seq
                )
            )

    async def choose(self, content: dict[str, Any]) -> None:
        if self.position is None:
            await self.send_json(_refusal("refused", "spectators cannot choose", "spectator_cannot_choose"))
            return
        try:
            await table_step(services.choose)(
                self.table_id, self.scope["user"], content.get("key"), content.get("value")
            )
        except services.Refused as exc:
            await self.send_json(_refusal("refused", str(exc), exc.code, exc.params))
        except Exception:
            log.exception("choice failed", extra={"table": self.table_id, "seat": self.position})
            await self.send_json(
                _refusal("refused", "the server could not record the answer: try again", "server_failed_choice")
            )

    async def autoplay(self, content: dict[str, Any]) -> None:
        """``{"type": "autoplay", "on": false}``: take the seat off 托管 (or put it on)."""
        if self.position is None:
            await self.send_json(_refusal("refused", "spectators cannot use 托管", "spectator_cannot_autoplay"))
            return
        try:
            await table_step(services.set_auto_play)(self.table_id, self.scope["user"], content.get("on"))
        except services.Refused as exc:
            await self.send_json(_refusal("refused", str(exc), exc.code, exc.params))
        except Exception:
            log.exception("auto-play switch failed", extra={"table": self.table_id, "seat": self.position})
            await self.send_json(
                _refusal("refused", "the server could not switch 托管: try again", "server_failed_autoplay")
            )

    async def emote(self, content: dict[str, Any]) -> None:
        """``{"type": "emote", "code"}``: a quick phrase from a seat to everyone at the table (games.emotes)."""
        if self.position is None:
            await self.send_json(_refusal("refused", "spectators cannot send quick phrases", "spectator_cannot_emote"))
            return
        code = content.get("code")
        if not isinstance(code, str) or code not in emotes.CODES:
            await self.send_json(
                _refusal("refused", f"no such quick phrase {_quoted(code)}", "unknown_emote", {"code": _quoted(code)})
            )
            return
        if not emotes.allow(self.table_id, self.position):
            await self.send_json(
                _refusal(
                    "refused",
                    "too many quick phrases: wait a moment",
                    "emote_rate",
                    {"count": emotes.RATE_COUNT, "seconds": int(emotes.RATE_WINDOW)},
                )
            )
            return
        event = {"type": "table.emote", "position": self.position, "code": code}
        groups = [seat_group(self.table_id, p) for p in range(4)] + [public_group(self.table_id)]
        for group in groups:
            await self.channel_layer.group_send(group, event)

    async def table_emote(self, event: dict[str, Any]) -> None:
        if self.version < 2:
            return  # v1 promises the frame types it always had (docs/protocol.md, "Versions")
        frame = {"type": "emote", "position": event["position"], "code": event["code"]}
        if self.position is None and self.delay > 0:
            self._later(self.send_json, frame)  # watchers see the table late: the phrase with it
            return
        await self.send_json(frame)

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
            if current is None:
                await self.send_snapshot("ping")  # the client missed something: a fresh snapshot
                return
            if self.catch_up is not None:
                # The last ping's check is still waiting for the frame, or its snapshot for the
                # database thread: it answers this ping too.  A second snapshot queued behind the
                # first was a third of the snapshots past saturation (docs/performance.md,
                # "Overload (issue 17)").
                await self.send_json({"type": "pong", "seq": seq})
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
        self.watcher_next_sync = time.monotonic() + float(settings.CAISHEN_WATCHER_SYNC_SECONDS)
        if self.user_id is not None and await database_sync_to_async(self._holds_a_chair)():
            # Its user sat down: its own chair's view and group (never a render shared below).
            await self.send_snapshot("watcher_seated")
            return
        # Every watcher of the table asking at this moment shares one render (spectating.SharedRenders):
        # the public view only, whoever asked.
        render = database_sync_to_async(self._public_state)
        state = await spectating.WATCHER_RENDERS.get((self.table_id, self.delay), render)
        current = (state.get("hand") or {}).get("seq")
        if resync or seq != current:
            await self.send_json(state)
        else:
            await self.send_json({"type": "pong", "seq": current})

    # -- group messages ---------------------------------------------------------------
    async def _snapshot_unless_delivered(self, current: tuple[int, int]) -> None:
        try:
            waited = 0.0
            while True:
                await asyncio.sleep(PING_GRACE_SECONDS)
                waited += PING_GRACE_SECONDS
                if not self.present or self.delivered >= current:
                    return
                # Work waiting for the database thread or the outbox: the frame is late, not
                # lost — a socket's frames queue behind its own command in flight.  A snapshot
                # now would only add a render to that queue, and past saturation these catch-up
                # snapshots grew with the delay they caused (a feedback loop: docs/performance.md,
                # "Overload (issue 17)").  Wait on, up to PING_GRACE_MAX_SECONDS.
                if waited >= PING_GRACE_MAX_SECONDS or not _frames_in_flight():
                    break
            await self.send_snapshot("ping_grace")
        except Exception:  # the socket closed meanwhile: nothing to catch up
            log.debug("deferred snapshot dropped", exc_info=True, extra={"table": self.table_id})
        finally:
            self.catch_up = None

    async def table_frame(self, event: dict[str, Any]) -> None:
        if not self._may_read(event):
            # A frame for another reader: this socket's user no longer holds the chair whose
            # group it is in (stood up, unseated, walked out), and the table change that moves
            # it is still on its way.  Drop it; a snapshot re-reads where the user stands now.
            log.info("frame for another reader dropped", extra={"table": self.table_id, "seat": self.position})
            if self.recheck is None:
                self.recheck = asyncio.create_task(self._recheck())
            return
        # The writer serialised the frame once for the whole group: forward the text as is.
        text = event["text"] if "text" in event else json.dumps(event["frame"])
        if "seq" in event and self.position is not None:
            self.delivered = max(self.delivered, (event["hand"], event["seq"]))
            # Kept for catch-up (each socket of the group hands it in; kept once per step).
            HISTORY.record(
                self.group, Received(event["hand"], event["seq"], event.get("base"), text, event.get("reader"))
            )
        if self.position is None and self.delay > 0:
            self._later(self._forward, text)  # spectators see play late
            return
        await self._forward(text)

    async def _forward(self, text: str) -> None:
        """Send a frame: as is to a v2 client; to a v1 client a delta becomes the whole update."""
        if self.version >= 2:
            await self.send(text_data=text)
            return
        frame = json.loads(text)
        if frame.get("type") != "delta":
            self.v1_state = state_of(frame)
            await self.send(text_data=text)
            return
        held = (self.v1_state or {}).get("hand") or {}
        if self.v1_state is not None and held.get("id") == frame["hand_id"] and held.get("seq") == frame["seq"]:
            # A snapshot at this very step overtook its frame: the state is the step's already;
            # the whole update v1 would have sent is that state with the step's events.
            await self.send_json(as_update(self.v1_state, frame))
            return
        if held.get("id") == frame["hand_id"] and isinstance(held.get("seq"), int) and held["seq"] > frame["seq"]:
            return  # older than what this client holds (a v1 client drops it too)
        if not chains(self.v1_state, frame):
            # This socket's state is not the delta's base (a frame was dropped, the socket came
            # in between): v1 clients are owed whole states, so read one.
            await (self.send_snapshot() if self.position is not None else self.watcher_sync(resync=True))
            return
        assert self.v1_state is not None
        self.v1_state = apply_delta(self.v1_state, frame)
        await self.send_json(as_update(self.v1_state, frame))

    def _may_read(self, event: dict[str, Any]) -> bool:
        """The send-time check: a seat's frame goes only to a socket reading that chair whose
        user is the frame's named reader (its holder when the step was applied); a public frame
        only to a watching socket."""
        seat = event.get("seat")
        if seat is None:
            return self.position is None
        return self.position == seat and self.user_id is not None and event.get("reader") == self.user_id

    async def _recheck(self) -> None:
        try:
            await self.send_snapshot("recheck")
        except Exception:  # the socket closed meanwhile
            log.debug("re-check dropped", exc_info=True, extra={"table": self.table_id})
        finally:
            self.recheck = None

    async def table_changed(self, event: dict[str, Any]) -> None:
        if self.position is not None:
            # v2: the table and seats only, when the user still holds this chair and the hand is
            # the one this socket follows (no engine view rendered); else a snapshot, which also
            # moves the socket where its user stands now.
            message = await database_sync_to_async(self._table_message)() if self.version >= 2 else None
            if message is None:
                await self.send_snapshot("table_changed")
            else:
                await self.send_json(message)
            return
        # A watcher: if the change is that its user sat down, it reads the chair now (its own
        # view is live).  Else it re-reads the public view like a resync — late by the spectator
        # delay, shared with the other watchers asking at that moment, at most once a second
        # (every watcher's own render made N watchers joining cost N² renders).
        if self.user_id is not None and await database_sync_to_async(self._holds_a_chair)():
            await self.send_snapshot("table_changed")
        elif self.delay > 0:
            self._later(self.watcher_sync, True)
        else:
            await self.watcher_sync(resync=True)

    def _table_message(self) -> dict[str, Any] | None:
        table = services.reads.table_row(self.table_id)
        if table is None:
            return None
        seats = services.reads.table_seats(table)
        if access.held_position(seats, self.scope.get("user")) != self.position:
            return None
        current = services.current_seq(self.table_id)
        if current is None or current[0] != self.delivered[0]:
            return None
        assert self.position is not None
        return services.reads.table_message(table, seats, self.position)

    def _holds_a_chair(self) -> bool:
        if self.user_id is None:
            return False
        mine = Seat.objects.filter(table_id=self.table_id, user_id=self.user_id)
        return any(seat_holder(s) == self.user_id for s in mine)  # the one rule: fanout.seat_holder


def _version_and_since(query: dict[str, list[str]]) -> tuple[int, tuple[int, int] | None]:
    """``?v=2&hand=42&seq=17`` -> (2, (42, 17)).  No ``v``: 1; one that is not a number: 0 (refused
    as a version not spoken); ``since`` only when both numbers are there."""
    try:
        version = int(query.get("v", ["1"])[0])
    except ValueError:
        version = 0
    try:
        since = (int(query["hand"][0]), int(query["seq"][0]))
    except (KeyError, ValueError, IndexError):
        since = None
    return version, since


def _frames_in_flight() -> bool:
    """Whether this process has work queued that a late frame may be behind: calls waiting for
    the database thread (games/dbqueue.py) or batches in the fan-out outbox."""
    return dbqueue.backlog() > 0 or OUTBOX.depth() > 0


def idle_seconds() -> float:
    """CAISHEN_SOCKET_IDLE_SECONDS: silence after which a socket is closed (0: never)."""
    return float(settings.CAISHEN_SOCKET_IDLE_SECONDS)


def _quoted(value: Any, limit: int = 40) -> str:
    """A client's value in an error reason, cut short: an error must not echo kilobytes back."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_NO_SEQ: Any = object()


def _refusal(
    kind: Literal["refused", "error"],
    reason: str,
    code: str,
    params: dict[str, Any] | None = None,
    seq: Any = _NO_SEQ,
) -> dict[str, Any]:
    """A ``refused`` or ``error`` frame: the English reason, and the code and parameters the
    table page translates it by (docs/protocol.md lists the codes)."""
    frame: dict[str, Any] = {"type": kind}
    if seq is not _NO_SEQ:
        frame["seq"] = seq
    frame |= {"reason": reason, "code": code, "params": params or {}}
    return frame
