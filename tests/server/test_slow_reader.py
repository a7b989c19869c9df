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


async def test_frames_within_the_limit_are_sent_in_order() -> None:
    queue = SendQueue(3, snapshot_maker([]))
    for frame in (b"1", b"2", b"3"):
        queue.push(frame)
    assert [await queue.next() for _ in range(3)] == [b"1", b"2", b"3"]
    assert queue.resyncs == 0


async def test_a_reader_past_the_limit_loses_the_backlog_and_gets_one_fresh_snapshot() -> None:
    built: list[int] = []
    queue = SendQueue(2, snapshot_maker(built))
    for frame in (b"1", b"2", b"3", b"4", b"5"):
        queue.push(frame)
    assert queue.resyncs == 1
    assert built == [], "the snapshot is built when the writer is ready, not at the drop"
    assert await queue.next() == b"snapshot-1"
    queue.push(b"6")
    assert await queue.next() == b"6", "frames after the snapshot flow again"


async def test_close_is_sent_after_the_queued_frames_and_later_pushes_are_ignored() -> None:
    queue = SendQueue(4, snapshot_maker([]))
    queue.push(b"1")
    queue.close(CloseCode.GOING_AWAY, "bye")
    queue.push(b"2")
    assert await queue.next() == b"1"
    assert await queue.next() == CloseRequest(CloseCode.GOING_AWAY, "bye")


class BlockedSocket:
    """Stands in for a websocket whose peer stopped reading: every send waits for ``gate``."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.sent: list[dict[str, Any]] = []
        self.first_send_started = asyncio.Event()

    async def send(self, message: dict[str, Any]) -> None:
        self.first_send_started.set()
        await self.gate.wait()
        self.sent.append(message)


async def test_a_stalled_socket_catches_up_with_a_snapshot_and_the_close_still_arrives() -> None:
    socket = BlockedSocket()
    snapshots: list[Audience] = []

    def make_snapshot(audience: Audience) -> bytes:
        snapshots.append(audience)
        return b"snapshot"

    session = Session(socket, None, 3, make_snapshot)  # type: ignore[arg-type]
    session.start()
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
