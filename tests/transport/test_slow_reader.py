"""A slow reader is dropped to a snapshot instead of holding frames or anyone's latency
(docs/server.md, "Slow readers"): ``SendQueue`` and the ``Session`` writer over a socket whose
sends block until the test lets them through."""

from __future__ import annotations

import asyncio
from typing import Any

from protocol.constants import CloseCode
from server.fanout import Audience
from server.transport.send_queue import CloseRequest, SendQueue
from server.transport.session import Session


def snapshot_maker(counter: list[int]) -> Any:
    def make() -> bytes:
        counter.append(1)
        return f"snapshot-{len(counter)}".encode()
    return make


def test_frames_within_the_limit_are_sent_in_order() -> None:
    queue = SendQueue(3, snapshot_maker([]))
    for frame in (b"1", b"2", b"3"):
        queue.push(frame)
    assert [queue.pop() for _ in range(3)] == [b"1", b"2", b"3"]
    assert queue.resyncs == 0


def test_a_reader_past_the_limit_loses_the_backlog_and_gets_one_fresh_snapshot() -> None:
    built: list[int] = []
    queue = SendQueue(2, snapshot_maker(built))
    for frame in (b"1", b"2", b"3", b"4", b"5"):
        queue.push(frame)
    assert queue.resyncs == 1
    assert built == [], "the snapshot is built when the writer is ready, not at the drop"
    assert queue.pop() == b"snapshot-1"
    queue.push(b"6")
    assert queue.pop() == b"6", "frames after the snapshot flow again"


def test_close_is_sent_after_the_queued_frames_and_later_pushes_are_ignored() -> None:
    queue = SendQueue(4, snapshot_maker([]))
    queue.push(b"1")
    queue.close(CloseCode.GOING_AWAY, "bye")
    queue.push(b"2")
    assert queue.pop() == b"1"
    assert queue.pop() == CloseRequest(CloseCode.GOING_AWAY, "bye")


def test_a_drained_queue_says_so_instead_of_waiting() -> None:
    queue = SendQueue(4, snapshot_maker([]))
    assert queue.empty and queue.pop() is None
    queue.push(b"1")
    assert not queue.empty
    assert queue.pop() == b"1"
    assert queue.pop() is None


class BlockedSocket:
    """Stands in for a websocket whose peer stopped reading: every send waits for ``gate``."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.sent: list[dict[str, Any]] = []
        self.first_send_started = asyncio.Event()
        self._changed = asyncio.Event()

    async def send(self, message: dict[str, Any]) -> None:
        self.first_send_started.set()
        await self.gate.wait()
        self.sent.append(message)
        self._changed.set()

    async def sent_count(self, count: int) -> None:
        while len(self.sent) < count:
            self._changed.clear()
            await self._changed.wait()


async def test_a_stalled_socket_catches_up_with_a_snapshot_and_the_close_still_arrives() -> None:
    socket = BlockedSocket()
    snapshots: list[Audience] = []

    def make_snapshot(audience: Audience) -> bytes:
        snapshots.append(audience)
        return b"snapshot"

    session = Session(socket.send, None, 3, make_snapshot)  # type: ignore[arg-type]
    session.deliver(b"in-flight")
    await socket.first_send_started.wait()  # the writer is stuck inside send()
    for n in range(10):
        session.deliver(f"frame-{n}".encode())
    assert session.resyncs == 1
    session.close(CloseCode.GOING_AWAY, "done")
    socket.gate.set()
    await session.finish()
    payloads = [m.get("bytes") for m in socket.sent if m["type"] == "websocket.send"]
    assert payloads == [b"in-flight", b"snapshot"]
    assert snapshots == [Audience.SPECTATOR]
    assert socket.sent[-1] == {"type": "websocket.close", "code": CloseCode.GOING_AWAY,
                               "reason": "done"}


class OpenSocket:
    """A websocket that takes every frame at once, like a transport with room to spare."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


async def test_a_socket_that_keeps_up_gets_each_frame_written_in_place_without_a_task() -> None:
    socket = OpenSocket()
    session = Session(socket.send, "A", 3, lambda _audience: b"snapshot")  # type: ignore[arg-type]
    tasks_before = asyncio.all_tasks()
    for n in range(10):
        session.deliver(f"frame-{n}".encode())
        # Written before this test awaits anything: no writer task was involved.
        assert socket.sent[-1] == {"type": "websocket.send", "bytes": f"frame-{n}".encode()}
    assert asyncio.all_tasks() == tasks_before, "no writer task for a socket that keeps up"
    assert session.resyncs == 0
    session.close(CloseCode.NORMAL, "bye")
    await session.finish()
    assert socket.sent[-1] == {"type": "websocket.close", "code": CloseCode.NORMAL,
                               "reason": "bye"}


async def test_after_a_stall_the_writer_drains_in_order_and_frames_go_in_place_again() -> None:
    socket = BlockedSocket()
    session = Session(socket.send, None, 8, lambda _audience: b"snapshot")  # type: ignore[arg-type]
    session.deliver(b"1")  # waits inside send(): a writer task takes the rest of it over
    session.deliver(b"2")  # queued behind it
    assert socket.sent == []
    socket.gate.set()
    await socket.sent_count(2)
    assert [m["bytes"] for m in socket.sent] == [b"1", b"2"]
    await session.drained()
    session.deliver(b"3")
    assert socket.sent[-1]["bytes"] == b"3", "written in place once the socket keeps up"
