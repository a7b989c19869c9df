"""Fan-out over several nodes: local subscribers get frames directly; when a room has
viewers on other nodes (or one is joining there), each ``Delivery`` is also published
once on the room's bus channel, and every relaying node hands it to its own viewers.

Seats come first. This node's read-only viewers (spectators, casters) get it in slices of
the loop's ``Slices`` (``server.fanout.slices``: a few hundred per loop turn, in publish
order for every socket), and when the delivery also goes on the bus, from the next loop
turn on: the room bus publishes from a task, which would otherwise run only after the
local fan-out's first slice, and with thousands of spectators here a seat on another node
waited for them (tens of milliseconds for thousands of spectators, bench.broadcast). The
viewers of a delivery are those subscribed when it is published: one who joins meanwhile gets
none of the older frames still being handed out (its snapshot has them). A viewer may still get
a frame older than a snapshot the room sent it by itself meanwhile (a resync), which clients
take as the old resend it is (protocol: events up to the version held are skipped).
"""

from __future__ import annotations

from collections.abc import Callable

from server.cluster.owner import RemoteMember, RoomOutlet
from server.fanout import SEATS, Audience, Delivery, LocalFanout, Subscriber


class ClusterFanout:
    def __init__(self, outlet_for: Callable[[str], RoomOutlet | None]) -> None:
        """``outlet_for(room_id)``: the room's bus outlet while another node relays it (a
        viewer there, or one joining: ``OwnerPort.relaying``), else None."""
        self._seats = LocalFanout()
        self._viewers = LocalFanout()  # spectators and casters
        self._remote = LocalFanout()  # RemoteMember subscribers: counted, never delivered to
        self._outlet_for = outlet_for

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
        outlet = self._outlet_for(room_id)
        if outlet is not None:
            outlet.broadcast(delivery)
        self._viewers.publish(room_id, delivery, defer=outlet is not None)

    def count(self, room_id: str, audience: Audience) -> int:
        return (self._seats.count(room_id, audience) + self._viewers.count(room_id, audience)
                + self._remote.count(room_id, audience))
