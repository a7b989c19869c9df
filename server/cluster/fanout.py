"""Fan-out over several nodes: local subscribers get frames directly; when a room has
viewers on other nodes (``RemoteMember`` subscribers), each ``Delivery`` is also published
once on the room's bus channel, and every relaying node hands it to its own viewers.

Seats come first. When the delivery also goes on the bus, this node's read-only viewers
(spectators, casters) get it a moment later, in a callback of their own: the room bus
publishes from a task, which would otherwise run only after the whole local fan-out, and
with thousands of spectators here a seat on another node waited for every one of them
(5,000 spectators: ~75 ms, bench.broadcast). Deferred deliveries keep their order (one
queue for all rooms); a viewer may get a frame older than a snapshot the room sent it
meanwhile, which clients take as the old resend it is (protocol: events up to the version
held are skipped).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from server.cluster.owner import RemoteMember, RoomOutlet
from server.fanout import Audience, Delivery, LocalFanout, Subscriber

SEATS = frozenset({Audience.A, Audience.B})


class ClusterFanout:
    def __init__(self, outlet_for: Callable[[str], RoomOutlet | None]) -> None:
        self._seats = LocalFanout()
        self._viewers = LocalFanout()  # spectators and casters
        self._remote = LocalFanout()  # RemoteMember subscribers: counted, never delivered to
        self._outlet_for = outlet_for
        self._later: deque[tuple[str, Delivery]] = deque()

    def _local(self, subscriber: Subscriber) -> LocalFanout:
        if isinstance(subscriber, RemoteMember):
            return self._remote
        return self._seats if subscriber.audience in SEATS else self._viewers

    def subscribe(self, room_id: str, subscriber: Subscriber) -> None:
        self._local(subscriber).subscribe(room_id, subscriber)

    def unsubscribe(self, room_id: str, subscriber: Subscriber) -> None:
        self._local(subscriber).unsubscribe(room_id, subscriber)

    def publish(self, room_id: str, delivery: Delivery) -> None:
        self._seats.publish(room_id, delivery)
        relayed = False
        if self._remote.has_subscribers(room_id):
            outlet = self._outlet_for(room_id)
            if outlet is not None:
                outlet.broadcast(delivery)
                relayed = True
        if self._later or (relayed and self._viewers.has_subscribers(room_id)):
            if not self._later:
                asyncio.get_running_loop().call_soon(self._deliver_later)
            self._later.append((room_id, delivery))
        else:
            self._viewers.publish(room_id, delivery)

    def _deliver_later(self) -> None:
        later = self._later
        while later:
            room_id, delivery = later.popleft()
            self._viewers.publish(room_id, delivery)

    def count(self, room_id: str, audience: Audience) -> int:
        return (self._seats.count(room_id, audience) + self._viewers.count(room_id, audience)
                + self._remote.count(room_id, audience))
