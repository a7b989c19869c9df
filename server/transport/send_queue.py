"""A socket's bounded outgoing queue with drop-and-resync for slow readers.

The room and the fan-out only ever ``push`` (never wait). When a reader falls ``limit``
frames behind, everything queued is dropped and the next frame it gets is a fresh snapshot
of its view, built when the writer is ready to send it (so it is as new as possible); until
then further frames are dropped too, since the snapshot will contain them. (On a relay
node the snapshot is asked of the owner and arrives later as an ordinary frame.) One slow
spectator therefore costs at most ``limit`` frames of memory and nobody else's latency.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CloseRequest:
    code: int
    reason: str


class SendQueue:
    def __init__(self, limit: int, make_snapshot: Callable[[], bytes]) -> None:
        self._limit = limit
        self._make_snapshot = make_snapshot
        self._frames: deque[bytes] = deque()
        self._resync = False
        self._close: CloseRequest | None = None
        self._waiter: asyncio.Future[None] | None = None
        self.resyncs = 0  # how many times this socket was dropped to a snapshot

    def push(self, frame: bytes) -> None:
        if self._close is not None or self._resync:
            return
        if len(self._frames) >= self._limit:
            self._frames.clear()
            self._resync = True
            self.resyncs += 1
        else:
            self._frames.append(frame)
        self._wake()

    def close(self, code: int, reason: str) -> None:
        """Send what is queued, then close; later pushes are ignored."""
        if self._close is None:
            self._close = CloseRequest(code, reason)
            self._wake()

    @property
    def closing(self) -> bool:
        return self._close is not None

    async def next(self) -> bytes | CloseRequest:
        """The next frame to write, or the close request once the queue is empty."""
        while True:
            if self._frames:
                return self._frames.popleft()
            if self._resync:
                self._resync = False
                snapshot = self._make_snapshot()
                if snapshot:  # b"": the snapshot comes later as an ordinary push (relay)
                    return snapshot
                continue
            if self._close is not None:
                return self._close
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
