"""A relay greets a crowd from a kit (``server.cluster.crowd_kit``): the first spectator of an
audience after a broadcast asks the owner for one, those arriving meanwhile wait for it, the
ones after it are greeted at once; a broadcast ends it; an asker that leaves hands the asking
on before its leave reaches the owner; the owner makes a kit of a join's welcome and snapshot
and relays the room's broadcasts while any relay has a viewer."""

from __future__ import annotations

import asyncio
from typing import Any

from protocol import codec
from protocol.messages import Snapshot, Welcome
from server.cluster.crowd_kit import CrowdKit, aged
from server.cluster.owner import OwnerPort
from server.cluster.relay import RelayRoom
from server.cluster.wire import (
    Broadcast,
    Greeting,
    Inbound,
    Kit,
    RelayJoin,
    RelayLeave,
    decode_inbound,
    decode_outbound,
    encode_inbound,
)
from server.fanout import Audience, Delivery
from tests.cluster.relay_stand_ins import META, NODE, FakeBus, Owner
from tests.doubles.members import RecordingMember

STATE = {"round": 2, "pieces": [{"id": "p1", "x": 10.5}], "hidden": b"\x00\x01"}
WINDOW = {"order": 3, "step": 1, "reactive": "B", "deadline_ms": 1_000_000, "remaining_ms": 9000}
CLOCKS = {"A": {"remaining_ms": 60_000, "running": True, "out_of_time": False},
          "B": {"remaining_ms": 50_000, "running": False, "out_of_time": False}}


def welcome(version: int, role: str = "spectator") -> bytes:
    return codec.encode(Welcome(3, META.room_id, role, version, {}, {"A": "connected"}))


def snapshot(version: int, window: dict[str, Any] | None = None,
             clocks: dict[str, Any] | None = None) -> bytes:
    return codec.encode(Snapshot(version, STATE, window, {"A": "connected"}, clocks))


def sent(bus: FakeBus) -> list[Inbound]:
    return [decode_inbound(data) for _channel, data in bus.published]


def joins(bus: FakeBus) -> list[tuple[int, str]]:
    return [(m.member, m.greeting) for m in sent(bus) if isinstance(m, RelayJoin)]


async def joining(relay: RelayRoom, member: RecordingMember,
                  role: str | None = None) -> asyncio.Task[None]:
    """``member``'s join, run until it waits (or is done)."""
    task = asyncio.create_task(relay.join(member, role, None))
    await asyncio.sleep(0)  # (one step of the task: its join is sent or it waits for a kit)
    return task


async def greeted_first(relay: RelayRoom, bus: FakeBus, owner: Owner,
                        member: RecordingMember, version: int) -> None:
    """``member``, the first spectator to join, asks for a kit; the owner's kit greets it."""
    task = await joining(relay, member)
    owner.send(Kit(NODE, joins(bus)[-1][0], "spectator", welcome(version), snapshot(version)))
    await task


def new_relay(bus: FakeBus, on_empty: list[RelayRoom] | None = None) -> RelayRoom:
    emptied = on_empty if on_empty is not None else []
    return RelayRoom(bus, NODE, META, "node-1", 5.0, emptied.append)  # type: ignore[arg-type]


async def test_one_asks_for_a_kit_the_crowd_waits_for_it_and_later_ones_need_no_owner() -> None:
    bus = FakeBus()
    relay = new_relay(bus)
    owner = Owner(relay)
    first, second, third = (RecordingMember(Audience.SPECTATOR) for _ in range(3))
    first_join = await joining(relay, first)
    second_join = await joining(relay, second)
    asker = joins(bus)
    assert [greeting for _, greeting in asker] == [Greeting.KIT], "one asks, the other waits"
    assert not first.frames and not second.frames

    owner.send(Kit(NODE, asker[0][0], "spectator", welcome(4), snapshot(4)))
    await asyncio.gather(first_join, second_join)
    for member in (first, second):
        assert [type(frame) for frame in member.frames] == [Welcome, Snapshot]
        assert member.frames[1] == Snapshot(4, STATE, None, {"A": "connected"})

    await (await joining(relay, third))  # greeted at once, from the kit
    assert third.frames == first.frames
    assert [greeting for _, greeting in joins(bus)] == [
        Greeting.KIT, Greeting.QUIET, Greeting.QUIET], "the owner only registers the others"


async def test_a_broadcast_ends_the_kit_and_the_next_newcomer_asks_again() -> None:
    bus = FakeBus()
    relay = new_relay(bus)
    owner = Owner(relay)
    first, later = RecordingMember(Audience.SPECTATOR), RecordingMember(Audience.SPECTATOR)
    await greeted_first(relay, bus, owner, first, 4)
    event = codec.encode(Snapshot(5, {}, None, {}))  # (any frame: what matters is that it came)
    owner.send(Broadcast(Delivery.same(5, event)))
    assert first.frames[-1] == Snapshot(5, {}, None, {}), "the live viewer got it"

    task = await joining(relay, later)
    assert joins(bus)[-1] == (joins(bus)[-1][0], Greeting.KIT), "the old kit misses event 5"
    assert not later.frames
    owner.send(Kit(NODE, joins(bus)[-1][0], "spectator", welcome(5), snapshot(5)))
    await task
    assert later.frames[0] == codec.decode_server(welcome(5))


async def test_an_asker_that_leaves_hands_the_asking_on_before_its_leave_is_sent() -> None:
    bus = FakeBus()
    relay = new_relay(bus)
    owner = Owner(relay)
    asker, waiting = RecordingMember(Audience.SPECTATOR), RecordingMember(Audience.SPECTATOR)
    asker_join = await joining(relay, asker)
    waiting_join = await joining(relay, waiting)
    relay.leave(asker)
    asker_join.cancel()
    messages = sent(bus)
    assert [type(m) for m in messages] == [RelayJoin, RelayJoin, RelayLeave]
    assert [m.greeting for m in messages[:2]] == [Greeting.KIT, Greeting.KIT]  # type: ignore[union-attr]
    # The owner relays on: the waiting one is registered before the asker leaves.
    assert messages[2].member == messages[0].member

    owner.send(Kit(NODE, messages[0].member, "spectator", welcome(1), snapshot(1)))
    await waiting_join  # the first kit greets it; its own join is already at the owner
    assert [type(frame) for frame in waiting.frames] == [Welcome, Snapshot]
    assert len(sent(bus)) == 3, "no quiet join for one already registered"


async def test_the_last_viewer_leaving_ends_the_kit() -> None:
    bus = FakeBus()
    emptied: list[RelayRoom] = []
    relay = new_relay(bus, emptied)
    owner = Owner(relay)
    only = RecordingMember(Audience.SPECTATOR)
    await greeted_first(relay, bus, owner, only, 1)
    relay.leave(only)  # the owner may stop relaying once it has this leave
    assert emptied == [relay]
    relay.stopped = False  # (kept, as after a failed takeover: ``ClusterNode._keep_relay``)
    again = RecordingMember(Audience.SPECTATOR)
    await joining(relay, again)
    assert joins(bus)[-1][1] == Greeting.KIT and not again.frames


async def test_casters_ask_for_their_own_kit_and_say_so_to_the_owner() -> None:
    bus = FakeBus()
    relay = new_relay(bus)
    owner = Owner(relay)
    spectator, caster = RecordingMember(Audience.SPECTATOR), RecordingMember(Audience.CASTER)
    await greeted_first(relay, bus, owner, spectator, 2)
    caster_join = await joining(relay, caster, "caster")
    asked = sent(bus)[-1]
    assert isinstance(asked, RelayJoin)
    assert (asked.seat, asked.greeting) == ("caster", Greeting.KIT), "not the spectators' kit"
    owner.send(Kit(NODE, asked.member, "caster", welcome(0, "caster"), snapshot(0)))
    await caster_join
    assert caster.frames[0] == codec.decode_server(welcome(0, "caster"))


async def test_a_kit_handed_out_later_gives_the_window_and_the_running_clock_less_time() -> None:
    kit = CrowdKit.of(welcome(1), snapshot(1, WINDOW, CLOCKS), received_at=100.0)
    assert kit.snapshot_at(100.0) == snapshot(1, WINDOW, CLOCKS)
    later = codec.decode_server(kit.snapshot_at(102.5))
    assert isinstance(later, Snapshot) and later.window is not None and later.clocks
    assert later.window["remaining_ms"] == 6500
    assert later.clocks["A"]["remaining_ms"] == 57_500, "A's clock runs"
    assert later.clocks["B"]["remaining_ms"] == 50_000, "B's does not"
    assert later.state == STATE and later.version == 1
    much_later = aged(codec.decode_server(snapshot(1, WINDOW, CLOCKS)), 70_000)  # type: ignore[arg-type]
    assert much_later.window is not None and much_later.clocks is not None
    assert much_later.window["remaining_ms"] == 0 and much_later.clocks["A"]["remaining_ms"] == 0


async def test_a_kit_without_time_left_on_it_is_handed_out_as_it_came() -> None:
    frame = snapshot(7)
    assert CrowdKit.of(welcome(7), frame, received_at=0.0).snapshot_at(60.0) is frame


class FakeRoom:
    room_id = "room-1"
    fence = 3

    def __init__(self) -> None:
        self.joined: list[tuple[int, bool]] = []

    async def join(self, member, seat, since, greet=True):  # type: ignore[no-untyped-def]
        self.joined.append((member.member, greet))
        if greet:
            member.deliver(welcome(9))
            member.deliver(snapshot(9))
            member.deliver(b"an answer later")

    def leave(self, member) -> None:  # type: ignore[no-untyped-def]
        self.joined.append((member.member, False))


async def test_the_owner_sends_a_kit_join_its_welcome_and_snapshot_as_one_kit() -> None:
    bus, room = FakeBus(), FakeRoom()
    port = OwnerPort(bus, room)  # type: ignore[arg-type]
    assert not port.relaying()
    port.on_message(encode_inbound(RelayJoin(NODE, 1, None, 5, Greeting.KIT)))
    assert port.relaying(), "broadcasts go on the bus from the join's arrival"
    port.on_message(encode_inbound(RelayJoin(NODE, 2, None, None, Greeting.QUIET)))
    await asyncio.sleep(0)  # (the joins' tasks run)
    assert room.joined == [(1, True), (2, False)]
    bodies = [decode_outbound(data).body for _channel, data in bus.published]
    assert bodies[0] == Kit(NODE, 1, "spectator", welcome(9), snapshot(9))
    assert len(bodies) == 2 and not isinstance(bodies[1], Kit), "then frames as usual"
    port.on_message(encode_inbound(RelayLeave(NODE, 1)))
    assert port.relaying()
    port.on_message(encode_inbound(RelayLeave(NODE, 2)))
    assert not port.relaying()
