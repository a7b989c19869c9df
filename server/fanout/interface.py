"""The fan-out seam: delivering a room's messages to the viewers connected to it.

The room encodes each message once per audience (seat A, seat B, spectators, casters) and
publishes
one ``Delivery``; the fan-out hands each subscriber the bytes for its audience. Delivery
never blocks the room: a subscriber's ``deliver`` only enqueues into its own bounded queue
(see ``server.transport.send_queue``). A multi-node fan-out (Redis pub/sub) implements the
same Protocol: ``publish`` forwards the delivery's bytes to the other nodes, which hand them
to their local subscribers.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol


class Audience(StrEnum):
    """Who a frame is encoded for: each seat sees its own view, spectators share one, and
    casters (organizer-made links) share the omniscient one, always late."""

    A = "A"
    B = "B"
    SPECTATOR = "spectator"
    CASTER = "caster"


AUDIENCES: tuple[Audience, ...] = tuple(Audience)
"""Every audience, in order: iterating an Enum class is slow on the per-frame path."""
SEATS = frozenset({Audience.A, Audience.B})
"""The players' audiences (one connection each, served before the read-only ones)."""


@dataclass(frozen=True, slots=True)
class Delivery:
    """One message for a room's viewers, already encoded per audience.

    ``version`` is the room's event version once this message is applied (for a message
    that is not an event, the version it was sent at). An empty frame means the audience
    gets nothing: it may know of none of the events (``server.rooms.numbering``).
    """

    version: int
    a: bytes
    b: bytes
    spectator: bytes
    caster: bytes = b""

    @classmethod
    def same(cls, version: int, frame: bytes) -> Delivery:
        """The same bytes for everyone (presence, spectator counts)."""
        return cls(version, frame, frame, frame, frame)

    def frame_for(self, audience: Audience) -> bytes:
        if audience is Audience.A:
            return self.a
        if audience is Audience.B:
            return self.b
        if audience is Audience.SPECTATOR:
            return self.spectator
        return self.caster


class Subscriber(Protocol):
    """A connected viewer. ``deliver`` must return at once (enqueue, never await)."""

    @property
    def audience(self) -> Audience: ...

    def deliver(self, frame: bytes) -> None: ...


class Fanout(Protocol):
    def subscribe(self, room_id: str, subscriber: Subscriber) -> None: ...

    def unsubscribe(self, room_id: str, subscriber: Subscriber) -> None: ...

    def publish(self, room_id: str, delivery: Delivery) -> None:
        """Hand ``delivery`` to every subscriber of the room, in publish order."""

    def count(self, room_id: str, audience: Audience) -> int:
        """How many subscribers of that audience the room has (on this node)."""
