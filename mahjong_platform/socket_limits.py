"""A byte bound on what each WebSocket has queued to send: a client that stops reading is dropped.

Why: ASGI gives the application no back-pressure.  Every ``websocket.send`` goes
through daphne to autobahn, which writes the frame to the Twisted TCP transport; when the peer
does not read, the kernel's socket buffer fills and Twisted keeps the rest in user space, without
limit: 30 sockets that never read can hold 58.6 MB that way and grow daphne from 183 to 214 MiB
in 115 s.  A legitimate backlog is tiny (a full snapshot is a few KB), so a socket whose unsent
output passes ``CAISHEN_SOCKET_SEND_BUFFER`` bytes (default 1 MiB) is aborted: a close frame
could never reach a peer that does not read, so the TCP connection is simply reset.  The
consumer then gets its ``websocket.disconnect`` as for any lost connection, and the client may
reconnect and receive a fresh snapshot (docs/protocol.md, "Limits").

How: Twisted's own high-water mark.  A transport (``FileDescriptor``) calls
``pauseProducing()`` on its registered streaming producer as soon as a ``write`` leaves more than
``transport.bufferSize`` bytes buffered.  Each WebSocket's transport gets ``bufferSize`` = the
bound and a producer whose ``pauseProducing`` aborts the connection.  The producer that was
registered (daphne's HTTP channel, still attached after the upgrade) keeps receiving every
pause/resume/stop, so its behaviour is unchanged.  Only public Twisted interfaces are used
(``bufferSize``, ``registerProducer``/``unregisterProducer``, ``producer``,
``streamingProducer``, ``abortConnection``).

A client that reads a trickle never passes that bound: the kernel's send queue (which grows to
megabytes per socket: 20 non-reading sockets held 32 MB of it in 50 s) absorbs what it is sent.
So each WebSocket is also watched (:class:`StallWatch`): its unsent bytes, daphne's buffer plus
the kernel's queue (``SIOCOUTQ``, Linux; elsewhere daphne's alone), are read every quarter of
``CAISHEN_SOCKET_STALL_SECONDS`` (within 0.25 to 5 s), and a socket found above
``CAISHEN_SOCKET_STALL_BYTES`` (64 KiB) at every reading for that long (20 s) is reset the same
way, with one ``socket dropped: unsent output stalled`` warning.  A reading client drains its
queue within a round trip, so it is never above the mark that long.

The one hook into daphne: daphne offers no option to extend its WebSocket protocol, so
``install()`` points its ``WebSocketFactory.protocol`` (the class Twisted's factory builds for
each connection) at a subclass that applies the bound in ``connectionMade``.  ``install()``
checks daphne still looks as expected and raises at start-up if not
(tests/platform/test_socket_send_bound.py covers the hook end to end).
"""

from __future__ import annotations

import fcntl
import logging
import struct
import termios
from typing import Any, cast

from daphne import ws_protocol  # importing it starts no reactor (daphne.server does)
from daphne.ws_protocol import WebSocketProtocol
from django.conf import settings
from twisted.internet import interfaces
from twisted.internet.abstract import FileDescriptor
from zope.interface import implementer

from core.config import CaishenConfig

log = logging.getLogger("caishen.socket")

DEFAULT_BOUND = CaishenConfig.socket_send_buffer  # until install() reads the setting
# Twisted's own default high-water mark.  A smaller bound would drop healthy clients: a write is
# buffered before the kernel is even tried, so one burst of ordinary frames can pass it.
MINIMUM_BOUND = 64 * 1024


def bound_from_settings() -> int:
    """``CAISHEN_SOCKET_SEND_BUFFER`` in bytes; 0 turns the bound off.  A value between 1 and
    MINIMUM_BOUND is a mistake, refused at start-up."""
    bound = int(settings.CAISHEN_SOCKET_SEND_BUFFER)
    if 0 < bound < MINIMUM_BOUND:
        raise ValueError(
            f"CAISHEN_SOCKET_SEND_BUFFER must be 0 (no bound) or at least {MINIMUM_BOUND} bytes, not {bound}"
        )
    return bound


@implementer(interfaces.IPushProducer)
class SendBound:
    """The streaming producer registered on one WebSocket's transport: the transport pauses it
    when its write buffer passes ``bufferSize`` (the bound), and that aborts the connection."""

    def __init__(self, protocol: Any, bound: int, previous: Any) -> None:
        self.protocol = protocol
        self.bound = bound
        self.previous = previous  # the producer registered before (daphne's HTTP channel) or None
        self.tripped = False

    def pauseProducing(self) -> None:  # noqa: N802 (Twisted's interface)
        if self.previous is not None:
            self.previous.pauseProducing()
        # Writes go on until the reactor runs connectionLost (abortConnection schedules it for
        # the next turn), and each one past the mark pauses again: abort and log only once.
        if self.tripped:
            return
        self.tripped = True
        log.warning(
            "socket dropped: unsent output over the bound", extra={**_where(self.protocol), "bound": self.bound}
        )
        self.protocol.transport.abortConnection()

    def resumeProducing(self) -> None:  # noqa: N802
        if self.previous is not None:
            self.previous.resumeProducing()

    def stopProducing(self) -> None:  # noqa: N802
        if self.previous is not None:
            self.previous.stopProducing()


def _where(protocol: Any) -> dict[str, Any]:
    """The log line's fields: daphne's client address (behind a proxy, the forwarded one when
    daphne is told the header) and the socket's path (its table)."""
    client = getattr(protocol, "client_addr", None)
    path = getattr(protocol, "path", b"")
    return {
        "client": ":".join(str(part) for part in client) if client else None,
        "path": path.decode("ascii", "replace") if isinstance(path, bytes) else None,
    }


_skipped: set[str] = set()  # transport types already reported as left unbounded (log once each)


def apply_bound(protocol: Any, bound: int) -> bool:
    """Bound ``protocol.transport``'s write buffer to ``bound`` bytes; True if it was applied."""
    transport = protocol.transport
    # TLS served by daphne itself (an ssl: endpoint) wraps the TCP transport in a protocol that
    # buffers on its own terms: the bound is not applied there (deployments end TLS at the HTTPS
    # proxy in front).  Nor over a producer that is not a streaming one (none is, today).
    if not isinstance(transport, FileDescriptor) or (
        transport.producer is not None and not transport.streamingProducer
    ):
        kind = type(transport).__name__
        if kind not in _skipped:
            _skipped.add(kind)
            log.warning("socket send bound not applied to this transport", extra={"transport": kind})
        return False
    previous = transport.producer
    if previous is not None:
        transport.unregisterProducer()
    transport.bufferSize = bound
    # (SendBound provides IPushProducer through @implementer, which mypy does not see.)
    producer = cast(interfaces.IPushProducer, SendBound(protocol, bound, previous))
    transport.registerProducer(producer, True)
    return True


# Linux's ioctl for a TCP socket's bytes not yet acknowledged by the peer (SIOCOUTQ, which is
# TIOCOUTQ's number); None where the platform has no such call.
_OUTQ: int | None = getattr(termios, "TIOCOUTQ", None)


def kernel_unsent(transport: Any) -> int:
    """Bytes the kernel still holds for the peer (0 when it cannot tell)."""
    if _OUTQ is None:
        return 0
    try:
        raw = fcntl.ioctl(transport.fileno(), _OUTQ, b"\0\0\0\0")
    except (OSError, ValueError, AttributeError):  # closed meanwhile, or not a socket
        return 0
    return int(struct.unpack("i", raw)[0])


def daphne_unsent(transport: Any) -> int:
    """Bytes Twisted buffers for the transport, not yet handed to the kernel."""
    buffered = len(getattr(transport, "dataBuffer", b"")) - int(getattr(transport, "offset", 0))
    return max(0, buffered) + int(getattr(transport, "_tempDataLen", 0))


def unsent_bytes(transport: Any) -> int:
    return daphne_unsent(transport) + kernel_unsent(transport)


def stall_from_settings() -> tuple[int, float]:
    """(``CAISHEN_SOCKET_STALL_BYTES``, ``CAISHEN_SOCKET_STALL_SECONDS``); 0 seconds: not watched."""
    return int(settings.CAISHEN_SOCKET_STALL_BYTES), float(settings.CAISHEN_SOCKET_STALL_SECONDS)


class StallWatch:
    """Reads one WebSocket's unsent bytes now and then; resets it once they have stayed above
    ``mark`` at every reading for ``seconds``.  One timer per socket, re-armed, stopped with it."""

    def __init__(self, protocol: Any, mark: int, seconds: float, clock: Any = None, measure: Any = None) -> None:
        self.protocol = protocol
        self.mark = mark
        self.seconds = seconds
        self.every = min(5.0, max(0.25, seconds / 4))
        if clock is None:
            # Imported here, not above: importing the reactor installs one, and daphne must have
            # installed its own (asyncio) reactor first; by the time a socket connects it has.
            from twisted.internet import reactor

            clock = reactor
        # Twisted's IReactorTime and IDelayedCall (zope interfaces, which mypy cannot check).
        self.clock: Any = clock
        self.measure = measure if measure is not None else unsent_bytes
        self.above_since: float | None = None
        self.call: Any = None
        self.tripped = False

    def start(self) -> None:
        self.call = self.clock.callLater(self.every, self.check)

    def stop(self) -> None:
        if self.call is not None and self.call.active():
            self.call.cancel()
        self.call = None

    def check(self) -> None:
        self.call = None
        now = self.clock.seconds()
        unsent = self.measure(self.protocol.transport)
        if unsent <= self.mark:
            self.above_since = None
        elif self.above_since is None:
            self.above_since = now
        elif now - self.above_since >= self.seconds:
            self.tripped = True
            log.warning(
                "socket dropped: unsent output stalled",
                extra={**_where(self.protocol), "unsent": unsent, "mark": self.mark, "seconds": self.seconds},
            )
            # A close frame would wait behind the unread bytes for good: reset the connection.
            self.protocol.transport.abortConnection()
            return
        self.start()


class BoundedWebSocketProtocol(WebSocketProtocol):
    """daphne's WebSocket protocol, its transport's unsent output bounded to ``send_buffer_bound``
    and watched for a stall (``stall_bytes`` for ``stall_seconds``)."""

    send_buffer_bound = DEFAULT_BOUND  # install() sets these from the settings
    stall_bytes = CaishenConfig.socket_stall_bytes
    stall_seconds = CaishenConfig.socket_stall_seconds
    stall_watch: StallWatch | None = None

    def connectionMade(self) -> None:  # noqa: N802 (Twisted's name)
        super().connectionMade()
        # daphne hands the upgraded HTTP connection's transport over with makeConnection: this
        # runs once per WebSocket, before the handshake's response is written.
        applied = apply_bound(self, self.send_buffer_bound) if self.send_buffer_bound else False
        if self.stall_seconds > 0 and (applied or isinstance(self.transport, FileDescriptor)):
            self.stall_watch = StallWatch(self, self.stall_bytes, self.stall_seconds)
            self.stall_watch.start()

    def connectionLost(self, reason: Any) -> None:  # noqa: N802
        if self.stall_watch is not None:
            self.stall_watch.stop()
        super().connectionLost(reason)


def install() -> int:
    """Bound and watch every WebSocket daphne accepts from now on (call once, when daphne imports
    the ASGI application: before it builds its factories).  Returns the byte bound, 0 when turned
    off; daphne's own protocol stays in place only when the stall watch is off too.

    Raises RuntimeError when daphne's WebSocket factory is not what this was written against
    (daphne 4.x: ``daphne.ws_protocol.WebSocketFactory.protocol`` is ``WebSocketProtocol``, and
    Twisted's factory builds one per connection from that attribute).
    """
    bound = bound_from_settings()
    current = getattr(ws_protocol.WebSocketFactory, "protocol", None)
    if current is BoundedWebSocketProtocol:
        current = WebSocketProtocol  # installed before (asgi.py imported again): set the bound anew
    if current is not WebSocketProtocol:
        raise RuntimeError(
            f"daphne's WebSocketFactory.protocol is {current!r}, not daphne.ws_protocol.WebSocketProtocol: "
            "daphne changed or something else replaced it; mahjong_platform/socket_limits.py must be "
            "revisited (CAISHEN_SOCKET_SEND_BUFFER)"
        )
    stall_bytes, stall_seconds = stall_from_settings()
    BoundedWebSocketProtocol.send_buffer_bound = bound
    BoundedWebSocketProtocol.stall_bytes = stall_bytes
    BoundedWebSocketProtocol.stall_seconds = stall_seconds
    watched = bool(bound) or stall_seconds > 0
    ws_protocol.WebSocketFactory.protocol = BoundedWebSocketProtocol if watched else WebSocketProtocol
    return bound
