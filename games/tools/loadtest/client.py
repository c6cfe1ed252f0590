"""Socket clients that play like people and measure the latency of every action they send.

Each seat is one WebSocket.  On a frame offering it a decision the seat answers after a think
time (uniform in [0.5, 1.5] x ``think``), with a win if offered, else a discard, else a pass; like
the browser, it leaves a window where it can only pass to the server's uniform pause.
The latency of an action is the time from sending it to the arrival, at *all four* seats of the
table, of the update whose ``seq`` it produced (seq + 1).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

from games.tools.loadtest.setup import Seat
from games.wire.deltas import apply_delta, as_update, chains, state_of


@dataclass
class Stats:
    measure_from: float = float("inf")
    measure_to: float = float("inf")
    sent: int = 0
    refused: int = 0
    frames: int = 0
    errors: int = 0
    gaps: int = 0
    first_error: str = ""
    latencies: list[float] = field(default_factory=list)
    sent_at: list[float] = field(default_factory=list)  # each measured latency's action time (perf_counter)
    pending: dict[tuple[int, int], tuple[float, int]] = field(default_factory=dict)  # (hand, seq) -> (t0, arrivals)

    def acted(self, hand: int, seq: int, t0: float) -> None:
        self.sent += 1
        self.pending.setdefault((hand, seq + 1), (t0, 0))

    def arrived(self, hand: int, seq: int, now: float) -> None:
        key = (hand, seq)
        entry = self.pending.get(key)
        if entry is None:
            return
        t0, count = entry
        count += 1
        if count >= 4:
            del self.pending[key]
            if self.measure_from <= t0 < self.measure_to:
                self.latencies.append(now - t0)
                self.sent_at.append(t0)
        else:
            self.pending[key] = (t0, count)


def choose(legal: list[dict[str, Any]]) -> dict[str, Any]:
    for wanted in ("win", "discard", "pass"):
        for action in legal:
            if action.get("do") == wanted:
                return {k: v for k, v in action.items() if k != "seat"}
    return {k: v for k, v in legal[0].items() if k != "seat"}


HEARTBEAT_SECONDS = 10.0  # as the browser (static/js/net.js): a ping with the last seq seen


class SeatClient:
    def __init__(self, seat: Seat, url: str, origin: str, stats: Stats, think: float, rng: random.Random) -> None:
        self.seat, self.url, self.origin, self.stats, self.think, self.rng = seat, url, origin, stats, think, rng
        self.ws: Any = None
        self.latest: tuple[int, int] = (0, 0)
        self.acted_on: set[tuple[int, int]] = set()
        self.stopping = False
        self.opened = asyncio.Event()
        self.state: dict[str, Any] | None = None  # protocol v2: the whole state deltas apply to

    async def run(self) -> None:
        import websockets
        from websockets.typing import Origin

        for attempt in range(4):  # a busy server drops handshakes it cannot accept in time: retry
            try:
                async with websockets.connect(
                    f"{self.url}/ws/table/{self.seat.table}/?v=2",  # as the browser: delta frames
                    origin=Origin(self.origin),
                    additional_headers={"Cookie": f"sessionid={self.seat.cookie}"},
                    compression=None,
                    max_size=2**22,
                    open_timeout=60,
                    ping_interval=None,
                ) as ws:
                    self.ws = ws
                    self.opened.set()
                    beat = asyncio.ensure_future(self._heartbeat())
                    try:
                        async for raw in ws:
                            self.on_frame(json.loads(raw), time.perf_counter())
                    finally:
                        beat.cancel()
                return
            except Exception as exc:
                if self.stopping:
                    return
                if self.ws is not None or attempt == 3:
                    self.stats.errors += 1
                    self.stats.first_error = self.stats.first_error or f"{type(exc).__name__}: {exc}"
                    return
                await asyncio.sleep(1 + attempt)
            finally:
                if self.ws is not None or attempt == 3:
                    self.opened.set()

    def on_frame(self, frame: dict[str, Any], now: float) -> None:
        stats = self.stats
        stats.frames += 1
        kind = frame.get("type")
        if kind == "refused":
            stats.refused += 1
            return
        if kind == "delta":
            whole = self._applied(frame)
            if whole is None:
                return
            frame, kind = whole, "update"
        elif kind in ("update", "snapshot"):
            self.state = state_of(frame)
        hand = frame.get("hand")
        if kind not in ("update", "snapshot") or not hand:
            return
        key = (hand["id"], hand["seq"])
        if kind == "update":
            if key[0] == self.latest[0] and key[1] > self.latest[1] + 1:
                stats.gaps += 1
            stats.arrived(key[0], key[1], now)
        if key <= self.latest and kind == "update":
            return
        self.latest = max(self.latest, key)
        if self.stopping or hand.get("status") != "playing" or key in self.acted_on:
            return
        legal = (hand.get("view") or {}).get("legal_actions") or []
        if not legal or all(a.get("do") == "pass" for a in legal):
            return  # nothing to decide (a pass-only claim window passes by itself, as in the browser)
        self.acted_on.add(key)
        delay = self.think * (0.5 + self.rng.random())
        asyncio.get_running_loop().call_later(delay, self._act_soon, key, choose(legal))

    def _applied(self, delta: dict[str, Any]) -> dict[str, Any] | None:
        """A v2 delta as the whole update, as the browser makes it (static/js/net.js); one that
        does not chain on the state held is a gap: counted, and a resync asks for the rest."""
        held = (self.state or {}).get("hand") or {}
        if held.get("id") == delta["hand_id"] and held.get("seq", 0) >= delta["seq"]:
            return None  # already seen
        if not chains(self.state, delta):
            self.stats.gaps += 1
            if self.ws is not None:
                message = {"type": "resync", "hand": held.get("id"), "seq": held.get("seq")}
                asyncio.ensure_future(self.ws.send(json.dumps(message)))
            return None
        assert self.state is not None
        self.state = apply_delta(self.state, delta)
        return as_update(self.state, delta)

    def _act_soon(self, key: tuple[int, int], action: dict[str, Any]) -> None:
        if self.stopping or self.latest != key or self.ws is None:
            return  # the table moved on while we thought
        asyncio.ensure_future(self._send(key, action))

    async def _send(self, key: tuple[int, int], action: dict[str, Any]) -> None:
        t0 = time.perf_counter()
        self.stats.acted(key[0], key[1], t0)
        try:
            await self.ws.send(json.dumps({"type": "act", "hand": key[0], "seq": key[1], "action": action}))
        except Exception:
            if not self.stopping:
                self.stats.errors += 1

    async def _heartbeat(self) -> None:
        """The browser's heartbeat, so the server carries its load too (first one at a random
        point of the interval, as browsers opened at different times would)."""
        await asyncio.sleep(HEARTBEAT_SECONDS * self.rng.random())
        while not self.stopping and self.ws is not None:
            try:
                # Before any hand, null like the browser (static/js/net.js): a 0 asked the server
                # for a full snapshot on every heartbeat at a table still waiting to start.
                seq = self.latest[1] if self.latest != (0, 0) else None
                await self.ws.send(json.dumps({"type": "ping", "seq": seq}))
            except Exception:
                return
            await asyncio.sleep(HEARTBEAT_SECONDS)

    async def resync(self) -> None:
        if self.ws is not None:
            try:
                await self.ws.send('{"type": "resync"}')
            except Exception:
                self.stats.errors += 1

    async def close(self) -> None:
        self.stopping = True
        if self.ws is not None:
            await self.ws.close()


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]
