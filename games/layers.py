"""The embedded mode's channel layer: Channels' in-memory layer without its per-message sweep.

``channels.layers.InMemoryChannelLayer`` walks *every* channel and group looking for expired
messages on each ``receive`` and ``group_send``.  With one socket per seat that is O(sockets)
work per frame, O(sockets²) per second: at 200 tables (800 sockets, ~1300 frames/s) the sweep
alone costs more than the game (docs/performance.md).  Expiry here is a safety net for frames
nobody reads, so sweeping once a second keeps its meaning at a fraction of the cost.
"""

from __future__ import annotations

import time
from typing import Any

from channels.layers import InMemoryChannelLayer


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
