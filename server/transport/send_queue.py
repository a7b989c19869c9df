"""A socket's bounded outgoing queue with drop-and-resync for slow readers.

The room and the fan-out only ever ``push`` (never wait). When a reader falls ``limit``
frames behind, everything queued is dropped and the next frame it gets is a fresh snapshot
of its view, built when the writer is ready to send it (so it is as new as possible); until
then further frames are dropped too, since the snapshot will contain them. (On a relay
node the snapshot is asked of the owner and arrives later as an ordinary frame.) One slow
spectator therefore costs at most ``limit`` frames of memory and nobody else's latency.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from server.metrics import SLOW_READER_RESYNCS


@dataclass(frozen=True, slots=True)
class CloseRequest:
    code: int
    reason: str


class SendQueue:
    """What a socket's writer still has to send while the socket cannot take it at once.

    Synchronous: the session pushes, and its writer pops until ``pop`` says the queue is
    drained (None), so no task waits on an empty queue.
    """

    __slots__ = ("_close", "_frames", "_limit", "_make_snapshot", "_resync", "resyncs")

    def __init__(self, limit: int, make_snapshot: Callable[[], bytes]) -> None:
        self._limit = limit
        self._make_snapshot = make_snapshot
        # Made on the first frame that has to wait: most sockets never fall behind, and an
        # empty deque is 760 bytes (on every one of 18,000 sockets).
        self._frames: deque[bytes] | None = None
        self._resync = False
        self._close: CloseRequest | None = None
        self.resyncs = 0  # how many times this socket was dropped to a snapshot

    def push(self, frame: bytes) -> None:
        if self._close is not None or self._resync:
            return
        frames = self._frames
        if frames is None:
            frames = self._frames = deque()
        if len(frames) >= self._limit:
            frames.clear()
            self._resync = True
            self.resyncs += 1
            SLOW_READER_RESYNCS.inc()
        else:
            frames.append(frame)

    def close(self, code: int, reason: str) -> None:
        """Send what is queued, then close; later pushes are ignored."""
        if self._close is None:
            self._close = CloseRequest(code, reason)

    def forget_snapshots(self) -> None:
        """The socket is done: drop the snapshot maker, which refers back to the socket's
        session (which holds this queue: a reference cycle only the collector would free,
        one per websocket). A snapshot owed from here on is never sent."""
        self._make_snapshot = _no_snapshot

    @property
    def closing(self) -> bool:
        return self._close is not None

    @property
    def empty(self) -> bool:
        """Nothing to send: no frame, no snapshot owed, no close asked for."""
        return not self._frames and not self._resync and self._close is None

    def pop(self) -> bytes | CloseRequest | None:
        """The next frame to write, then the close request; None once there is nothing
        more to send (a closed queue keeps answering its close request)."""
        while True:
            frames = self._frames
            if frames:
                frame = frames.popleft()
                if not frames:
                    self._frames = None  # caught up: the memory goes with it
                return frame
            if self._resync:
                self._resync = False
                snapshot = self._make_snapshot()
                if snapshot:  # b"": the snapshot comes later as an ordinary push (relay)
                    return snapshot
                continue
            return self._close


def _no_snapshot() -> bytes:
    return b""
