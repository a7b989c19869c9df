"""In-process fan-out: subscribers are held per room and per audience."""

from __future__ import annotations

from server.fanout.interface import AUDIENCES, Audience, Delivery, Subscriber


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

    def publish(self, room_id: str, delivery: Delivery) -> None:
        groups = self._rooms.get(room_id)
        if groups is None:
            return
        for audience, subscribers in groups.items():
            if not subscribers:
                continue
            frame = delivery.frame_for(audience)
            if not frame:
                continue  # nothing this audience may know of (``Delivery``)
            # No copy of the set: ``deliver`` only enqueues and never (un)subscribes.
            for subscriber in subscribers:
                subscriber.deliver(frame)

    def has_subscribers(self, room_id: str) -> bool:
        return room_id in self._rooms  # a room's groups go when its last subscriber does

    def count(self, room_id: str, audience: Audience) -> int:
        groups = self._rooms.get(room_id)
        return 0 if groups is None else len(groups[audience])
