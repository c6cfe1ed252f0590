"""Waiting for a condition instead of sleeping for a guess.

A test that sleeps "long enough" for something to happen is slow where the machine is idle and
flaky where it is busy; these poll the condition until it holds, up to a deadline that only a
failure reaches.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

# Seconds a test's WebSocket handshake may take (channels' communicator waits 1 s by default):
# the consumer reads the table on the database thread, which a busy machine can hold up for
# longer; only a failure waits this long.
HANDSHAKE_S = 10.0


def wait_until(condition: Callable[[], object], timeout: float = 10.0, interval: float = 0.02) -> None:
    """Return as soon as ``condition()`` is true; fail the test if it is still false after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout} s: {getattr(condition, '__doc__', None) or condition}")
        time.sleep(interval)


async def wait_until_async(condition: Callable[[], object], timeout: float = 10.0, interval: float = 0.02) -> None:
    """``wait_until`` inside an event loop: the loop runs (its tasks and timers) while it waits."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout} s: {getattr(condition, '__doc__', None) or condition}")
        await asyncio.sleep(interval)
