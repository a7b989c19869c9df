"""``OwnerPort`` after a bus reset: the viewers relayed so far leave the room (their relays
send them to reconnect, and they join again as new members), including one whose join was
still on its way. Before, a relayed spectator stayed counted for ever after a Redis restart
(found by tests/deploy/test_loopback_failover.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from server.cluster.owner import OwnerPort, RemoteMember
from server.cluster.wire import RelayJoin, RelayLeave, Reset, decode_outbound, encode_inbound


class FakeBus:
    def __init__(self) -> None:
        self.published: list[tuple[str, bytes]] = []

    def publish(self, channel: str, data: bytes) -> None:
        self.published.append((channel, data))


class FakeRoom:
    """Joins and leaves in the order they reach the room; a join completes when the test
    lets it (``admit``)."""

    room_id = "room-1"
    fence = 3

    def __init__(self) -> None:
        self.inbox: list[tuple[str, RemoteMember]] = []
        self.admit = asyncio.Event()
        self.changed = asyncio.Event()

    async def join(self, member: RemoteMember, seat: str | None, since: int | None,
                   greet: bool = True) -> None:
        self.inbox.append(("join", member))
        self.changed.set()
        await self.admit.wait()

    def leave(self, member: RemoteMember) -> None:
        self.inbox.append(("leave", member))
        self.changed.set()

    def members(self) -> set[int]:
        inside: set[int] = set()
        for kind, member in self.inbox:
            (inside.add if kind == "join" else inside.discard)(member.member)
        return inside


async def until(room: FakeRoom, condition: Callable[[], bool]) -> None:
    """Until ``condition()`` holds, re-checked whenever a join or leave reaches the room."""
    async with asyncio.timeout(5):  # a guard against a hung test only
        while not condition():
            room.changed.clear()
            await room.changed.wait()


async def joined(room: FakeRoom, count: int) -> None:
    await until(room, lambda: len([k for k, _ in room.inbox if k == "join"]) >= count)


async def test_a_reset_makes_every_relayed_viewer_leave_even_one_still_joining() -> None:
    bus, room = FakeBus(), FakeRoom()
    port = OwnerPort(bus, room)  # type: ignore[arg-type]
    port.on_message(encode_inbound(RelayJoin("node-2", 1, None, None)))
    port.on_message(encode_inbound(RelayJoin("node-2", 2, "B", 4)))
    await joined(room, 2)
    port.on_message(encode_inbound(RelayJoin("node-2", 3, None, None)))  # not in the room yet

    port.reset()
    assert isinstance(decode_outbound(bus.published[-1][1]).body, Reset)
    assert port.nodes() == set()
    room.admit.set()  # the joins complete, the third after its leave
    await joined(room, 3)
    await until(room, lambda: not room.members())  # the third left after its late join
    assert [kind for kind, member in room.inbox if member.member == 3] == [
        "leave", "join", "leave"]

    # Messages of the viewers that left are ignored; they come back as new members.
    port.on_message(encode_inbound(RelayLeave("node-2", 1)))
    port.on_message(encode_inbound(RelayJoin("node-2", 4, None, None)))
    await joined(room, 4)
    assert room.members() == {4} and port.nodes() == {"node-2"}
