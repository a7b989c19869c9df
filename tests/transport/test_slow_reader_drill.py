"""The slow-socket path reached for real (the review: a stalled spectator never reached it,
~231 events of frames fitting in the kernel's socket buffers). A spectator stops reading on
a real socket with small kernel buffers (the server's accepted sockets inherit the
listener's SO_SNDBUF, the client's SO_RCVBUF is set before it connects, its websocket
library stops reading after one queued frame); the seat plays on until the node drops the
spectator to a snapshot (``referee_slow_reader_resyncs_total`` moves: no sleep, no time
limit); then the spectator reads again and must reach the seat's version through that
snapshot with no gap (``wsclient.Client`` asserts every events frame follows the version it
holds)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator

import httpx
import uvicorn
from prometheus_client import REGISTRY
from websockets.asyncio.client import connect

from protocol.constants import PROTOCOL_VERSION, WS_PATH
from protocol.messages import Accepted, Hello, Snapshot, Welcome
from server.app import create_app
from server.transport.uvicorn_options import websocket_options
from testkit.wsclient import Client
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import create_room, settings

SMALL_BUFFER = 4096
MOST_COMMANDS = 20_000
"""Only against a hung test: the drop comes after a few hundred commands."""


def resyncs() -> float:
    return REGISTRY.get_sample_value("referee_slow_reader_resyncs_total") or 0.0


@contextlib.asynccontextmanager
async def small_buffered_node() -> AsyncIterator[str]:
    config = settings(send_queue_frames=16, rate_burst=1_000_000, rate_per_s=1_000_000.0)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SMALL_BUFFER)  # inherited on accept
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(
        create_app(config, engine=FakeEngine()), lifespan="on", log_level="warning",
        **websocket_options(config)))  # type: ignore[arg-type]
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        await task
        sock.close()


async def stalled_spectator(base: str, room: str) -> Client:
    """A spectator whose kernel receive buffer is small and whose websocket stops reading
    from it once one frame waits unread."""
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_BUFFER)  # before connecting
    raw.setblocking(False)
    await asyncio.get_running_loop().sock_connect(raw, ("127.0.0.1", int(base.rsplit(":", 1)[1])))
    ws = await connect(f"ws{base.removeprefix('http')}{WS_PATH}", sock=raw, max_queue=1,
                       max_size=None)
    client = Client(ws)
    await client.send(Hello(PROTOCOL_VERSION, room, None, None))
    client.welcome = await client.until(Welcome)
    await client.until(Snapshot)
    return client


async def test_a_stalled_spectator_is_dropped_to_a_snapshot_and_resyncs_with_no_gap() -> None:
    async with small_buffered_node() as base:
        async with httpx.AsyncClient(base_url=base) as http:
            created = await create_room(http)
        room = created["room"]
        seat = await Client.connect(base, room, created["seats"]["A"]["token"])
        spectator = await stalled_spectator(base, room)
        before = resyncs()
        commands = 0
        while resyncs() == before:  # the spectator reads nothing meanwhile
            assert commands < MOST_COMMANDS, "the stalled spectator was never dropped"
            assert isinstance(await seat.command({"type": "act", "value": commands}), Accepted)
            commands += 1
        assert resyncs() == before + 1
        for value in range(3):  # and the game goes on after the drop
            assert isinstance(await seat.command({"type": "act", "value": value}), Accepted)
        final = seat.version
        snapshots_before = len(spectator.of(Snapshot))
        while spectator.version < final:  # reading again: no gap (Client.next asserts it)
            await spectator.next()
        assert spectator.version == final
        assert len(spectator.of(Snapshot)) == snapshots_before + 1, "one resync snapshot"
        resync = spectator.of(Snapshot)[-1]
        assert 0 < resync.version <= final
        await spectator.close()
        await seat.close()
