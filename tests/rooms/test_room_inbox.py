"""The room's inbox (server/rooms/inbox.py): commands bounded, control messages always
taken, arrival order within each lane, the crowd's joins after seats' commands and timers,
a loop turn after each batch of them so that a command can get in between, and one after a
command or a timer before the crowd's next message, so that their frames go out first.

The loop is driven one turn at a time (``turn``); no clock is involved."""

from __future__ import annotations

import asyncio

from protocol.messages import Events, Welcome
from server.fanout import Audience
from server.rooms.inbox import RoomInbox
from tests.rooms.test_room_actor import make_world


async def turn() -> None:
    await asyncio.sleep(0)


async def test_commands_and_timers_keep_their_order_and_go_before_the_crowd() -> None:
    inbox: RoomInbox[str] = RoomInbox(capacity=2)
    inbox.post_crowd("join s1")
    inbox.post("window expired")
    assert inbox.offer("command 1")
    inbox.post_crowd("leave s1")
    assert inbox.offer("command 2")
    assert not inbox.offer("command 3")  # two commands wait: full
    assert len(inbox) == 5
    got = [await inbox.get() for _ in range(5)]
    assert got == ["window expired", "command 1", "command 2", "join s1", "leave s1"]
    assert inbox.offer("command 3")  # room again


async def test_after_a_batch_of_the_crowd_a_command_gets_in() -> None:
    inbox: RoomInbox[str] = RoomInbox(capacity=10, crowd_batch=3)
    for n in range(7):
        inbox.post_crowd(f"join {n}")
    got: list[str] = []

    async def room() -> None:
        while len(got) < 8:
            got.append(await inbox.get())

    running = asyncio.create_task(room())
    await turn()  # the room takes a batch of three, then gives the loop a turn
    assert got == ["join 0", "join 1", "join 2"]
    assert inbox.offer("command")  # a seat's reader runs in that turn
    await turn()
    assert got[3:] == ["command"]  # and the loop gets a turn after it
    await turn()
    assert got[3:] == ["command", "join 3", "join 4", "join 5"]
    await running
    assert got[-1] == "join 6"


async def test_after_commands_and_timers_the_loop_gets_a_turn_before_the_crowd() -> None:
    """What a command's handling set going (the room bus's writer, a socket's send) runs
    before the crowd's next join; two commands in a row, or a timer after a command, need
    no turn between them."""
    inbox: RoomInbox[str] = RoomInbox(capacity=10)
    inbox.post_crowd("join 0")
    assert inbox.offer("command 1")
    assert inbox.offer("command 2")
    inbox.post("window expired")
    log: list[str] = []

    async def room() -> None:
        while len(log) < 6:
            item = await inbox.get()
            log.append(item)
            if item.startswith("command"):
                # the command's answer, sent by another task once the loop turns
                asyncio.get_running_loop().call_soon(log.append, f"answer to {item}")

    running = asyncio.create_task(room())
    await turn()
    assert log == ["command 1", "command 2", "window expired"]  # in one turn
    await running
    assert log[3:] == ["answer to command 1", "answer to command 2", "join 0"]


async def test_drain_returns_both_lanes() -> None:
    inbox: RoomInbox[str] = RoomInbox(capacity=2)
    inbox.post_crowd("join")
    assert inbox.offer("command")
    assert inbox.drain() == ["command", "join"]
    assert len(inbox) == 0 and inbox.offer("a") and inbox.offer("b")


async def test_a_seat_command_is_handled_before_queued_spectator_joins() -> None:
    """Spectators who were waiting to join when a seat's command came in join after it:
    their welcome is at the command's version, and none of them gets its events frame."""
    world = await make_world()
    try:
        a = await world.join(Audience.A)
        joining = [asyncio.create_task(world.join(Audience.SPECTATOR)) for _ in range(20)]
        await turn()  # their joins are all in the inbox; the room has not run yet
        assert len(world.room.inbox) == 20
        answer = await world.command(a, {"type": "act", "value": 2}, "x1")
        assert answer.version == 1  # type: ignore[union-attr]
        spectators = await asyncio.gather(*joining)
        for spectator in spectators:
            welcome = spectator.frames[0]
            assert isinstance(welcome, Welcome) and welcome.version == 1
            assert not any(isinstance(m, Events) and m.first == 1 for m in spectator.frames)
    finally:
        await world.registry.shutdown()
