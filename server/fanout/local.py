"""In-process fan-out: subscribers are held per room and per audience.

Seats get a frame at once, first; spectators and casters through the loop's ``Slices``
(``server.fanout.slices``): a few hundred per loop turn, so a crowd's frame does not hold
the loop (and the next command, timer or room) for its whole fan-out. A crowd no larger
than a slice, with nothing queued before it, gets it at once too.
"""

from __future__ import annotations

from collections.abc import Set

from server.fanout.interface import AUDIENCES, SEATS, Audience, Delivery, Subscriber
from server.fanout.slices import loop_slices


class LocalFanout:
    def __init__(self) -> None:
        self._rooms: dict[str, dict[Audience, set[Subscriber]]] = {}

    def subscribe(self, room_id: str, subscriber: Subscriber) -> None:
        groups = self._rooms.get(room_id)
        if groups is None:
            groups = self._rooms[room_id] = {audience: set() for audience in AUDIENCES}
        groups[subscriber.audience].add(subscriber)

    def unsubscribe(self, room_id: str, subscriber: Subscriber) -> None:
        groups = self._rooms.get(room_id)
        if groups is None:
            return
        groups[subscriber.audience].discard(subscriber)
        if not any(groups.values()):
            del self._rooms[room_id]

    def publish(self, room_id: str, delivery: Delivery, *, defer: bool = False) -> None:
        """Seats at once; the others in slices, all of them in a later loop turn if
        ``defer`` (the cluster's fan-out lets the room bus go first)."""
        groups = self._rooms.get(room_id)
        if groups is None:
            return
        for audience, subscribers in groups.items():
            if not subscribers:
                continue
            frame = delivery.frame_for(audience)
            if not frame:
                continue  # nothing this audience may know of (``Delivery``)
            if audience in SEATS:
                # No copy of the set: ``deliver`` only enqueues and never (un)subscribes.
                for subscriber in subscribers:
                    subscriber.deliver(frame)
            else:
                _hand_out(frame, subscribers, defer)

    def has_subscribers(self, room_id: str) -> bool:
        return room_id in self._rooms  # a room's groups go when its last subscriber does

    def count(self, room_id: str, audience: Audience) -> int:
        groups = self._rooms.get(room_id)
        return 0 if groups is None else len(groups[audience])


def _hand_out(frame: bytes, subscribers: Set[Subscriber], defer: bool) -> None:
    slices = loop_slices()
    if slices is None or (not defer and not slices.pending and len(subscribers) <= slices.size):
        for subscriber in subscribers:
            subscriber.deliver(frame)
        return

    def deliver(subscriber: Subscriber) -> None:
        if subscriber in subscribers:  # not if it left meanwhile (the set is the live one)
            subscriber.deliver(frame)

    # The subscribers of now: one who joins meanwhile has a newer snapshot than this frame.
    slices.add(list(subscribers), deliver, defer=defer)
