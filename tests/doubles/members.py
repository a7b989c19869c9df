"""An in-memory room member for the room actor's unit tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from protocol import codec
from protocol.messages import Accepted, Rejected, ServerMessage, command_answer
from server.fanout import Audience

M = TypeVar("M")


class RecordingMember:
    """Records what the room delivers; ``until`` waits for a kind of message."""

    def __init__(self, audience: Audience) -> None:
        self._audience = audience
        self.frames: list[ServerMessage] = []
        self.closed: tuple[int, str] | None = None
        self._read = 0
        self._arrived = asyncio.Event()

    @property
    def audience(self) -> Audience:
        return self._audience

    def deliver(self, frame: bytes) -> None:
        self.frames.append(codec.decode_server(frame))
        self._arrived.set()

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)
        self._arrived.set()

    async def until(self, kind: type[M], where: Callable[[M], bool] = lambda _: True) -> M:
        async with asyncio.timeout(20):  # a guard against a hung test, not a timing check
            while True:
                while self._read < len(self.frames):
                    message = self.frames[self._read]
                    self._read += 1
                    if isinstance(message, kind) and where(message):
                        return message
                self._arrived.clear()
                await self._arrived.wait()

    async def answer(self, command_id: str) -> Accepted | Rejected:
        """Wait for the answer to ``command_id``: a ``rejected``, an ``accepted`` or the
        ``events`` frame that names it (``command_answer``)."""
        found = await self.until(object, lambda m: _answers(m, command_id))
        answer = command_answer(found)  # type: ignore[arg-type]
        assert answer is not None
        return answer

    def answers(self) -> list[Accepted | Rejected]:
        """Every answer delivered so far, in order (whatever frame carried it)."""
        return [a for a in map(command_answer, self.frames) if a is not None]

    async def wait_closed(self) -> tuple[int, str]:
        async with asyncio.timeout(20):  # a guard against a hung test, not a timing check
            while self.closed is None:
                self._arrived.clear()
                await self._arrived.wait()
        return self.closed

    def of(self, kind: type[M]) -> list[M]:
        return [m for m in self.frames if isinstance(m, kind)]


def _answers(message: ServerMessage, command_id: str) -> bool:
    answer = command_answer(message)
    return answer is not None and answer.id == command_id
