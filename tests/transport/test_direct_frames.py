"""Frames written straight to uvicorn's transport (server/transport/direct_frames.py): the
bytes are the frames websockets itself would parse, the writer steps aside wherever ASGI
``send`` would wait or refuse, and the installed uvicorn is the one the writer knows."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import WebSocketRoute
from starlette.types import Receive, Scope, Send
from websockets.asyncio.client import connect
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.streams import StreamReader

from protocol.messages import Snapshot
from server.transport.direct_frames import DirectFrames, KeepServerSend, binary_frame
from server.transport.session import Session
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.helpers import create_room, settings


def parse_frames(data: bytes, count: int) -> list[Frame]:
    """``count`` frames read from ``data`` by websockets' own parser, as a client would."""
    reader = StreamReader()
    reader.feed_data(data)
    frames = []
    for _ in range(count):
        parser = Frame.parse(reader.read_exact, mask=False)
        with pytest.raises(StopIteration) as done:  # the whole frame is there: no waiting
            next(parser)
        frames.append(done.value.value)
    return frames


@pytest.mark.parametrize(("size", "header"), [
    (0, 2), (1, 2), (125, 2), (126, 4), (200, 4), (65535, 4), (65536, 10), (70000, 10)])
def test_each_length_encoding_parses_as_one_binary_message(size: int, header: int) -> None:
    payload = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
    assert len(binary_frame(payload)) == header + size, "the shortest length encoding"
    frames = parse_frames(binary_frame(payload) + binary_frame(b"next"), 2)
    assert [(f.opcode, f.fin, f.rsv1, f.data) for f in frames] == [
        (Opcode.BINARY, True, False, payload), (Opcode.BINARY, True, False, b"next")]


class FakeTransport:
    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.closing = False

    def is_closing(self) -> bool:
        return self.closing

    def write(self, data: bytes) -> None:
        self.written.append(data)


def open_connection() -> Any:
    """The attributes of uvicorn's protocol the writer reads, in the state of an open
    websocket whose reader keeps up."""
    writable = asyncio.Event()
    writable.set()
    return SimpleNamespace(close_sent=False, disconnected=False, handshake_complete=True,
                           writable=writable, conn=SimpleNamespace(state=State.OPEN),
                           transport=FakeTransport())


def test_an_open_connection_gets_the_framed_payload_written() -> None:
    connection = open_connection()
    assert DirectFrames(connection).write(b"payload")
    assert connection.transport.written == [binary_frame(b"payload")]


@pytest.mark.parametrize("state", [
    "close_sent", "disconnected", "handshake_pending", "paused", "closing_state",
    "transport_closing"])
def test_where_send_would_wait_or_refuse_nothing_is_written(state: str) -> None:
    connection = open_connection()
    if state == "close_sent":
        connection.close_sent = True
    elif state == "disconnected":
        connection.disconnected = True
    elif state == "handshake_pending":
        connection.handshake_complete = False
    elif state == "paused":
        connection.writable.clear()  # uvicorn's pause_writing: the peer does not keep up
    elif state == "closing_state":
        connection.conn.state = State.CLOSING
    else:
        connection.transport.closing = True
    assert not DirectFrames(connection).write(b"payload")
    assert not DirectFrames(connection).write_all([b"one", b"two"])
    assert connection.transport.written == []


def test_frames_written_together_are_one_write_that_parses_as_each_frame() -> None:
    connection = open_connection()
    payloads = [b"welcome", bytes(300), b"x" * 70_000]
    assert DirectFrames(connection).write_all(payloads)
    [written] = connection.transport.written
    assert [frame.data for frame in parse_frames(written, 3)] == payloads


class RecordingSend:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def __call__(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


def test_a_session_writes_directly_and_uses_asgi_only_when_the_writer_steps_aside() -> None:
    connection = open_connection()
    send = RecordingSend()
    session = Session(send, "A", 4, lambda _audience: b"snapshot",  # type: ignore[arg-type]
                      DirectFrames(connection))
    session.deliver(b"1")
    connection.writable.clear()
    session.deliver(b"2")  # paused: through ASGI, which is where the wait belongs
    assert connection.transport.written == [binary_frame(b"1")]
    assert [m["bytes"] for m in send.sent] == [b"2"]


def test_held_frames_go_out_in_order_in_one_write() -> None:
    connection = open_connection()
    session = Session(RecordingSend(), None, 4, lambda _audience: b"snapshot",  # type: ignore[arg-type]
                      DirectFrames(connection))
    session.hold_frames()
    session.deliver(b"welcome")
    session.deliver(b"count")  # e.g. a timer's frame while the catch-up reads the store
    session.deliver(b"catch-up")
    assert connection.transport.written == [], "nothing written while held"
    session.send_held()
    assert connection.transport.written == [
        binary_frame(b"welcome") + binary_frame(b"count") + binary_frame(b"catch-up")]
    session.deliver(b"next")
    assert connection.transport.written[1:] == [binary_frame(b"next")], "delivered at once again"


def test_held_frames_go_through_asgi_one_by_one_where_the_socket_cannot_be_written() -> None:
    connection = open_connection()
    send = RecordingSend()
    session = Session(send, "A", 4, lambda _audience: b"snapshot",  # type: ignore[arg-type]
                      DirectFrames(connection))
    session.hold_frames()
    session.deliver(b"welcome")
    session.deliver(b"catch-up")
    connection.writable.clear()  # the reader fell behind meanwhile
    session.send_held()
    assert connection.transport.written == []
    assert [m["bytes"] for m in send.sent] == [b"welcome", b"catch-up"]


async def test_a_close_while_frames_are_held_sends_them_first() -> None:
    connection = open_connection()
    send = RecordingSend()
    session = Session(send, None, 4, lambda _audience: b"snapshot",  # type: ignore[arg-type]
                      DirectFrames(connection))
    session.hold_frames()
    session.deliver(b"welcome")
    session.close(4000, "room closed")
    await session.drained()
    assert connection.transport.written == [binary_frame(b"welcome")]
    assert send.sent == [{"type": "websocket.close", "code": 4000, "reason": "room closed"}]
    session.send_held()  # (the greeting's own release, after the close: nothing left)
    assert connection.transport.written == [binary_frame(b"welcome")]


class EchoBothWays:
    """A raw ASGI app (Starlette calls an object as one) that accepts, then answers each
    message (``letter:size``) with three frames of ``size`` letters and a digit -- direct,
    through ASGI, direct -- so the client sees both paths interleave in order. Its first
    frame says whether a direct writer was found."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        direct = DirectFrames.for_scope(scope)
        await send({"type": "websocket.send", "bytes": b"direct" if direct else b"asgi"})
        while (message := await receive())["type"] == "websocket.receive":
            letter, size = message["bytes"].split(b":")
            body = letter * int(size)
            for n in range(3):
                frame = body + str(n).encode()
                if n == 1 or direct is None or not direct.write(frame):
                    await send({"type": "websocket.send", "bytes": frame})
        # The client closed: uvicorn has answered its close.


@pytest.mark.parametrize(("compression", "expected"), [(False, b"direct"), (True, b"asgi")])
async def test_under_the_installed_uvicorn_frames_interleave_in_order(
        compression: bool, expected: bytes) -> None:
    app = Starlette(routes=[WebSocketRoute("/echo", EchoBothWays())],
                    middleware=[Middleware(KeepServerSend)])
    sizes = {b"a": 10, b"b": 300, b"c": 70_000}  # the three header lengths
    async with (running_server(settings(ws_per_message_deflate=compression), app=app) as url,
                connect(url.replace("http://", "ws://") + "/echo", max_size=None,
                        compression="deflate" if compression else None) as ws):
        assert await ws.recv() == expected
        received = []
        for letter, size in sizes.items():
            await ws.send(letter + b":" + str(size).encode())
            received += [await ws.recv() for _ in range(3)]
    assert received == [letter * size + str(n).encode()
                        for letter, size in sizes.items() for n in range(3)]


@pytest.mark.parametrize("enabled", [True, False])
async def test_spectators_always_write_directly_seats_unless_turned_off(
        monkeypatch: pytest.MonkeyPatch, enabled: bool) -> None:
    written: list[bytes] = []
    original, original_all = DirectFrames.write, DirectFrames.write_all

    def recording(self: DirectFrames, payload: bytes) -> bool:
        done = original(self, payload)
        if done:
            written.append(payload)
        return done

    def recording_all(self: DirectFrames, payloads: list[bytes]) -> bool:
        done = original_all(self, payloads)
        if done:
            written.extend(payloads)
        return done

    monkeypatch.setattr(DirectFrames, "write", recording)
    monkeypatch.setattr(DirectFrames, "write_all", recording_all)
    async with running_server(settings(direct_frames=enabled)) as url:
        async with httpx.AsyncClient(base_url=url) as http:
            room = await create_room(http)
        spectator = await Client.connect(url, room["room"])
        await spectator.until(Snapshot)
        await spectator.ws.close()
        assert len(spectator.raw) >= 2
        assert written == spectator.raw, "the welcome and the snapshot went the direct way"
        written.clear()
        seat = await Client.connect(url, room["room"], room["seats"]["A"]["token"])
        await seat.until(Snapshot)
        await seat.ws.close()
    assert len(seat.raw) >= 2
    if enabled:
        # (and its presence frame, written after the snapshot, read or not before the close)
        assert written[:len(seat.raw)] == seat.raw, "a seat's frames too with it on"
    else:
        assert written == [], "REFEREE_DIRECT_FRAMES=0: every frame of a seat through ASGI"


def test_a_payload_framed_again_is_the_same_frame_and_a_new_one_is_framed_anew() -> None:
    payload = bytes(300)
    first = binary_frame(payload)
    assert binary_frame(payload) is first, "the fan-out's next socket reuses the framing"
    equal_but_another = bytes(300)
    assert binary_frame(equal_but_another) == first
    other = b"\x01" * 10
    assert parse_frames(binary_frame(other), 1)[0].data == other
    assert parse_frames(binary_frame(payload), 1)[0].data == payload


async def test_a_joining_viewer_gets_its_welcome_and_catch_up_in_one_write(
        monkeypatch: pytest.MonkeyPatch) -> None:
    together: list[list[bytes]] = []
    original_all = DirectFrames.write_all

    def recording_all(self: DirectFrames, payloads: list[bytes]) -> bool:
        done = original_all(self, payloads)
        if done:
            together.append(list(payloads))
        return done

    monkeypatch.setattr(DirectFrames, "write_all", recording_all)
    async with running_server(settings()) as url:
        async with httpx.AsyncClient(base_url=url) as http:
            room = await create_room(http)
        for token in (None, room["seats"]["A"]["token"]):
            together.clear()
            viewer = await Client.connect(url, room["room"], token)
            await viewer.until(Snapshot)
            await viewer.ws.close()
            assert together == [viewer.raw[:2]], "the welcome and the snapshot, one write"
