"""Per-socket message rate limit: a token bucket."""

from __future__ import annotations

import time


class TokenBucket:
    """Allows ``burst`` messages at once and ``rate`` per second sustained."""

    __slots__ = ("_burst", "_rate", "_stamp", "_tokens")

    def __init__(self, rate: float, burst: int) -> None:
        self._rate = rate
        self._burst = float(burst)
        self._tokens = float(burst)
        self._stamp = time.monotonic()

    def allow(self, cost: float = 1.0) -> bool:
        """Take ``cost`` tokens (one per message; more for a message that costs the server
        more, as a ``history`` page does); False when the bucket holds fewer (the message
        is over the limit)."""
        now = time.monotonic()
        self._tokens = min(self._burst, self._tokens + (now - self._stamp) * self._rate)
        self._stamp = now
        if self._tokens < cost:
            return False
        self._tokens -= cost
        return True
