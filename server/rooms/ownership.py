"""Who may run a room: ``Ownership``, the registry's one question to the cluster.

A node runs a room's actor only after ``claim`` gave it a fencing token. ``SoleOwner`` is
the single-node answer (every claim wins; what ``create_app`` uses by default and what the
memory store's tests use). ``server.cluster.node.ClusterNode`` is the several-nodes answer:
a claim wins only with the room's lease; a room leased to another node is served here
through a relay (``RoomDoor``) that forwards to the owner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from server.store import RoomMeta, RoomStore

if TYPE_CHECKING:
    from server.rooms.door import RoomDoor
    from server.rooms.room import Room


@dataclass(frozen=True, slots=True)
class Claimed:
    fence: int
    unattended_since_ms: int | None = None
    """Room time since which no server ran the room: the last sign of life of the process
    that ran it before (killed, cut off, or shut down and waited for), when another did
    (``server.cluster.lease``); None: handed over when nobody was connected, never run, or
    nothing tells."""


@dataclass(frozen=True, slots=True)
class HeldBy:
    node_id: str


Claim = Claimed | HeldBy


class Ownership(Protocol):
    @property
    def node_id(self) -> str: ...

    async def claim(self, room_id: str) -> Claim | None:
        """Claimed (with a new fence) or held by another node; None: no such room."""

    def relay_for(self, room_id: str) -> RoomDoor | None:
        """The live relay to this room's owner already open on this node, if any."""

    async def relay(self, meta: RoomMeta, owner: str) -> RoomDoor:
        """A door to a room that ``owner`` runs."""

    async def serve(self, room: Room) -> None:
        """``room`` started on this node: keep its lease, take its relays' messages."""

    def forget(self, room: Room) -> None:
        """``room`` stopped on this node."""

    async def close(self) -> None:
        """Shutdown: give up every lease so another node may take the rooms at once."""


class SoleOwner:
    """One node: every claim wins (a new fence per claim, so a stale actor still cannot
    write over a newer one)."""

    def __init__(self, store: RoomStore, node_id: str) -> None:
        self._store = store
        self._node_id = node_id

    @property
    def node_id(self) -> str:
        return self._node_id

    async def claim(self, room_id: str) -> Claim | None:
        fence = await self._store.claim_room(room_id, self._node_id)
        return None if fence is None else Claimed(fence)

    def relay_for(self, room_id: str) -> RoomDoor | None:
        return None

    async def relay(self, meta: RoomMeta, owner: str) -> RoomDoor:
        raise RuntimeError(f"a single node cannot relay room {meta.room_id} to {owner}")

    async def serve(self, room: Room) -> None:
        return None

    def forget(self, room: Room) -> None:
        return None

    async def close(self) -> None:
        return None
