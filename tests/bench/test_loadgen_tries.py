"""The load generator's setup sends a command answered ``storage_unavailable`` again under
its id, as a client does, and stops at ``SETUP_TRIES``; any other rejection ends the room's
setup at once. With ``--tries`` (``bench.reshard_cost``) the game's commands are sent again
the same way, and each send again is counted. A socket that answers from a script: no
server."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import msgpack
import pytest
from websockets.asyncio.client import ClientConnection

from bench import loadgen
from protocol.messages import Accepted, Rejected
from testkit.scripted_game import plan

UNAVAILABLE = "storage_unavailable"


class ScriptedSocket:
    """Answers each command it is sent with the next of ``codes`` (None: accepted, the room
    one version further), as the referee would: the answer, then the member's new version."""

    def __init__(self, codes: list[str | None]) -> None:
        self.codes = codes
        self.sent: list[dict[str, Any]] = []
        self.member: loadgen.Member | None = None

    async def send(self, frame: bytes) -> None:
        command = msgpack.unpackb(frame, raw=False)
        self.sent.append(command)
        member = self.member
        assert member is not None
        code = self.codes.pop(0)
        answer: Accepted | Rejected
        if code is None:
            member.version += 1
            answer = Accepted(command["id"], member.version)
        else:
            answer = Rejected(command["id"], code, "try again")
        member.answers[command["id"]] = answer
        asyncio.get_running_loop().call_soon(member.room.arrived, member, 0.0)


def room_with(codes: list[str | None], tries: int = 1,
              backoff: str = "fixed") -> tuple[loadgen.RoomDriver, ScriptedSocket]:
    room = loadgen.RoomDriver(0, plan(7), 200, tries, backoff)
    socket = ScriptedSocket(codes)
    member = loadgen.Member(room, "r/A", cast(ClientConnection, socket))
    member.version = 0
    socket.member = member
    room.members.append(member)
    room.players["A"] = member
    return room, socket


async def test_a_setup_command_refused_for_storage_is_sent_again_under_its_id() -> None:
    room, socket = room_with([UNAVAILABLE, UNAVAILABLE, None])
    assert await room.command("A", {"type": "ready"}, tries=loadgen.SETUP_TRIES)
    assert [sent["id"] for sent in socket.sent] == ["c1", "c1", "c1"]
    assert room.members[0].version == 1


async def test_the_last_try_refused_ends_the_setup_with_that_answer() -> None:
    room, socket = room_with([UNAVAILABLE] * loadgen.SETUP_TRIES)
    with pytest.raises(RuntimeError, match="ready rejected: storage_unavailable"):
        await room.command("A", {"type": "ready"}, tries=loadgen.SETUP_TRIES)
    assert len(socket.sent) == loadgen.SETUP_TRIES


async def test_another_refusal_is_not_sent_again_nor_is_any_command_outside_the_setup() -> None:
    room, socket = room_with(["wrong_phase"])
    with pytest.raises(RuntimeError, match="wrong_phase"):
        await room.command("A", {"type": "ready"}, tries=loadgen.SETUP_TRIES)
    assert len(socket.sent) == 1
    room, socket = room_with([UNAVAILABLE])
    with pytest.raises(RuntimeError, match=UNAVAILABLE):
        await room.command("A", {"type": "ready"})  # measured phases: one send
    assert len(socket.sent) == 1


async def test_with_tries_a_game_command_is_sent_again_and_each_send_again_counted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loadgen, "TALLY", loadgen.Tally())
    monkeypatch.setattr(loadgen, "TRY_AGAIN_PAUSE_S", 0.0)
    room, socket = room_with([UNAVAILABLE, UNAVAILABLE, None], tries=3)
    assert await room.command("A", {"type": "ready"})
    assert [sent["id"] for sent in socket.sent] == ["c1", "c1", "c1"]
    assert loadgen.TALLY.tried_again == 2
    assert loadgen.TALLY.result()["tried_again"] == 2
    assert len(loadgen.TALLY.latencies_ms) == 1  # one command, from its first send


async def test_with_the_browsers_backoff_each_pause_is_the_browsers_for_that_attempt(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loadgen, "TALLY", loadgen.Tally())
    attempts: list[int] = []

    def pause(attempt: int) -> float:
        attempts.append(attempt)
        return 0.0

    monkeypatch.setattr(loadgen, "browser_pause_s", pause)
    room, socket = room_with([UNAVAILABLE, UNAVAILABLE, UNAVAILABLE, None], tries=5,
                             backoff="browser")
    assert await room.command("A", {"type": "ready"})
    assert [sent["id"] for sent in socket.sent] == ["c1"] * 4
    assert attempts == [0, 1, 2]


def test_the_browsers_pause_doubles_from_250_ms_to_2_s_each_drawn_from_half_to_all(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loadgen.random, "random", lambda: 1.0)
    assert [loadgen.browser_pause_s(n) for n in range(6)] == [0.25, 0.5, 1.0, 2.0, 2.0, 2.0]
    monkeypatch.setattr(loadgen.random, "random", lambda: 0.0)
    assert [loadgen.browser_pause_s(n) for n in range(4)] == [0.125, 0.25, 0.5, 1.0]


async def test_a_wait_past_the_guard_says_what_it_awaited_and_where_each_member_stood(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loadgen, "GUARD_S", 0.0)  # (nothing will make the condition true)
    room, _ = room_with([])
    with pytest.raises(TimeoutError, match=r"room 0, order 0: the close not within 0 s "
                                           r"\(r/A v0 window None closed \[\] reopened 0\)"):
        await room.until(lambda: False, "the close")
