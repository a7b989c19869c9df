"""Token buckets: the per-socket message rate limit, and the lobby's room-creation limits."""

from __future__ import annotations

import time


class TokenBucket:
    """Allows ``burst`` tokens at once and ``rate`` per second sustained.

    ``now`` (seconds, ``time.monotonic()`` when omitted) lets a caller that handles many
    buckets read the clock once, and tests step a clock of their own."""

    __slots__ = ("_burst", "_rate", "_stamp", "_tokens")

    def __init__(self, rate: float, burst: float, now: float | None = None) -> None:
        self._rate = rate
        self._burst = float(burst)
        self._tokens = float(burst)
        self._stamp = time.monotonic() if now is None else now

    def allow(self, cost: float = 1.0, now: float | None = None) -> bool:
        """Take ``cost`` tokens (one per message; more for a message that costs the server
        more, ``endpoint.MESSAGE_TOKENS``); False when the bucket holds fewer (the message
        is over the limit) and nothing is taken."""
        self._refill(time.monotonic() if now is None else now)
        if self._tokens < cost:
            return False
        self._tokens -= cost
        return True

    def wait_s(self, cost: float = 1.0, now: float | None = None) -> float:
        """Seconds until ``cost`` tokens are there (0: now; ``inf`` if they never will be)."""
        self._refill(time.monotonic() if now is None else now)
        missing = cost - self._tokens
        if missing <= 0:
            return 0.0
        if self._rate <= 0 or cost > self._burst:
            return float("inf")
        return missing / self._rate

    def lend_wait_s(self, cost: float, now: float | None = None) -> float:
        """Seconds until ``lend(cost)`` would be granted: 0 when the bucket holds ``cost``
        tokens, or is full and ``cost`` is more than it ever holds."""
        return self.wait_s(min(cost, self._burst), now)

    def lend(self, cost: float, now: float | None = None) -> None:
        """Take ``cost`` tokens, more than the bucket holds if need be (``lend_wait_s`` said
        0): it goes into debt, repaid at the sustained rate before it gives any more. A
        batch bigger than the burst (a tournament round's rooms) still starts, from a full
        bucket, and the sustained rate holds over time."""
        self._refill(time.monotonic() if now is None else now)
        self._tokens -= cost

    def full(self, now: float | None = None) -> bool:
        """Whether the bucket is full again: then it is no different from a new one."""
        self._refill(time.monotonic() if now is None else now)
        return self._tokens >= self._burst

    def _refill(self, now: float) -> None:
        if now > self._stamp:
            self._tokens = min(self._burst, self._tokens + (now - self._stamp) * self._rate)
        self._stamp = max(self._stamp, now)
