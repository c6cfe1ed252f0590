"""The embedded mode's channel layer: Channels' in-memory layer without its per-message sweep.

``channels.layers.InMemoryChannelLayer`` walks *every* channel and group looking for expired
messages on each ``receive`` and ``group_send``.  With one socket per seat that is O(sockets)
work per frame, O(sockets²) per second: at 200 tables (800 sockets, ~1300 frames/s) the sweep
alone costs more than the game (docs/performance.md).  Expiry here is a safety net for frames
nobody reads, so sweeping once a second keeps its meaning at a fraction of the cost.

Its ``group_send`` also started one task per member channel and awaited them through
``asyncio.as_completed`` — for groups of one socket (a seat) — and ``send`` deep-copied every
message; the fan-out's messages are flat (a type and the frame's text), so a flat copy isolates
receivers just as well.  Both are done directly here, with the same outcome: every member gets
its own copy, a full channel drops the message for that channel only.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from copy import deepcopy
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer

_FLAT = (str, int, float, bool, type(None))


class EmbeddedChannelLayer(InMemoryChannelLayer):  # type: ignore[misc]
    """In-memory layer for the single embedded daphne process; expiry swept at most once per interval."""

    def __init__(self, *args: Any, sweep_interval: float = 1.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sweep_interval = sweep_interval
        self._last_sweep = 0.0

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._last_sweep < self.sweep_interval:
            return
        self._last_sweep = now
        super()._clean_expired()

    def _put(self, channel: str, message: dict[str, Any]) -> None:
        """``send`` without the coroutine: a copy of the message onto the channel's queue."""
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        flat = all(isinstance(v, _FLAT) for v in message.values())
        try:
            queue.put_nowait((time.time() + self.expiry, dict(message) if flat else deepcopy(message)))
        except asyncio.QueueFull:
            raise ChannelFull(channel) from None

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        assert "__asgi_channel__" not in message
        self._put(channel, message)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        for channel in list(self.groups.get(group, {})):
            # As Channels' layer: a full channel misses this message (its client resyncs on the gap).
            with contextlib.suppress(ChannelFull):
                self._put(channel, message)
