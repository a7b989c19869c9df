"""Stand-ins around a ``RelayRoom`` without Redis: the room bus that records what the relay
publishes, and the owning node that sends the relay its messages."""

from __future__ import annotations

import asyncio

from server.cluster.relay import RelayRoom
from server.cluster.wire import Envelope, Outbound, encode_outbound
from server.store import RoomMeta, RoomSettings

NODE = "node-2"
"""The relaying node."""
META = RoomMeta("room-1", RoomSettings("n5", 30.0, "public", fixed_seed=1), "a", "b", 0)


class FakeBus:
    """The room bus: records each publish and sets ``sent``."""

    def __init__(self) -> None:
        self.published: list[tuple[str, bytes]] = []
        self.sent = asyncio.Event()

    def publish(self, channel: str, data: bytes) -> None:
        self.published.append((channel, data))
        self.sent.set()


class Owner:
    """Sends the relay what the owning node would, numbered as its outlet numbers them."""

    def __init__(self, relay: RelayRoom) -> None:
        self.relay = relay
        self.seq = 0

    def send(self, body: Outbound) -> None:
        self.seq += 1
        self.relay.on_message(encode_outbound(Envelope(1, self.seq, body)))
