"""The load generator opens a member's socket again when the referee closes it with 4011
(its room stopped on the node: ``bench.failover_cost``), as the browser client does, and a
command whose socket was opened again before its answer came is sent again under its id.
Sockets that answer from a script: no server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import cast

import msgpack
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed
from websockets.frames import Close

from bench import loadgen
from protocol.constants import CloseCode
from testkit.scripted_game import Window
from tests.bench.test_loadgen_tries import room_with


def closed_with(code: int) -> ConnectionClosed:
    return ConnectionClosed(Close(code, "room moved"), None)


class ClosedSocket:
    """A socket the referee closed with ``code`` after sending ``frames``."""

    def __init__(self, code: int, frames: list[bytes] | None = None) -> None:
        self.code = code
        self.frames = frames or []

    async def send(self, frame: bytes) -> None:
        raise closed_with(self.code)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for frame in self.frames:
            yield frame
        raise closed_with(self.code)


async def test_a_command_whose_socket_was_opened_again_is_sent_again_under_its_id() -> None:
    room, fresh = room_with([None])
    player = room.players["A"]
    player.ws = cast(ClientConnection, ClosedSocket(CloseCode.ROOM_UNAVAILABLE))

    def reopened() -> None:  # what the member's reader does once the new socket is open
        player.ws = cast(ClientConnection, fresh)
        player.reopened += 1
        room.arrived(player, 0.0)

    asyncio.get_running_loop().call_soon(reopened)
    assert await room.command("A", {"type": "pass"})
    assert [command["id"] for command in fresh.sent] == ["c1"]
    assert loadgen.TALLY.tried_again >= 1


async def test_a_4011_opens_the_socket_again_and_reading_goes_on() -> None:
    room, _ = room_with([])
    frame = msgpack.packb({"type": "welcome", "version": 7})
    opened: list[loadgen.Member] = []
    again = ClosedSocket(1000, [msgpack.packb({"type": "welcome", "version": 9})])

    async def reopen(member: loadgen.Member) -> bool:
        opened.append(member)
        member.ws = cast(ClientConnection, again)
        member.reopened += 1
        return True

    member = loadgen.Member(room, "r/s0", cast(ClientConnection,
                                               ClosedSocket(CloseCode.ROOM_UNAVAILABLE,
                                                            [frame])), reopen)
    errors_before = len(loadgen.TALLY.errors)
    await member.read(decode=True)
    assert opened == [member] and member.version == 9
    # closed at last with 1000 by ``again``: not a 4011, so not opened again, an error
    assert len(loadgen.TALLY.errors) == errors_before + 1


async def test_a_close_other_than_4011_is_an_error_and_nothing_is_opened_again() -> None:
    room, _ = room_with([])
    opened: list[loadgen.Member] = []

    async def reopen(member: loadgen.Member) -> bool:
        opened.append(member)
        return True

    member = loadgen.Member(room, "r/s0", cast(ClientConnection, ClosedSocket(1011)), reopen)
    errors_before = len(loadgen.TALLY.errors)
    await member.read(decode=True)
    assert opened == [] and len(loadgen.TALLY.errors) == errors_before + 1


async def test_a_member_back_after_a_whole_window_counts_it_seen_closed_at_its_version() -> None:
    """A member whose socket was opened again while a window opened and closed never sees
    it open (its catch-up carries the window as it stands after it): the wait for every
    member to see the window closed ends once that member holds the version at which
    another member's frame said it was over, and not before."""
    room, _ = room_with([])
    [seen] = room.members
    away = loadgen.Member(room, "r/B", cast(ClientConnection, ClosedSocket(1000)))
    room.members.append(away)
    seen.version = away.version = 50
    window = {"order": 2, "step": 2, "deadline_ms": 0}
    waited = asyncio.create_task(room.window(Window("B", 2, 2, ""), let_time_out=True))

    def frame(member: loadgen.Member, version: int, open_window: dict[str, int] | None) -> None:
        member.version = version
        member.follow_window(open_window, 0.0)
        room.arrived(member, 0.0)

    frame(seen, 51, window)
    frame(seen, 52, None)  # over at version 52 for the member that saw it
    await asyncio.sleep(0)  # one turn of the loop: the wait is at its condition
    assert not waited.done()
    frame(away, 51, None)  # the catch-up, one short of the close
    await asyncio.sleep(0)
    assert not waited.done()
    frame(away, 53, None)  # past it, the window never seen open
    await asyncio.wait_for(waited, 1)
    assert all(not member.closed and not member.closed_at for member in room.members)
