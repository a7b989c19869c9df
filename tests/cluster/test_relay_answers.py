"""``RelayRoom`` hands a relayed seat the answer to its command even while the seat waits for
a snapshot: an accepted command's answer travels in the seat's ``events`` frame (protocol
3), and a resyncing viewer skips events frames (the snapshot has their events), so the
relay passes the answer on as a standalone ``accepted``."""

from __future__ import annotations

import asyncio

from protocol import codec
from protocol.messages import Accepted, Events, Snapshot, Welcome
from server.cluster.relay import RelayRoom
from server.cluster.wire import Broadcast, Direct, Greeting, Kit, RelayJoin, decode_inbound
from server.fanout import Audience, Delivery
from tests.cluster import relay_stand_ins
from tests.cluster.relay_stand_ins import META, NODE, FakeBus
from tests.doubles.members import RecordingMember

EVENT = {"e": "acted", "side": "A", "value": 1}


class Owner(relay_stand_ins.Owner):
    """The owning node, which also sends one command's events."""

    def events(self, version: int, accepted_by_a: str | None) -> None:
        """One command's events at ``version``; seat A's frame names ``accepted_by_a``."""
        plain = codec.encode(Events(version, [EVENT], None))
        named = codec.encode(Events(version, [EVENT], None, accepted_by_a))
        self.send(Broadcast(Delivery(version, named, plain, plain)))


async def live(bus: FakeBus, relay: RelayRoom, owner: Owner, member: RecordingMember,
               seat: str | None) -> None:
    """Join ``member`` through the relay; the owner's welcome makes it live."""
    bus.sent.clear()
    joining = asyncio.create_task(relay.join(member, seat, None))
    await bus.sent.wait()  # its RelayJoin is out: the relay waits for the welcome
    join = decode_inbound(bus.published[-1][1])
    assert isinstance(join, RelayJoin)
    welcome = codec.encode(Welcome(3, META.room_id, member.audience.value, 0, {}, {}))
    if join.greeting == Greeting.KIT:  # a spectator's: the crowd kit it asked for
        owner.send(Kit(NODE, join.member, member.audience.value, welcome,
                       codec.encode(Snapshot(0, {}, None, {}))))
    else:
        owner.send(Direct(NODE, join.member, welcome))
    await joining


async def test_a_resyncing_seat_still_gets_the_answer_its_events_frame_carried() -> None:
    bus = FakeBus()
    relay = RelayRoom(bus, NODE, META, "node-1", 5.0, lambda _room: None)  # type: ignore[arg-type]
    owner = Owner(relay)
    a, spectator = RecordingMember(Audience.A), RecordingMember(Audience.SPECTATOR)
    await live(bus, relay, owner, a, "A")
    await live(bus, relay, owner, spectator, None)

    owner.events(1, "c1")  # live: the events frame itself is the answer
    assert a.frames[-1] == Events(1, [EVENT], None, "c1")
    assert spectator.frames[-1] == Events(1, [EVENT], None)

    for member in (a, spectator):
        relay.overflow_frame(member)  # both wait for a snapshot now
    seen = (len(a.frames), len(spectator.frames))
    owner.events(2, None)  # skipped: the snapshot will have it
    owner.events(3, "c2")  # skipped too, but not its answer
    assert a.frames[seen[0]:] == [Accepted("c2", 3)]
    assert len(spectator.frames) == seen[1]
