"""A crowd's fan-out in slices (server/fanout/slices.py): seats at once, the crowd a few
per loop turn, every socket's frames in publish order, a joiner only the frames published
after it joined, a leaver nothing more, a seat's command handled between slices, and a
crowd's slices held while a seat's command is in flight (in a room, or relayed to its owner).

The loop is driven one turn at a time (``turn``): the slice's callback runs once per turn.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.cluster.relay import RelayRoom
from server.cluster.wire import Broadcast, Direct
from server.fanout import Audience, Delivery, LocalFanout
from server.fanout.slices import Slices, loop_slices
from tests.cluster.relay_stand_ins import META, NODE, FakeBus, Owner
from tests.doubles.members import RecordingMember

SIZE = 3


class Viewer:
    def __init__(self, audience: Audience, name: str, log: list[Any]) -> None:
        self.audience = audience
        self.name = name
        self.got: list[bytes] = []
        self.log = log

    def deliver(self, frame: bytes) -> None:
        self.got.append(frame)
        self.log.append((self.name, frame))


@pytest.fixture
async def slices() -> AsyncIterator[Slices]:
    found = loop_slices()
    assert found is not None
    size = found.size
    found.size = SIZE
    yield found
    found.size = size


def crowd_and_seat(size: int) -> tuple[LocalFanout, list[Viewer], Viewer, list[Any]]:
    """Room "r" of a fan-out: ``size`` spectators and seat A, all writing to one log."""
    log: list[Any] = []
    fanout = LocalFanout()
    crowd = [Viewer(Audience.SPECTATOR, f"s{i}", log) for i in range(size)]
    seat = Viewer(Audience.A, "A", log)
    for viewer in (*crowd, seat):
        fanout.subscribe("r", viewer)
    return fanout, crowd, seat, log


async def turn() -> None:
    """One turn of the loop: the slice queued before it runs once."""
    await asyncio.sleep(0)


async def test_overlapping_broadcasts_reach_each_socket_in_order(slices: Slices) -> None:
    fanout, crowd, seat, log = crowd_and_seat(7)
    fanout.publish("r", Delivery.same(1, b"one"))
    fanout.publish("r", Delivery.same(2, b"two"))  # while "one" is still being handed out
    assert seat.got == [b"one", b"two"]  # seats at once
    assert len(log) == 2 + SIZE  # and one slice of the crowd
    handed = [len(log)]
    while slices.pending:
        await turn()
        handed.append(len(log))
    assert [b - a for a, b in itertools.pairwise(handed)] == [3, 3, 3, 2]
    for viewer in crowd:
        assert viewer.got == [b"one", b"two"]
    # no socket got "two" before every socket due "one" had it: the fan-outs never interleave
    crowd_log = [frame for name, frame in log if name != "A"]
    assert crowd_log == [b"one"] * 7 + [b"two"] * 7


async def test_a_joiner_gets_only_what_comes_after_it_and_a_leaver_nothing_more(
        slices: Slices) -> None:
    log: list[Any] = []
    fanout = LocalFanout()
    crowd = [Viewer(Audience.SPECTATOR, f"s{i}", log) for i in range(6)]
    for viewer in crowd:
        fanout.subscribe("r", viewer)
    fanout.publish("r", Delivery.same(1, b"one"))  # three now, three in the next turn
    reached = {id(v) for v in crowd if v.got}
    leaver = next(v for v in crowd if id(v) not in reached)
    fanout.unsubscribe("r", leaver)  # before "one" reached it
    joiner = Viewer(Audience.SPECTATOR, "joiner", log)
    fanout.subscribe("r", joiner)  # its snapshot (the room's) is at version 1 already
    fanout.publish("r", Delivery.same(2, b"two"))
    while slices.pending:
        await turn()
    assert joiner.got == [b"two"]
    assert leaver.got == []
    for viewer in crowd:
        if viewer is not leaver:
            assert viewer.got == [b"one", b"two"]


async def test_a_seat_command_is_handled_between_two_slices(slices: Slices) -> None:
    """A room's task woken by a seat's command runs in the next loop turn, before the
    crowd's fan-out of the previous frame is over, and its frame reaches the seat at once."""
    fanout, crowd, seat, _log = crowd_and_seat(12)
    command: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()

    async def room() -> None:
        fanout.publish("r", Delivery.same(2, await command))

    handling = asyncio.create_task(room())
    await turn()  # the room waits on its inbox
    fanout.publish("r", Delivery.same(1, b"one"))
    command.set_result(b"answer")  # the seat's command arrives
    await turn()  # one slice of "one", and the room handles the command
    assert handling.done()
    assert seat.got == [b"one", b"answer"]
    assert sum(1 for v in crowd if v.got) == 2 * SIZE < len(crowd)  # "one" not over yet
    while slices.pending:
        await turn()
    for viewer in crowd:
        assert viewer.got == [b"one", b"answer"]


async def test_a_seat_command_in_flight_holds_the_crowd_not_the_seats(slices: Slices) -> None:
    fanout, crowd, seat, log = crowd_and_seat(7)
    small = [Viewer(Audience.SPECTATOR, f"t{i}", log) for i in range(SIZE)]
    for viewer in small:
        fanout.subscribe("t", viewer)
    hold = slices.hold()
    fanout.publish("t", Delivery.same(1, b"small"))  # one slice or less: at once, as ever
    assert all(viewer.got == [b"small"] for viewer in small)
    fanout.publish("r", Delivery.same(1, b"one"))
    assert seat.got == [b"one"]  # seats at once
    for _ in range(5):
        await turn()
    assert not any(viewer.got for viewer in crowd)  # the crowd waits for the command
    assert slices.held_turns >= 1
    hold.release()
    hold.release()  # (a second release changes nothing)
    assert slices.holding == 0
    while slices.pending:
        await turn()
    assert all(viewer.got == [b"one"] for viewer in crowd)


class Clock:
    """Seconds that move only when the test says."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


async def test_a_hold_keeps_a_crowd_waiting_no_longer_than_its_limit() -> None:
    clock = Clock()
    slices = Slices(size=SIZE, hold_limit_s=0.04, clock=clock)
    got: list[int] = []
    first = slices.hold()
    clock.advance(0.03)
    second = slices.hold()  # the limit counts from the first
    slices.add(list(range(7)), got.append)
    slices.run_slice()
    assert got == [] and slices.held
    clock.advance(0.011)  # 41 ms since the first hold: both still taken
    assert not slices.held
    slices.run_slice()
    assert got == [0, 1, 2]
    first.release()
    second.release()
    third = slices.hold()  # none was held meanwhile: a new limit
    slices.run_slice()
    assert got == [0, 1, 2]
    third.release()
    slices.run_slice()
    assert got == [0, 1, 2, 3, 4, 5]
    assert slices.limits_reached == 0  # each time, released (the limit's timer cancelled)


async def test_crowds_going_on_at_the_limit_are_counted() -> None:
    from server.metrics import CROWD_HELD_TURNS, CROWD_HOLD_LIMITS

    clock = Clock()
    slices = Slices(size=SIZE, hold_limit_s=0.04, clock=clock)
    got: list[int] = []
    turns_before, limits_before = CROWD_HELD_TURNS._value.get(), CROWD_HOLD_LIMITS._value.get()
    hold = slices.hold()
    slices.add(list(range(7)), got.append)
    slices.run_slice()  # held: the limit's timer is set
    assert got == [] and slices.held_turns == 1
    clock.advance(0.05)
    slices.limit_passed()  # (what the timer does, 40 ms later on the loop's clock)
    slices.run_slice()
    assert got == [0, 1, 2] and slices.limits_reached == 1
    assert CROWD_HELD_TURNS._value.get() == turns_before + 1
    assert CROWD_HOLD_LIMITS._value.get() == limits_before + 1
    hold.release()


async def test_a_seats_command_holds_the_crowd_until_its_room_has_handled_it(
        slices: Slices) -> None:
    from protocol.messages import Command
    from tests.rooms.test_room_actor import make_world

    world = await make_world()
    try:
        a = await world.join(Audience.A)
        spectator = await world.join(Audience.SPECTATOR)
        assert world.room.submit(a, "A", Command("x1", world.room.seen[Audience.A],
                                                 {"type": "act", "value": 2}))
        assert slices.holding == 1
        await a.answer("x1")
        assert slices.holding == 0
        # a spectator's command (refused) holds nothing
        assert world.room.submit(spectator, None, Command("y1", 1, {"type": "act"}))
        assert slices.holding == 0
        await spectator.answer("y1")
    finally:
        await world.registry.shutdown()


# --- a relaying node: the same for the owner's broadcasts ------------------------------

def greet(bus: FakeBus, owner: Owner, member: RecordingMember, version: int) -> None:
    """The owner's answer to ``member``'s join, as its greeting asks (the first spectator
    asks for a crowd kit, the next are greeted from it and only registered)."""
    from protocol import codec
    from protocol.messages import Snapshot, Welcome
    from server.cluster.wire import Greeting, Kit, RelayJoin, decode_inbound
    message = decode_inbound(bus.published[-1][1])
    assert isinstance(message, RelayJoin)
    welcome = codec.encode(Welcome(3, META.room_id, member.audience.value, version, {}, {}))
    if message.greeting == Greeting.KIT:
        owner.send(Kit(NODE, message.member, member.audience.value, welcome,
                       codec.encode(Snapshot(version, {}, None, {}))))
    elif message.greeting == Greeting.MEMBER:
        owner.send(Direct(NODE, message.member, welcome))


async def relay_with_crowd(seat_side: str) -> tuple[RelayRoom, FakeBus, Owner,
                                                    RecordingMember, list[RecordingMember]]:
    """A relaying node's room with a seat (``seat_side``) and seven spectators joined, each
    greeted by the owner as its join asks."""
    bus = FakeBus()
    relay = RelayRoom(bus, NODE, META, "node-1", 5.0, lambda _room: None)  # type: ignore[arg-type]
    owner = Owner(relay)
    seat = RecordingMember(Audience(seat_side))
    crowd = [RecordingMember(Audience.SPECTATOR) for _ in range(7)]
    for member in (seat, *crowd):
        joining = asyncio.create_task(
            relay.join(member, seat_side if member is seat else None, None))
        await turn()
        greet(bus, owner, member, 0)
        await joining
    return relay, bus, owner, seat, crowd


async def test_relay_crowd_in_slices_in_order_and_a_joiner_after_its_welcome(
        slices: Slices, monkeypatch: pytest.MonkeyPatch) -> None:
    import server.cluster.relay
    monkeypatch.setattr(server.cluster.relay, "_member_ids", itertools.count(1000))
    from protocol import codec
    from protocol.messages import Events, Snapshot, Welcome

    relay, bus, owner, seat, crowd = await relay_with_crowd("A")

    def firsts(member: RecordingMember) -> list[int]:
        return [m.first for m in member.frames if isinstance(m, Events)]

    def events(version: int) -> None:
        frame = codec.encode(Events(version, [{"e": "acted", "value": version}], None))
        owner.send(Broadcast(Delivery.same(version, frame)))

    events(1)
    events(2)
    assert firsts(seat) == [1, 2]
    assert sum(len(m.frames) - 2 for m in crowd) == SIZE  # one slice so far
    joiner = RecordingMember(Audience.SPECTATOR)
    joining = asyncio.create_task(relay.join(joiner, None, None))
    await turn()  # its join asks for a new kit (and one more slice is handed out)
    greet(bus, owner, joiner, 2)  # the kit's snapshot has 1, 2
    await joining
    events(3)
    while slices.pending:
        await turn()
    for member in crowd:
        assert firsts(member) == [1, 2, 3]
    assert [type(frame) for frame in joiner.frames] == [Welcome, Snapshot, Events]
    assert firsts(joiner) == [3]


async def test_a_relayed_seats_command_holds_its_nodes_crowd_until_the_owner_answers(
        slices: Slices) -> None:
    from protocol import codec
    from protocol.messages import Command, Events

    relay, _bus, owner, seat, crowd = await relay_with_crowd("B")
    assert relay.submit(seat, "B", Command("c1", 0, {"type": "act"}))
    assert slices.holding == 1  # until the owner's answer comes back
    frame = codec.encode(Events(1, [{"e": "acted"}], None, accepted="c1"))
    owner.send(Broadcast(Delivery.same(1, frame)))
    assert slices.holding == 0
    while slices.pending:
        await turn()
    assert all(isinstance(member.frames[-1], Events) for member in (seat, *crowd))
    assert relay.submit(seat, "B", Command("c2", 1, {"type": "act"}))
    assert slices.holding == 1
    relay.leave(seat)  # it left before the answer: nothing is held for it any more
    assert slices.holding == 0
