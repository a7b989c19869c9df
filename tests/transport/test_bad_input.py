"""Every kind of bad input gets its exact code, and the room keeps working for the others
(issue 4, "Bad input"). A real server with the fake engine; A is the active seat."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from protocol import codec
from protocol.constants import PROTOCOL_VERSION, CloseCode, ProtocolReason
from protocol.messages import (
    Accepted,
    Command,
    Error,
    Events,
    Hello,
    Ping,
    Pong,
    Rejected,
    Snapshot,
    command_answer,
)
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import create_room, settings


class Room:
    def __init__(self, base: str, info: dict[str, Any]) -> None:
        self.base, self.id = base, info["room"]
        self.token_a = info["seats"]["A"]["token"]
        self.token_b = info["seats"]["B"]["token"]

    async def seat(self, side: str) -> Client:
        client = await Client.connect(self.base, self.id,
                                      self.token_a if side == "A" else self.token_b)
        await client.until(Snapshot)
        return client


async def open_room(**overrides: Any) -> AsyncIterator[Room]:
    async with running_server(settings(**overrides), FakeEngine()) as base:
        async with httpx.AsyncClient(base_url=base) as http:
            info = await create_room(http)
        yield Room(base, info)


@pytest.fixture
async def room() -> AsyncIterator[Room]:
    async for room in open_room():
        yield room


async def still_works(a: Client, b: Client) -> None:
    """The room keeps running for the others and has lost nothing already accepted."""
    before = a.version
    answer = await a.command({"type": "act", "value": 1})
    assert answer == Accepted(answer.id, before + 1)
    seen = await b.until(Events, lambda m: m.first == before + 1)
    assert seen.events[0] is not None and seen.events[0]["value"] == 1


async def test_malformed_msgpack_is_an_error_and_the_connection_stays(room: Room) -> None:
    a, b = await room.seat("A"), await room.seat("B")
    await b.send_raw(b"\xc1\xff\x00")
    error = await b.until(Error)
    assert error.code == ProtocolReason.MALFORMED_FRAME
    await b.send(Ping(7))
    assert await b.until(Pong) == Pong(7)
    await still_works(a, b)


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (codec.pack_plain({"type": "teleport"}), ProtocolReason.UNKNOWN_MESSAGE_TYPE),
        (codec.pack_plain([1, 2, 3]), ProtocolReason.MALFORMED_FRAME),
        (codec.pack_plain({"type": "ping"}), ProtocolReason.BAD_MESSAGE),
        (codec.pack_plain({"type": "ping", "nonce": "x"}), ProtocolReason.BAD_MESSAGE),
        (codec.pack_plain({"type": "ping", "nonce": 1, "extra": 2}), ProtocolReason.BAD_MESSAGE),
        ("a text frame", ProtocolReason.MALFORMED_FRAME),
        (codec.encode(Hello(PROTOCOL_VERSION, "again")), ProtocolReason.UNEXPECTED_MESSAGE),
    ],
)
async def test_unusable_frames_get_an_error_with_their_code(
    room: Room, frame: bytes | str, code: ProtocolReason
) -> None:
    a, b = await room.seat("A"), await room.seat("B")
    await a.send_raw(frame)
    assert (await a.until(Error)).code == code
    await still_works(a, b)


async def test_command_with_a_wrong_field_is_rejected_by_its_id(room: Room) -> None:
    a, b = await room.seat("A"), await room.seat("B")
    await a.send_raw(codec.pack_plain({"type": "command", "id": "w1", "version": "3", "body": {}}))
    answer = await a.answer("w1")
    assert isinstance(answer, Rejected) and answer.code == ProtocolReason.BAD_MESSAGE
    await still_works(a, b)


async def test_out_of_turn_wrong_seat_and_spectator_commands_are_rejected(room: Room) -> None:
    a, b = await room.seat("A"), await room.seat("B")
    spectator = await Client.connect(room.base, room.id)
    out_of_turn = await b.command({"type": "act", "value": 1})
    wrong_seat = await b.command({"type": "declare_aro", "trooper": "B-t1"})
    read_only = await spectator.command({"type": "act", "value": 1})
    malformed = await a.command({"value": 1})
    assert isinstance(out_of_turn, Rejected) and out_of_turn.code == "not_your_turn"
    assert isinstance(wrong_seat, Rejected) and wrong_seat.code == "wrong_phase"
    assert isinstance(read_only, Rejected) and read_only.code == ProtocolReason.SPECTATOR_READ_ONLY
    assert isinstance(malformed, Rejected) and malformed.code == "bad_command"
    await still_works(a, b)


@pytest.mark.parametrize(
    ("hello", "close"),
    [
        (lambda r: Hello(PROTOCOL_VERSION, r.id, "not-a-token"), CloseCode.BAD_TOKEN),
        (lambda r: Hello(PROTOCOL_VERSION, "no-such-room"), CloseCode.ROOM_NOT_FOUND),
        (lambda r: Hello(PROTOCOL_VERSION + 1, r.id), CloseCode.UNSUPPORTED_VERSION),
        (lambda r: Ping(1), CloseCode.PROTOCOL_ERROR),
    ],
)
async def test_refused_handshakes_close_with_their_code(room: Room, hello: Any, close: int) -> None:
    a, b = await room.seat("A"), await room.seat("B")
    intruder = await Client.connect(room.base, room.id, hello=False)
    await intruder.send(hello(room))
    assert await intruder.close_code() == close
    assert intruder.of(Error), "an error frame says why before the close"
    await still_works(a, b)


async def test_frame_over_the_protocol_limit_closes_with_frame_too_large(room: Room) -> None:
    a, b = await room.seat("A"), await room.seat("B")
    big = Command("big", a.version, {"type": "act", "pad": "x" * 20_000})
    await a.send(big)
    assert await a.close_code() == CloseCode.FRAME_TOO_LARGE
    spectator = await Client.connect(room.base, room.id)
    await still_works(await room.seat("A"), spectator)  # A comes back; B and the room go on
    await b.send(Ping(3))
    assert await b.until(Pong) == Pong(3)


async def test_frame_over_the_transport_ceiling_closes_with_1009(room: Room) -> None:
    a = await room.seat("A")
    await a.send_raw(b"\x00" * 100_000)
    assert await a.close_code() == CloseCode.MESSAGE_TOO_BIG


async def test_a_flood_of_messages_closes_with_rate_limited() -> None:
    async for room in open_room(rate_per_s=1.0, rate_burst=5):
        a, b = await room.seat("A"), await room.seat("B")
        for nonce in range(50):
            await b.send(Ping(nonce))
        assert await b.close_code() == CloseCode.RATE_LIMITED
        assert len(b.of(Pong)) <= 5
        assert isinstance(await a.command({"type": "act", "value": 1}), Accepted)


async def test_too_many_bad_frames_close_with_protocol_error() -> None:
    async for room in open_room(max_bad_frames=3):
        a = await room.seat("A")
        for _ in range(5):
            await a.send_raw(b"\xc1")
        assert await a.close_code() == CloseCode.PROTOCOL_ERROR
        assert len(a.of(Error)) == 4


async def test_commands_faster_than_the_room_takes_them_each_get_exactly_one_answer() -> None:
    """With a one-command inbox some may be answered room_busy (see test_room_actor for
    the deterministic case); none is lost or answered twice."""
    async for room in open_room(inbox_size=1, rate_burst=1000, rate_per_s=1000.0):
        a = await room.seat("A")
        version = a.version
        for n in range(30):
            await a.send(Command(f"f{n}", version, {"type": "act", "value": 1}))
        answers: dict[str, Accepted | Rejected] = {}
        while len(answers) < 30:
            answer = command_answer(await a.next())
            if answer is not None:
                assert answer.id not in answers, "answered twice"
                answers[answer.id] = answer
        codes = {x.code if isinstance(x, Rejected) else "accepted" for x in answers.values()}
        assert "accepted" in codes
        assert codes <= {"accepted", ProtocolReason.ROOM_BUSY, ProtocolReason.STALE_VERSION}
        assert len(answers) == 30, "every command got exactly one answer"


async def test_a_socket_that_never_says_hello_is_closed_with_handshake_timeout() -> None:
    async for room in open_room(handshake_timeout_s=0.2):
        a, b = await room.seat("A"), await room.seat("B")
        silent = await Client.connect(room.base, room.id, hello=False)
        assert await silent.close_code() == CloseCode.HANDSHAKE_TIMEOUT
        assert silent.of(Error) and silent.of(Error)[0].code == ProtocolReason.HANDSHAKE_TIMEOUT
        await still_works(a, b)
