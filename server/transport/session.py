"""One websocket after its handshake: a room member with a bounded send queue and writer."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from starlette.websockets import WebSocket

from server.fanout import Audience
from server.transport.send_queue import CloseRequest, SendQueue


class Session:
    """Implements the room's ``Member`` and the fan-out's ``Subscriber``."""

    __slots__ = ("_audience", "_queue", "_socket", "_writer", "seat")

    def __init__(
        self,
        socket: WebSocket,
        seat: str | None,
        queue_limit: int,
        make_snapshot: Callable[[Audience], bytes],
    ) -> None:
        self._socket = socket
        self.seat = seat
        self._audience = Audience(seat) if seat is not None else Audience.SPECTATOR
        self._queue = SendQueue(queue_limit, lambda: make_snapshot(self._audience))
        self._writer: asyncio.Task[None] | None = None

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
        if frame:
            self._queue.push(frame)

    def close(self, code: int, reason: str) -> None:
        self._queue.close(code, reason)

    def start(self) -> None:
        self._writer = asyncio.create_task(self._write())

    async def finish(self) -> None:
        """Wait for the writer to send the close (or stop it if the socket is gone)."""
        if self._writer is None:
            return
        if not self._queue.closing:
            self._writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._writer

    async def _write(self) -> None:
        send = self._socket.send
        while True:
            item = await self._queue.next()
            try:
                if isinstance(item, CloseRequest):
                    await send({"type": "websocket.close", "code": item.code,
                                "reason": item.reason[:120]})
                    return
                await send({"type": "websocket.send", "bytes": item})
            except Exception:
                return  # the peer is gone; the reader sees the disconnect and leaves the room
