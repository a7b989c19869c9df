"""The owner's side of a room served by several nodes.

``RoomOutlet`` numbers and publishes everything the owner sends on the room's ``out``
channel. ``RemoteMember`` is a viewer connected to another node, as the room actor sees
it: an ordinary ``Member`` whose frames become ``Direct`` messages to its node. ``OwnerPort``
listens on the room's ``in`` channel and turns what relays forward into the room's own
doors (join, submit, leave, resync, options, history, measure), so a relayed viewer goes
through exactly the same inbox, checks and ordering as a local one.
"""

from __future__ import annotations

import asyncio
import logging

from protocol import codec
from protocol.codec import DecodeError
from protocol.constants import ProtocolReason
from protocol.messages import Command, HistoryRequest, Measure, Rejected
from server.cluster.bus import Bus
from server.cluster.wire import (
    FENCE_NOTICE,
    Broadcast,
    CloseMember,
    Direct,
    Envelope,
    Greeting,
    Kit,
    Outbound,
    RelayJoin,
    RelayLeave,
    RelayOptions,
    RelayQuery,
    RelayResync,
    RelaySubmit,
    Reset,
    decode_inbound,
    encode_outbound,
    in_channel,
    out_channel,
)
from server.fanout import SEATS, Audience, Delivery
from server.rooms.room import Room, RoomStopped

log = logging.getLogger(__name__)


class RoomOutlet:
    def __init__(self, bus: Bus, room_id: str, fence: int) -> None:
        self._bus = bus
        self._channel = out_channel(room_id)
        self._fence = fence
        self._seq = 0

    def send(self, body: Outbound) -> None:
        self._seq += 1
        self._bus.publish(self._channel, encode_outbound(Envelope(self._fence, self._seq, body)))

    def broadcast(self, delivery: Delivery) -> None:
        self.send(Broadcast(delivery))


class RemoteMember:
    """A viewer on another node (implements ``Member`` and ``Subscriber``)."""

    __slots__ = ("_audience", "_outlet", "member", "node", "seat")

    def __init__(self, outlet: RoomOutlet, node: str, member: int, seat: str | None) -> None:
        self._outlet = outlet
        self.node = node
        self.member = member
        self.seat = seat
        self._audience = Audience(seat) if seat is not None else Audience.SPECTATOR

    @property
    def audience(self) -> Audience:
        return self._audience

    def deliver(self, frame: bytes) -> None:
        if frame:
            self._outlet.send(Direct(self.node, self.member, frame))

    def close(self, code: int, reason: str) -> None:
        self._outlet.send(CloseMember(self.node, self.member, code, reason))


class KitMember(RemoteMember):
    """A relayed viewer joining with ``Greeting.KIT``: the room's first two frames to it,
    its welcome and snapshot, go to its node as one ``Kit``, which the node also hands to
    the others of its audience joining before the room's next broadcast
    (``server.cluster.crowd_kit``); what comes after goes as ``Direct`` frames."""

    __slots__ = ("_greeting",)

    def __init__(self, outlet: RoomOutlet, node: str, member: int, seat: str | None) -> None:
        super().__init__(outlet, node, member, seat)
        self._greeting: list[bytes] | None = []

    def deliver(self, frame: bytes) -> None:
        greeting = self._greeting
        if greeting is None:
            super().deliver(frame)
            return
        greeting.append(frame)
        if len(greeting) == 2:
            self._greeting = None
            welcome, snapshot = greeting
            self._outlet.send(Kit(self.node, self.member, self.audience.value, welcome,
                                  snapshot))


class OwnerPort:
    """Feeds one owned room with what the relays of other nodes forward."""

    def __init__(self, bus: Bus, room: Room) -> None:
        self.room = room
        self.outlet = RoomOutlet(bus, room.room_id, room.fence)
        self._bus = bus
        self._members: dict[tuple[str, int], RemoteMember] = {}
        self._joins: set[asyncio.Task[None]] = set()
        self.channel = in_channel(room.room_id)

    async def open(self) -> None:
        # Sent before the room listens for joins: a relay still on an earlier owner's fence
        # (maybe this node id's before a restart, which its lease watch cannot tell apart)
        # sends its viewers to reconnect; a relay joining now keeps them.
        self.outlet.send(FENCE_NOTICE)
        await self._bus.subscribe(self.channel, self.on_message)

    async def close(self) -> None:
        await self._bus.unsubscribe(self.channel, self.on_message)

    def relaying(self) -> bool:
        """Whether any node relays this room to a viewer (one still joining counted): the
        room's broadcasts go on the bus from the moment a relay forwards a join until its
        last viewer left, so a relay's crowd kit never misses one (a ``Greeting.QUIET``
        join reaches the room after the relay's own earlier leaves may have)."""
        return bool(self._members)

    def nodes(self) -> set[str]:
        """The nodes this room has relayed viewers on."""
        return {node for node, _ in self._members}

    def node_died(self, node: str) -> None:
        """``node`` stopped renewing its liveness: its viewers left."""
        for key in [key for key in self._members if key[0] == node]:
            self.room.leave(self._members.pop(key))

    def reset(self) -> None:
        """Relayed messages may have been lost (this node's subscriber connection dropped):
        relays send their viewers to reconnect, so every viewer relayed so far leaves the
        room now (it joins again, as a new member, when it reconnects). Without this, the
        relayed spectators stayed counted for ever, e.g. after a Redis restart."""
        self.outlet.send(Reset())
        members, self._members = self._members, {}
        for member in members.values():
            self.room.leave(member)  # one still joining leaves when its join is done

    def on_message(self, data: bytes) -> None:
        message = decode_inbound(data)
        key = (message.node, message.member)
        if isinstance(message, RelayJoin):
            greeting = message.greeting
            kit = greeting == Greeting.KIT and message.seat not in SEATS  # (a StrEnum)
            member = (KitMember if kit else RemoteMember)(self.outlet, message.node,
                                                         message.member, message.seat)
            self._members[key] = member
            # A kit's snapshot is the crowd's: whatever ``since`` its first member asked
            # from, the others may be anywhere.
            since = None if kit else message.since
            task = asyncio.create_task(
                self._join(member, since, greet=greeting != Greeting.QUIET))
            self._joins.add(task)
            task.add_done_callback(self._joins.discard)
            return
        known = self._members.get(key)
        if known is None:
            return  # it left, or its node was declared dead
        if isinstance(message, RelaySubmit):
            self._submit(known, message.frame)
        elif isinstance(message, RelayResync):
            self.room.resync(known, message.since)
        elif isinstance(message, RelayOptions):
            self.room.request_options(known)
        elif isinstance(message, RelayQuery):
            self._query(known, message.frame)
        elif isinstance(message, RelayLeave):
            del self._members[key]
            self.room.leave(known)

    async def _join(self, member: RemoteMember, since: int | None, greet: bool) -> None:
        key = (member.node, member.member)
        try:
            await self.room.join(member, member.seat, since, greet)
        except RoomStopped:
            self._members.pop(key, None)
            member.close(4011, "room stopped; reconnect")
            return
        if self._members.get(key) is not member:
            # A reset (or its leave) came while it was joining; its Leave may have reached
            # the inbox before its Join did, so leave again (a no-op if it had left).
            self.room.leave(member)

    def _submit(self, member: RemoteMember, frame: bytes) -> None:
        try:
            command = codec.decode_client(frame)
        except DecodeError:
            log.warning("room %s: undecodable relayed command", self.room.room_id)
            return
        if not isinstance(command, Command):
            return
        if not self.room.submit(member, member.seat, command):
            member.deliver(codec.encode(Rejected(command.id, ProtocolReason.ROOM_BUSY,
                                                 "the room is busy; try again")))

    def _query(self, member: RemoteMember, frame: bytes) -> None:
        try:
            request = codec.decode_client(frame)
        except DecodeError:
            log.warning("room %s: undecodable relayed query", self.room.room_id)
            return
        if isinstance(request, Measure):
            self.room.measure(member, request)
        elif isinstance(request, HistoryRequest) and not self.room.history(member, request):
            member.deliver(codec.encode(Rejected(request.id, ProtocolReason.ROOM_BUSY,
                                                 "the room is busy; try again")))
