"""What the transport needs from a room: ``RoomDoor``.

The owning node's ``Room`` (the actor) is one; on a node that does not own the room, a relay
(``server.cluster.relay.RelayRoom``) is another: it forwards joins, commands, leaves and
``sync``, ``options``, ``history`` and ``measure`` requests to the owner and hands the
owner's frames back to its local members.
"""

from __future__ import annotations

from typing import Protocol

from protocol.messages import Command, HistoryRequest, Measure
from server.rooms.room import RoomMoved as RoomMoved  # (the name the transport and relays use)
from server.rooms.room import RoomStopped as RoomStopped
from server.rooms.seats import Member
from server.store import RoomMeta


class RoomDoor(Protocol):
    @property
    def meta(self) -> RoomMeta: ...

    @property
    def stopped(self) -> bool: ...

    async def join(self, member: Member, seat: str | None, since: int | None) -> None:
        """Welcome ``member`` and send its catch-up; raises ``RoomStopped`` (``RoomMoved``:
        open the room again) when the room cannot take it."""

    def submit(self, member: Member, seat: str | None, command: Command) -> bool:
        """Queue a command; False when it was refused as busy (answer ``room_busy``)."""

    def leave(self, member: Member) -> None: ...

    def resync(self, member: Member, since: int | None) -> None: ...

    def request_options(self, member: Member) -> None:
        """Send ``member`` its seat's legal choices now (``options``)."""

    def history(self, member: Member, request: HistoryRequest) -> bool:
        """Queue a ``history`` request (answered with a page of the member's own events);
        False when it was refused as busy (answer ``room_busy``)."""

    def measure(self, member: Member, request: Measure) -> None:
        """Send ``member`` the ``measurement`` (or ``rejected``) that answers ``request``."""

    def overflow_frame(self, member: Member) -> bytes:
        """What a member whose send queue overflowed gets next: its snapshot now, or b""
        when the snapshot will be delivered later (a relay asks the owner for it)."""
