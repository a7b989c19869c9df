"""One websocket after its handshake: a room member with a bounded send queue and writer."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from starlette.types import Message, Send

from server.fanout import Audience
from server.transport.direct_frames import DirectFrames
from server.transport.eager import Continuation, start_eagerly
from server.transport.send_queue import CloseRequest, SendQueue


class Session:
    """Implements the room's ``Member`` and the fan-out's ``Subscriber``.

    A frame is written at once when nothing is queued ahead of it: straight to the
    transport where ``direct`` can (``server.transport.direct_frames``), else through ASGI
    ``send`` stepped in place (``start_eagerly``). A writer task exists only while the
    socket is behind: it finishes the send that had to wait, then drains the queue and
    ends. So an idle socket costs no task, and a frame to a socket that keeps up costs no
    task step.
    """

    __slots__ = ("_audience", "_direct", "_gone", "_held", "_queue", "_send", "_writer", "seat")

    def __init__(
        self,
        send: Send,
        seat: str | None,
        queue_limit: int,
        make_snapshot: Callable[[Audience], bytes],
        direct: DirectFrames | None = None,
    ) -> None:
        self._send = send  # the socket's ASGI send
        self._direct = direct
        self.seat = seat  # the role: "A", "B", "caster" (read only, like None: a spectator)
        self._audience = Audience(seat) if seat is not None else Audience.SPECTATOR
        self._queue = SendQueue(queue_limit, lambda: make_snapshot(self._audience))
        self._writer: asyncio.Task[None] | None = None
        self._gone = False  # a send failed: the peer is gone; the reader will see it
        self._held: list[bytes] | None = None  # frames kept by ``hold_frames``

    @property
    def audience(self) -> Audience:
        return self._audience

    @property
    def closing(self) -> bool:
        return self._queue.closing

    @property
    def resyncs(self) -> int:
        return self._queue.resyncs

    def deliver(self, frame: bytes) -> None:
        if not frame or self._gone:
            return
        if self._held is not None:
            self._held.append(frame)
            return
        if self._writer is None and self._queue.empty:
            direct = self._direct
            if direct is not None:
                try:
                    if direct.write(frame):
                        return
                except Exception:
                    self._gone = True  # as for a failed send: the reader sees the disconnect
                    return
            self._send_now({"type": "websocket.send", "bytes": frame})
            return
        self._queue.push(frame)

    def hold_frames(self) -> None:
        if self._held is None:
            self._held = []

    def send_held(self) -> None:
        held, self._held = self._held, None
        if not held or self._gone:
            return
        if len(held) == 1 or not self._wrote_together(held):
            for frame in held:
                self.deliver(frame)

    def _wrote_together(self, frames: list[bytes]) -> bool:
        """``frames`` written straight to the transport in one write, where nothing is
        queued ahead and the socket writes directly now (True also when the peer is gone)."""
        direct = self._direct
        if direct is None or self._writer is not None or not self._queue.empty:
            return False
        try:
            return direct.write_all(frames)
        except Exception:
            self._gone = True  # as for a failed send: the reader sees the disconnect
            return True

    def close(self, code: int, reason: str) -> None:
        self.send_held()  # what was delivered before the close goes before it
        self._queue.close(code, reason)
        if self._writer is None and not self._gone:
            self._writer = asyncio.create_task(self._write(None))

    async def drained(self) -> None:
        """Wait until the writer, if one runs, has sent everything queued and ended."""
        writer = self._writer
        if writer is not None:
            await asyncio.wait({writer})  # never raises the writer's outcome

    async def finish(self) -> None:
        """Wait for the writer to send the close (or stop it if the socket is gone); the
        session is done then."""
        try:
            writer = self._writer
            if writer is None:
                return
            if not self._queue.closing:
                writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer
        finally:
            # The snapshot maker refers back to this object (the room's maker is the
            # endpoint's closure over it): dropped, the socket's objects are freed as it
            # closes, not left as a cycle for the collector
            # (tests/transport/test_socket_cycles.py).
            self._queue.forget_snapshots()

    def _send_now(self, message: Message) -> None:
        try:
            rest = start_eagerly(self._send(message))
        except Exception:
            self._gone = True  # the peer is gone; the reader sees the disconnect and leaves
            return
        if rest is not None:  # the transport asked to wait: a task finishes it
            self._writer = asyncio.create_task(self._write(rest))

    async def _write(self, in_flight: Continuation | None) -> None:
        send = self._send
        try:
            if in_flight is not None:
                await in_flight
            while (item := self._queue.pop()) is not None:
                if isinstance(item, CloseRequest):
                    await send({"type": "websocket.close", "code": item.code,
                                "reason": item.reason[:120]})
                    return
                await send({"type": "websocket.send", "bytes": item})
        except Exception:
            self._gone = True  # the peer is gone; the reader sees the disconnect and leaves
        finally:
            self._writer = None
