"""What a room remembers about each seat: its connection, presence and recent answers."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Protocol

from protocol.messages import SeatStatus
from server.fanout import Audience


class Member(Protocol):
    """A connected viewer as the room sees it (implemented by the transport's Session)."""

    @property
    def audience(self) -> Audience: ...

    def deliver(self, frame: bytes) -> None:
        """Enqueue a frame for this viewer only; never blocks."""

    def close(self, code: int, reason: str) -> None:
        """Send what is queued, then close the connection with ``code``."""


class AnswerCache:
    """The encoded answers to a seat's most recent command ids (oldest evicted first)."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._answers: OrderedDict[str, bytes] = OrderedDict()

    def get(self, command_id: str) -> bytes | None:
        return self._answers.get(command_id)

    def put(self, command_id: str, frame: bytes) -> None:
        self._answers[command_id] = frame
        if len(self._answers) > self._capacity:
            self._answers.popitem(last=False)


@dataclass(slots=True)
class Seat:
    side: str  # "A" or "B"
    answers: AnswerCache
    member: Member | None = None
    status: SeatStatus = SeatStatus.EMPTY
    grace_deadline_ms: int | None = None
    grace_timer: asyncio.TimerHandle | None = None
    grace_epoch: int = 0  # a GraceExpired message for an older epoch is stale
    audience: Audience = field(init=False)

    def __post_init__(self) -> None:
        self.audience = Audience(self.side)

    def cancel_grace(self) -> None:
        if self.grace_timer is not None:
            self.grace_timer.cancel()
            self.grace_timer = None
        self.grace_deadline_ms = None
        self.grace_epoch += 1
