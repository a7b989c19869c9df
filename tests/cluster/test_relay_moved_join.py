"""A viewer's join through a relay that is told, before its welcome, that the room moved
(the owner changed) or that the owner closed that viewer raises ``RoomMoved`` (the
endpoint opens the room again) and leaves nothing in a reference cycle.

The relay used to set ``RoomMoved`` itself on the viewer's ``welcomed`` future: the join
re-raised that exception, whose traceback then held the join's frame, which held the
viewer's record, which held the future, which held the exception. Every socket whose join
met a move was kept by that cycle with all its objects (its session, protocol and
parser), for good once a node's freeze had put it out of the collector's reach: 126
sockets of 21 rooms in a round of 200 rooms relayed while their owner let them go."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from protocol.constants import CloseCode
from server.cluster.relay import Relayed, RelayRoom
from server.cluster.wire import CloseMember, RelayJoin, decode_inbound
from server.fanout import Audience
from server.rooms.door import RoomMoved
from tests.cluster.relay_stand_ins import META, NODE, FakeBus, Owner
from tests.doubles.members import RecordingMember
from tests.transport.test_socket_cycles import left_alive


def is_relayed(thing: object) -> bool:
    return type(thing) is Relayed


def owner_moved(relay: RelayRoom, _owner: Owner, _member: int) -> None:
    relay.moved(CloseCode.ROOM_UNAVAILABLE, "the room moved")


def owner_closed_the_viewer(_relay: RelayRoom, owner: Owner, member: int) -> None:
    owner.send(CloseMember(NODE, member, CloseCode.ROOM_UNAVAILABLE, "room idle"))


@pytest.mark.parametrize("told", [owner_moved, owner_closed_the_viewer],
                         ids=["room-moved", "viewer-closed"])
async def test_a_join_told_to_go_elsewhere_raises_room_moved_and_leaves_no_cycle(
        told: Callable[[RelayRoom, Owner, int], None]) -> None:
    bus = FakeBus()
    relay = RelayRoom(bus, NODE, META, "node-1", 5.0, lambda _room: None)  # type: ignore[arg-type]
    owner = Owner(relay)
    with left_alive(is_relayed) as alive:
        joining = asyncio.create_task(relay.join(RecordingMember(Audience.A), "A", None))
        await bus.sent.wait()  # its RelayJoin is out: the relay waits for the welcome
        join = decode_inbound(bus.published[-1][1])
        assert isinstance(join, RelayJoin)
        told(relay, owner, join.member)
        # (Not pytest.raises: its record of the exception would keep the join's frame.)
        raised = await asyncio.gather(joining, return_exceptions=True)
        assert [type(error) for error in raised] == [RoomMoved]
        del joining, raised
        for _ in range(3):  # the task's done callbacks, queued on the loop, hold it till run
            await asyncio.sleep(0)
    assert alive == [], "a viewer's record left for the collector"
