"""A small fixed-window rate limit on the cache (per process in embedded mode, Redis when scaled)."""

from __future__ import annotations

import time

from django.core.cache import cache


def _bucket(key: str, window: int) -> str:
    return f"throttle:{key}:{int(time.time() // window)}"


def count(key: str, window: int) -> int:
    """How many hits ``key`` has in the current window."""
    return int(cache.get(_bucket(key, window), 0))


def hit(key: str, window: int) -> int:
    """Record one hit and return the window's count."""
    bucket = _bucket(key, window)
    if cache.add(bucket, 1, timeout=window):
        return 1
    try:
        return int(cache.incr(bucket))
    except ValueError:  # expired between add and incr
        cache.set(bucket, 1, timeout=window)
        return 1


def reset(key: str, window: int) -> None:
    """Forget the current window's hits of ``key``."""
    cache.delete(_bucket(key, window))
