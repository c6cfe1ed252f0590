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

The one hook into daphne: daphne offers no option to extend its WebSocket protocol, so
``install()`` points its ``WebSocketFactory.protocol`` (the class Twisted's factory builds for
each connection) at a subclass that applies the bound in ``connectionMade``.  ``install()``
checks daphne still looks as expected and raises at start-up if not
(tests/platform/test_socket_send_bound.py covers the hook end to end).
"""

from __future__ import annotations

import logging
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


class BoundedWebSocketProtocol(WebSocketProtocol):
    """daphne's WebSocket protocol, its transport's unsent output bounded to ``send_buffer_bound``."""

    send_buffer_bound = DEFAULT_BOUND  # install() sets it from the settings

    def connectionMade(self) -> None:  # noqa: N802 (Twisted's name)
        super().connectionMade()
        # daphne hands the upgraded HTTP connection's transport over with makeConnection: this
        # runs once per WebSocket, before the handshake's response is written.
        apply_bound(self, self.send_buffer_bound)


def install() -> int:
    """Bound every WebSocket daphne accepts from now on (call once, when daphne imports the ASGI
    application: before it builds its factories).  Returns the bound, 0 when turned off.

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
    BoundedWebSocketProtocol.send_buffer_bound = bound
    ws_protocol.WebSocketFactory.protocol = BoundedWebSocketProtocol if bound else WebSocketProtocol
    return bound
