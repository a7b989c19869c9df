"""Fan-out over several nodes: local subscribers get frames directly; when a room has
viewers on other nodes (``RemoteMember`` subscribers), each ``Delivery`` is also published
once on the room's bus channel, and every relaying node hands it to its own viewers."""

from __future__ import annotations

from collections.abc import Callable

from server.cluster.owner import RemoteMember, RoomOutlet
from server.fanout import Audience, Delivery, LocalFanout, Subscriber


class ClusterFanout:
    def __init__(self, outlet_for: Callable[[str], RoomOutlet | None]) -> None:
        self._local = LocalFanout()
        self._remote = LocalFanout()  # RemoteMember subscribers: counted, never delivered to
        self._outlet_for = outlet_for

    def subscribe(self, room_id: str, subscriber: Subscriber) -> None:
        fanout = self._remote if isinstance(subscriber, RemoteMember) else self._local
        fanout.subscribe(room_id, subscriber)

    def unsubscribe(self, room_id: str, subscriber: Subscriber) -> None:
        fanout = self._remote if isinstance(subscriber, RemoteMember) else self._local
        fanout.unsubscribe(room_id, subscriber)

    def publish(self, room_id: str, delivery: Delivery) -> None:
        self._local.publish(room_id, delivery)
        if self._remote.has_subscribers(room_id):
            outlet = self._outlet_for(room_id)
            if outlet is not None:
                outlet.broadcast(delivery)

    def count(self, room_id: str, audience: Audience) -> int:
        return self._local.count(room_id, audience) + self._remote.count(room_id, audience)
