"""The growing delay of an address past its failed sign-in threshold.

An address (one client, or everyone behind one proxy, school or shop) that has failed more than
``CAISHEN_LOGIN_ADDRESS_ATTEMPTS`` sign-ins in the window is slowed down rather than shut out:
refusing it outright would refuse a right password from every browser there that has no device
cookie (a new visitor, a minutes-old account), because of someone else's failures.

So past the threshold each further failure of the address is answered "try again in N s", N
doubling with each failure (1, 2, 4 s and so on, at most ``CAISHEN_LOGIN_MAX_DELAY``), and the
wait binds the (account, address) pair that failed: that pair's next attempt before then is
refused without its password being checked.  A pair that has not failed waits for nothing, so a
person at that address signing in to their own account is checked at once; one who mistypes
waits at most the longest delay after their own failure, and failures on other accounts never
push that wait further.  A guesser at that address gets one checked guess per account per
delay, on top of the per-(account, client) limit that still applies.

The waits are stored in the cache beside the counters (per process in the embedded mode, Redis in
the scaled mode) and expire on their own; nothing sleeps in a request.
"""

from __future__ import annotations

import math
import time

from django.conf import settings
from django.core.cache import cache

FIRST_DELAY = 1.0  # seconds after the first failure past the threshold; doubled by each further one


def now() -> float:
    """The clock of the waits (a function so that tests can move it)."""
    return time.time()


def max_delay() -> float:
    return float(settings.CAISHEN_LOGIN_MAX_DELAY)


def delay_for(failures_past_threshold: int) -> int:
    """Whole seconds to wait after the n-th failure past the address's threshold (n >= 1)."""
    if failures_past_threshold < 1:
        return 0
    # Capped before the power: a long attack must not overflow the float.
    doublings = min(failures_past_threshold - 1, 62)
    return math.ceil(min(FIRST_DELAY * 2.0**doublings, max_delay()))


def _wait_key(pair_key: str) -> str:
    return f"signin:wait:{pair_key}"


def remaining(pair_key: str) -> int:
    """Whole seconds the pair must still wait before its next attempt is checked (0: none)."""
    until = cache.get(_wait_key(pair_key))
    if until is None:
        return 0
    left = float(until) - now()
    return math.ceil(left) if left > 0 else 0


def after_failure(pair_key: str, address_failures: int, threshold: int) -> int:
    """Record a failure of the pair when its address has ``address_failures`` in the window:
    the seconds the pair must now wait (0 while the address is within its threshold)."""
    delay = delay_for(address_failures - threshold)
    if delay:
        # The entry outlives the wait by a second so that a clock read just after it expires
        # still finds nothing to wait for, never a stale refusal.
        cache.set(_wait_key(pair_key), now() + delay, timeout=delay + 1)
    return delay
