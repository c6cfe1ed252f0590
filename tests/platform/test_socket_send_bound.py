"""Clients that never read are dropped: each WebSocket's unsent output is
bounded by CAISHEN_SOCKET_SEND_BUFFER (mahjong_platform/socket_limits.py).

A real daphne process (embedded mode, a temporary SQLite database, the bound at 256 KiB) serves
a table of four bots playing fast, watched by a client that reads everything.  Then:

1. *Watchers that never read*: sockets complete the WebSocket handshake, watch the table and ask
   for a snapshot now and then (``resync``), but never read what they are sent.  Each must be
   reset by the server once its backlog passes the bound.
2. *A ping flood that never reads the pongs*: the cheapest way to make daphne write (autobahn
   answers every WebSocket ping itself), so an unbounded server grows by tens of MB in seconds.

The non-readers announce a small MSS and receive buffer: on loopback the server's kernel send
buffer otherwise grows to MBs per socket (it scales with the peer's 64 KB MSS) and would hide the
backlog from daphne for a long time.  Throughout, daphne's resident memory (VmRSS) must stay
within RSS_ALLOWANCE_MB of its start, the reading watcher must keep getting the table's updates
and still answer a resync at the end, and /healthz must stay green.

With the bound each phase ends within seconds and daphne's peak was +0.4 MB (watchers) and
+7.1 MB (pings) over its start.  Without it (asgi.py not installing it) no socket is ever reset:
the watchers had grown daphne by 21 MB when their 40 s ran out, and the ping flood took it to
+56 MB.  The run is ``flood()``; repeat it by hand with ``bound=0`` (no bound):

    python -c "from tests.platform.test_socket_send_bound import flood; import tempfile, pathlib; \
print(flood(pathlib.Path(tempfile.mkdtemp()), bound=0))"
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from twisted.internet.abstract import FileDescriptor
from twisted.internet.interfaces import IPushProducer
from zope.interface import implementer

from mahjong_platform import socket_limits
from tests.daphne_process import free_port, isolated_env, running_daphne, wait_http

ROOT = Path(__file__).resolve().parents[2]
BOUND = 256 * 1024  # bytes: the test server's CAISHEN_SOCKET_SEND_BUFFER
RSS_ALLOWANCE_MB = 30.0  # daphne may grow this much over its start while the non-readers flood it
WATCHERS = 8  # phase 1: watchers that never read
WATCH_SECONDS = 40.0  # phase 1 ends by then whatever happens (each is dropped in seconds)
RESYNC_EVERY = 0.25  # seconds: each non-reading watcher asks for a snapshot this often
PINGERS = 10  # phase 2: ping floods that never read the pongs
PING_SECONDS = 30.0  # phase 2 ends by then whatever happens (each is dropped within a few seconds)
TICK = 0.02
# What the non-readers announce: the server's kernel send buffer stays ~100 KB per socket.
RCVBUF = 4096
MSS = 1000

SETUP = """
import json
from django.contrib.auth import get_user_model
from django.core.management import call_command
from games import services
call_command("migrate", "--noinput", verbosity=0)
owner = get_user_model().objects.create_user("owner", password="pw-bound-123456")
table = services.create_table(owner, "zhejiang_caishen", {}, stake=1, hands_total=64)
services.add_bots(table.pk, owner)  # four ready bots: the match starts
print("RESULT " + json.dumps(table.pk))
"""


def server_env(tmp: Path, bound: int, **extra: str) -> dict[str, str]:
    return isolated_env(
        tmp / "bound.sqlite3",
        tmp,
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_STATIC_ROOT=str(tmp / "static"),
        DJANGO_LOG_LEVEL="WARNING",  # the drop is a warning; a line per hand step would be noise
        CAISHEN_TIMERS="inprocess",
        CAISHEN_SWEEP_SECONDS="0.5",  # wakes the bots' first deadline, set before daphne ran
        # Four bots playing fast, watched live: ~50 update frames a second to every watcher.
        CAISHEN_BOT_DELAY="0.02",
        CAISHEN_DISCARD_PAUSE="0.02",
        CAISHEN_BETWEEN_HANDS_SECONDS="0.2",
        CAISHEN_SPECTATOR_DELAY="0",
        CAISHEN_SOCKET_SEND_BUFFER=str(bound),
        **extra,
    )


@contextmanager
def daphne(tmp: Path, env: dict[str, str]) -> Iterator[tuple[subprocess.Popen[bytes], int, int, Path]]:
    """Migrate, make the bots' table, run daphne on a free port; yields (process, port, table,
    log).  daphne is terminated (killed if need be) on the way out."""
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", SETUP],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    table = int(json.loads(done.stdout.split("RESULT ", 1)[1]))
    port = free_port()
    log = tmp / "daphne.log"
    with running_daphne(env, port, log) as proc:
        wait_http(f"http://127.0.0.1:{port}/healthz", proc, log)
        yield proc, port, table, log


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def client_frame(opcode: int, payload: bytes) -> bytes:
    """One masked frame (a client must mask: RFC 6455 5.3) with a payload under 126 bytes."""
    assert len(payload) < 126
    mask = os.urandom(4)
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


RESYNC = client_frame(0x1, b'{"type": "resync"}')
PINGS = client_frame(0x9, b"p" * 125) * 500  # 65 KB of pings; the server answers each with a pong


def open_non_reader(port: int, table: int) -> socket.socket:
    """A socket that completes the WebSocket handshake as a watcher of ``table``, then never reads."""
    return handshake(port, table)[0]


def handshake(port: int, table: int) -> tuple[socket.socket, bytes]:
    """:func:`open_non_reader`'s socket, and what the server sent after the handshake's head
    in the reads that found it (the first frames, when they came with it)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # Before connect: they set the window and the MSS this end announces.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, MSS)
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws/table/{table}/?v=2 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: http://127.0.0.1:{port}\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:  # the response's head; whatever follows it stays unread
        chunk = sock.recv(1024)
        assert chunk, f"closed during the handshake: {head!r}"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head[:200]
    sock.settimeout(0.5)  # a send into a full socket must not hang the flood
    return sock, head.split(b"\r\n\r\n", 1)[1]


@dataclass
class Reader:
    """A watcher that reads everything, on a thread: it must be served through the floods."""

    url: str
    origin: str
    updates: int = 0
    snapshots: int = 0
    error: BaseException | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    ws: Any = None

    def run(self) -> None:
        from websockets.sync.client import connect

        try:
            with connect(self.url, origin=self.origin, open_timeout=10, ping_interval=None) as ws:  # type: ignore[arg-type]
                self.ws = ws
                while not self.stop.is_set():
                    try:
                        kind = json.loads(ws.recv(timeout=0.5)).get("type")
                    except TimeoutError:
                        continue
                    self.updates += kind in ("update", "delta")  # a step's frame
                    self.snapshots += kind == "snapshot"
        except BaseException as exc:  # reported by the test, not lost with the thread
            self.error = exc


@dataclass
class Phase:
    sockets: int
    dropped: int  # sockets the server reset
    seconds: float  # until the last was reset, or the phase's time ran out
    rss_before: float  # daphne's memory when the phase began, MB over the start of the floods
    rss_peak: float  # its highest during the phase, MB over the start of the floods


@dataclass
class Flood:
    rss_start: float  # MB
    watchers: Phase
    pingers: Phase
    drops_logged: int
    reader_updates: int  # frames the reading watcher got while the non-readers flooded
    reader_error: str | None
    reader_resync_answered: bool
    healthy_after: bool


def _phase(
    proc: subprocess.Popen[bytes],
    socks: list[socket.socket],
    payload: bytes,
    every: float,
    limit: float,
    rss_start: float,
) -> Phase:
    """Send ``payload`` down every socket each ``every`` seconds, never reading, until the server
    has reset them all or ``limit`` seconds passed; sample daphne's memory all along."""
    alive = set(range(len(socks)))
    before = peak = rss_mb(proc.pid)
    started = time.monotonic()
    next_send = started
    while alive and time.monotonic() - started < limit:
        if time.monotonic() >= next_send:
            next_send += every
            for i in list(alive):
                try:
                    socks[i].sendall(payload)
                except TimeoutError:
                    pass  # daphne is busy: again next time
                except OSError:  # ECONNRESET / EPIPE: the server reset it
                    alive.discard(i)
        peak = max(peak, rss_mb(proc.pid))
        time.sleep(TICK)
    seconds = time.monotonic() - started
    peak = max(peak, rss_mb(proc.pid))
    for s in socks:
        s.close()
    return Phase(
        len(socks), len(socks) - len(alive), round(seconds, 2), round(before - rss_start, 1), round(peak - rss_start, 1)
    )


def flood(tmp: Path, bound: int = BOUND) -> Flood:
    env = server_env(tmp, bound)
    with daphne(tmp, env) as (proc, port, table, log):
        base = f"http://127.0.0.1:{port}"
        reader = Reader(f"ws://127.0.0.1:{port}/ws/table/{table}/?v=2", base)
        thread = threading.Thread(target=reader.run, daemon=True)
        thread.start()
        try:
            # The bots are playing once the reader gets updates (the sweeper wakes their first turn).
            until = time.monotonic() + 30
            while reader.updates < 20 and reader.error is None and time.monotonic() < until:
                time.sleep(0.1)
            assert reader.updates >= 20, f"the bots' table does not play: {reader.error!r}\n{log.read_text()[-3000:]}"
            time.sleep(1)  # the reader's connection settled
            rss_start = rss_mb(proc.pid)
            updates_before = reader.updates

            watchers = _phase(
                proc,
                [open_non_reader(port, table) for _ in range(WATCHERS)],
                RESYNC,
                RESYNC_EVERY,
                WATCH_SECONDS,
                rss_start,
            )
            pingers = _phase(
                proc, [open_non_reader(port, table) for _ in range(PINGERS)], PINGS, TICK, PING_SECONDS, rss_start
            )
            reader_updates = reader.updates - updates_before

            # The reader is still served: a resync is answered with a snapshot.
            answered = False
            if reader.error is None and reader.ws is not None:
                before = reader.snapshots
                reader.ws.send(json.dumps({"type": "resync"}))
                until = time.monotonic() + 10
                while reader.snapshots == before and time.monotonic() < until:
                    time.sleep(0.05)
                answered = reader.snapshots > before
        finally:
            reader.stop.set()
            thread.join(timeout=5)
        with urllib.request.urlopen(f"{base}/healthz", timeout=10) as res:
            healthy = res.status == 200
        # One warning per dropped socket, with the bound daphne took from CAISHEN_SOCKET_SEND_BUFFER.
        lines = log.read_text(errors="replace").splitlines()
        drops = sum("socket dropped" in line and f"bound={bound}" in line for line in lines)
    return Flood(
        rss_start=round(rss_start, 1),
        watchers=watchers,
        pingers=pingers,
        drops_logged=drops,
        reader_updates=reader_updates,
        reader_error=None if reader.error is None else repr(reader.error),
        reader_resync_answered=answered,
        healthy_after=healthy,
    )


@pytest.mark.slow
def test_sockets_that_never_read_are_dropped_and_memory_stays_bounded(tmp_path: Path) -> None:
    got = flood(tmp_path)
    print(got)  # the figures, for -s
    assert got.watchers.dropped == WATCHERS, got
    assert got.pingers.dropped == PINGERS, got
    assert got.drops_logged == WATCHERS + PINGERS, got  # one line per dropped socket
    assert got.watchers.rss_peak < RSS_ALLOWANCE_MB, got
    assert got.pingers.rss_peak < RSS_ALLOWANCE_MB, got
    # The reading watcher was served all along and still is; the server is healthy.
    assert got.reader_error is None, got
    assert got.reader_updates > 0, got
    assert got.reader_resync_answered, got
    assert got.healthy_after, got


# -- the mechanism, in process: a Twisted transport with the bound applied -------------------------


class FakeTransport(FileDescriptor):
    """A connected FileDescriptor whose writes stay buffered (the peer does not read)."""

    connected = 1

    def __init__(self) -> None:
        super().__init__(reactor=cast(Any, object()))
        self.aborted = 0

    def startWriting(self) -> None:  # the reactor would call doWrite; the peer's window is shut
        pass

    def stopWriting(self) -> None:
        pass

    def stopReading(self) -> None:
        pass

    def abortConnection(self) -> None:
        self.aborted += 1


@implementer(IPushProducer)
class Recorder:
    """Stands for daphne's HTTP channel, the producer registered before the bound."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def pauseProducing(self) -> None:
        self.calls.append("pause")

    def resumeProducing(self) -> None:
        self.calls.append("resume")

    def stopProducing(self) -> None:
        self.calls.append("stop")


def test_a_transport_past_its_bound_is_aborted_once_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    transport, before = FakeTransport(), Recorder()
    transport.registerProducer(cast(Any, before), True)
    protocol = SimpleNamespace(transport=transport, client_addr=["203.0.113.9", 51000], path=b"/ws/table/7/")
    assert socket_limits.apply_bound(protocol, 100_000)
    assert transport.bufferSize == 100_000

    transport.write(b"x" * 60_000)
    transport.write(b"x" * 40_000)  # exactly the bound: still within it
    assert transport.aborted == 0 and not caplog.records
    transport.write(b"x")
    assert transport.aborted == 1
    transport.write(b"x" * 10_000)  # before the reactor runs connectionLost: no second abort, no second line
    assert transport.aborted == 1
    dropped = [r for r in caplog.records if r.name == "caishen.socket"]
    assert [r.getMessage() for r in dropped] == ["socket dropped: unsent output over the bound"]
    assert (dropped[0].client, dropped[0].path, dropped[0].bound) == ("203.0.113.9:51000", "/ws/table/7/", 100_000)  # type: ignore[attr-defined]

    # The producer registered before still hears everything the transport says.
    transport.connectionLost(cast(Any, None))
    assert before.calls == ["pause", "pause", "stop"]


def test_a_transport_that_is_not_a_file_descriptor_is_left_alone_with_one_warning(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(socket_limits, "_skipped", set())
    for _ in range(3):
        assert not socket_limits.apply_bound(SimpleNamespace(transport=object()), 100_000)
    assert [r.getMessage() for r in caplog.records] == ["socket send bound not applied to this transport"]


# -- installing: the bound from the settings, daphne checked at start-up ------------------------------


@pytest.fixture
def factory(monkeypatch: pytest.MonkeyPatch) -> Any:
    """daphne's WebSocket factory class, its protocol attribute restored after the test."""
    from daphne import ws_protocol

    monkeypatch.setattr(ws_protocol.WebSocketFactory, "protocol", ws_protocol.WebSocketProtocol)
    for name in ("send_buffer_bound", "stall_bytes", "stall_seconds"):
        monkeypatch.setattr(
            socket_limits.BoundedWebSocketProtocol, name, getattr(socket_limits.BoundedWebSocketProtocol, name)
        )
    return ws_protocol.WebSocketFactory


def test_install_bounds_daphnes_sockets_by_the_setting_or_not_at_all(factory: Any, settings: Any) -> None:
    from daphne.ws_protocol import WebSocketProtocol

    settings.CAISHEN_SOCKET_SEND_BUFFER = 300_000
    assert socket_limits.install() == 300_000
    assert factory.protocol is socket_limits.BoundedWebSocketProtocol
    assert issubclass(factory.protocol, WebSocketProtocol)
    assert factory.protocol.send_buffer_bound == 300_000
    settings.CAISHEN_SOCKET_SEND_BUFFER = 0  # installed again (asgi.py imported again): no byte bound,
    assert socket_limits.install() == 0
    assert factory.protocol is socket_limits.BoundedWebSocketProtocol  # but still watched for a stall
    settings.CAISHEN_SOCKET_STALL_SECONDS = 0  # both off: daphne's own protocol
    assert socket_limits.install() == 0
    assert factory.protocol is WebSocketProtocol
    settings.CAISHEN_SOCKET_SEND_BUFFER = 1000
    with pytest.raises(ValueError, match="at least 65536"):
        socket_limits.install()


def test_install_fails_loudly_when_daphnes_factory_is_not_as_expected(factory: Any, settings: Any) -> None:
    settings.CAISHEN_SOCKET_SEND_BUFFER = 300_000

    class Other(factory.protocol):  # type: ignore[misc,name-defined]
        pass

    for unexpected in (Other, None):  # someone else's protocol class; a daphne that builds its own way
        factory.protocol = unexpected
        with pytest.raises(RuntimeError, match="socket_limits.py must be revisited"):
            socket_limits.install()


def test_the_asgi_application_installs_it_as_daphne_loads_it() -> None:
    """Importing mahjong_platform.asgi (what daphne does) bounds daphne's WebSocket protocol, by
    default to 1 MiB (the flood test above runs a daphne with the variable set)."""
    code = (
        "import mahjong_platform.asgi\n"
        "from daphne.ws_protocol import WebSocketFactory\n"
        "print(WebSocketFactory.protocol.__name__, WebSocketFactory.protocol.send_buffer_bound)"
    )
    env = {k: v for k, v in os.environ.items() if k != "CAISHEN_SOCKET_SEND_BUFFER"}
    env["DJANGO_SETTINGS_MODULE"] = "mahjong_platform.settings"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == f"BoundedWebSocketProtocol {1024 * 1024}"


# -- a stalled socket is closed after CAISHEN_SOCKET_STALL_SECONDS, whatever its byte count -------------


def test_a_socket_above_the_stall_mark_at_every_reading_for_the_time_is_reset_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from twisted.internet.task import Clock

    clock, transport = Clock(), FakeTransport()
    unsent = [0]
    protocol = SimpleNamespace(transport=transport, client_addr=["203.0.113.9", 51000], path=b"/ws/table/7/")
    watch = socket_limits.StallWatch(protocol, 1000, 4.0, clock=clock, measure=lambda _t: unsent[0])
    assert watch.every == 1.0  # a quarter of the time
    watch.start()

    # Above the mark now and then, draining in between (a reading client): never reset.
    for second in range(20):
        unsent[0] = 5000 if second % 3 else 0
        clock.advance(1)
    unsent[0] = 0
    clock.advance(1)
    assert transport.aborted == 0

    # Above it at every reading: reset once the time has passed since the first such reading.
    unsent[0] = 1001
    clock.advance(1)  # the first reading above it
    clock.advance(3)
    assert transport.aborted == 0
    clock.advance(1)
    assert transport.aborted == 1 and watch.tripped
    clock.advance(10)
    assert transport.aborted == 1 and not clock.getDelayedCalls()  # stopped watching
    stalled = [r for r in caplog.records if r.name == "caishen.socket"]
    assert [r.getMessage() for r in stalled] == ["socket dropped: unsent output stalled"]
    assert (stalled[0].client, stalled[0].unsent, stalled[0].mark) == ("203.0.113.9:51000", 1001, 1000)  # type: ignore[attr-defined]


def test_a_stopped_watch_leaves_nothing_scheduled() -> None:
    from twisted.internet.task import Clock

    clock = Clock()
    protocol = SimpleNamespace(transport=FakeTransport())
    watch = socket_limits.StallWatch(protocol, 1000, 20.0, clock=clock, measure=lambda _t: 10**6)
    assert watch.every == 5.0  # at most every 5 s
    watch.start()
    watch.stop()
    assert not clock.getDelayedCalls()


def test_unsent_bytes_count_daphnes_buffer_and_the_kernels_queue() -> None:
    server, client = socket.socketpair()
    try:
        client.setblocking(False)
        server.setblocking(False)
        sent = 0
        try:
            while sent < 4 * 1024 * 1024:  # fill the kernel's queue: the peer never reads
                sent += server.send(b"x" * 65536)
        except BlockingIOError:
            pass
        transport = SimpleNamespace(fileno=server.fileno, dataBuffer=b"y" * 500, offset=100, _tempDataLen=50)
        kernel = socket_limits.kernel_unsent(transport)
        if socket_limits._OUTQ is not None:
            assert kernel > 0
        assert socket_limits.unsent_bytes(transport) == 450 + kernel
    finally:
        server.close()
        client.close()


STALL_MARK = 16 * 1024  # bytes: the stall test server's CAISHEN_SOCKET_STALL_BYTES
STALL_SECONDS = 2.0
PER_ADDRESS = 4
CLOSE_TOO_MANY = (4429).to_bytes(2, "big")


def read_frames(opened: tuple[socket.socket, bytes], count: int, timeout: float = 10) -> list[tuple[int, bytes]]:
    """Up to ``count`` server frames (opcode, payload) of a socket :func:`handshake` opened,
    stopping after a close frame."""
    sock, buffer = opened
    sock.settimeout(timeout)

    def need(n: int) -> bytes:
        nonlocal buffer
        while len(buffer) < n:
            chunk = sock.recv(65536)
            assert chunk, "the server closed the connection"
            buffer += chunk
        out, buffer = buffer[:n], buffer[n:]
        return out

    frames: list[tuple[int, bytes]] = []
    while len(frames) < count:
        first, second = need(2)
        length = second & 0x7F
        if length == 126:
            length = int.from_bytes(need(2), "big")
        elif length == 127:
            length = int.from_bytes(need(8), "big")
        frames.append((first & 0x0F, need(length)))
        if first & 0x0F == 0x8:
            break
    return frames


@pytest.mark.slow
def test_sockets_per_address_are_capped_and_stalled_sockets_are_closed(tmp_path: Path) -> None:
    """A real daphne: an address's socket past CAISHEN_SOCKETS_PER_ADDRESS is refused with 4429;
    sockets that never read are reset after CAISHEN_SOCKET_STALL_SECONDS though their unsent
    output stays far below CAISHEN_SOCKET_SEND_BUFFER; and their places are free again."""
    env = server_env(
        tmp_path,
        8 * 1024 * 1024,  # far above what the non-readers queue in the test's time
        CAISHEN_SOCKET_STALL_BYTES=str(STALL_MARK),
        CAISHEN_SOCKET_STALL_SECONDS=str(STALL_SECONDS),
        CAISHEN_SOCKETS_PER_ADDRESS=str(PER_ADDRESS),
    )
    with daphne(tmp_path, env) as (proc, port, table, log):
        socks = [open_non_reader(port, table) for _ in range(PER_ADDRESS)]
        refused = handshake(port, table)
        frames = read_frames(refused, 2)
        refused[0].close()
        assert frames[0][0] == 0x1 and json.loads(frames[0][1])["code"] == "too_many_sockets_per_address", frames
        assert frames[1] == (0x8, CLOSE_TOO_MANY), frames

        got = _phase(proc, socks, RESYNC, RESYNC_EVERY, 30.0, rss_mb(proc.pid))
        assert got.dropped == PER_ADDRESS, got
        assert got.seconds < 20, got  # the stall time and the readings, not the byte bound

        # Their places were given back: the address may open as many again, and no more.
        time.sleep(0.5)
        again = [handshake(port, table) for _ in range(PER_ADDRESS)]
        first = read_frames(again[0], 1)[0]
        assert first[0] == 0x1 and json.loads(first[1])["type"] == "snapshot"
        extra = handshake(port, table)
        assert read_frames(extra, 2)[1] == (0x8, CLOSE_TOO_MANY)
        for sock, _rest in [*again, extra]:
            sock.close()

        lines = log.read_text(errors="replace").splitlines()
        assert sum("unsent output stalled" in line for line in lines) >= PER_ADDRESS, lines[-20:]
        assert not any("unsent output over the bound" in line for line in lines), lines[-20:]
