"""A restarted node takes its rooms back at once (issue 18), with real ``python -m server``
processes: the same node id (kept in its state directory) after a ``kill -9``, the room's
hello answered while the dead process's lease is still unexpired in Redis, under a new
fence; and a second live process under a configured id refused, or, once the first one
is paused past its lease, let in, after which the first, resumed, serves nothing more.

A seat relayed through another node is sent to reconnect (4011) once the restarted node runs
the room again, and then follows the game: the relay's lease watch sees the same holder
before and after a restart in place, so only the room's new fence tells it (the owner's
``FENCE_NOTICE``). Before, the relay stayed on the dead process: its seat saw none of the
owner's events and its commands went unanswered for as long as it stayed connected."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from protocol.constants import CloseCode
from protocol.messages import Accepted, Events, Snapshot
from server.cluster.lease import lease_key
from server.store.redis_store import RedisRoomStore, state_key
from testkit.redis_process import RedisProcess
from testkit.server_process import ServerProcess, two_nodes
from testkit.wsclient import Client
from tests.cluster.game import ACTIVATE, MOVE, create_room

pytestmark = [pytest.mark.redis, pytest.mark.slow]

LONG_LEASE = {"REFEREE_LEASE_S": "60", "REFEREE_LEASE_RENEW_S": "0.5"}


@pytest.fixture
async def processes() -> AsyncIterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    try:
        yield started
    finally:
        for process in started:
            await process.stop()


async def lease_of(store: RedisRoomStore, room_id: str) -> tuple[str, int, int]:
    """(holder, fence, when the lease expires in Redis's own clock, ms)."""
    now_ms = await redis_now_ms(store)
    holder = await store.client.get(lease_key(room_id))
    ttl_ms = await store.client.pttl(lease_key(room_id))
    fence = await store.client.hget(state_key(room_id), "fence")
    assert holder is not None and fence is not None and ttl_ms > 0
    return holder.decode(), int(fence), now_ms + ttl_ms


async def redis_now_ms(store: RedisRoomStore) -> int:
    seconds, micros = await store.client.time()
    return int(seconds) * 1000 + int(micros) // 1000


async def test_a_node_restarted_after_kill_9_serves_its_room_before_the_old_lease_expires(
        redis_server: RedisProcess, store: RedisRoomStore, tmp_path: Path,
        processes: list[ServerProcess]) -> None:
    node = ServerProcess(redis_server.url, env={**LONG_LEASE,
                                                "REFEREE_NODE_STATE_DIR": str(tmp_path)})
    processes.append(node)
    await node.start()
    room = await create_room(store, aro_window_s=600.0)
    a = await Client.connect(node.base, room.room_id, room.token_a)
    await a.until(Snapshot)
    first = await a.command(ACTIVATE)
    assert isinstance(first, Accepted)
    holder, fence, expires_ms = await lease_of(store, room.room_id)

    await node.kill()
    await node.start()

    a2 = await Client.connect(node.base, room.room_id, room.token_a, since=a.version)
    answered_ms = await redis_now_ms(store)
    assert answered_ms < expires_ms, "served while the dead process's lease was unexpired"
    assert a2.welcome is not None and a2.welcome.version == first.version
    new_holder, new_fence, _ = await lease_of(store, room.room_id)
    assert new_holder == holder == (tmp_path / "node-id").read_text().strip()
    assert new_fence > fence
    second = await a2.command(MOVE)
    assert isinstance(second, Accepted) and second.version > first.version


async def test_a_seat_relayed_by_another_node_follows_the_game_after_the_owner_restarts(
        redis_server: RedisProcess, store: RedisRoomStore, tmp_path: Path) -> None:
    env = {**LONG_LEASE, "REFEREE_NODE_STATE_DIR": str(tmp_path)}
    async with two_nodes(redis_server.url, ServerProcess, env=env) as (owner, other):
        room = await create_room(store, aro_window_s=600.0)
        a = await Client.connect(owner.base, room.room_id, room.token_a)
        await a.until(Snapshot)
        b = await Client.connect(other.base, room.room_id, room.token_b)  # relayed
        await b.until(Snapshot)
        first = await a.command(ACTIVATE)
        assert isinstance(first, Accepted)
        await b.until(Events, lambda m: m.first + len(m.events) - 1 >= first.version)

        await owner.kill()
        await owner.start()  # the warm restart runs the room again, under a new fence

        assert await b.close_code() == CloseCode.ROOM_UNAVAILABLE
        b2 = await Client.connect(other.base, room.room_id, room.token_b, since=b.version)
        a2 = await Client.connect(owner.base, room.room_id, room.token_a, since=a.version)
        second = await a2.command(MOVE)
        assert isinstance(second, Accepted) and second.version > first.version
        await b2.until(Events, lambda m: m.first + len(m.events) - 1 >= second.version)


async def get(base: str, path: str) -> tuple[int, dict[str, Any]]:
    async with httpx.AsyncClient(base_url=base) as http:
        response = await http.get(path)
        return response.status_code, response.json()


async def test_two_live_processes_never_share_a_node_id(
        redis_server: RedisProcess, store: RedisRoomStore, tmp_path: Path,
        processes: list[ServerProcess]) -> None:
    twin = {"REFEREE_NODE_ID": f"twin-{tmp_path.name}"}
    first = ServerProcess(redis_server.url, env={
        **twin, "REFEREE_NODE_STATE_DIR": str(tmp_path / "machine-1")})
    processes.append(first)
    await first.start()
    room = await create_room(store, aro_window_s=600.0)
    a = await Client.connect(first.base, room.room_id, room.token_a)
    await a.until(Snapshot)
    _, fence, _ = await lease_of(store, room.room_id)

    # Another machine (state directory) configured with the same id, while the first
    # renews its instance lock: refused.
    second = ServerProcess(redis_server.url, env={
        **twin, "REFEREE_NODE_STATE_DIR": str(tmp_path / "machine-2")})
    processes.append(second)
    with pytest.raises(RuntimeError, match=r"refusing to start: node id twin-.* is in use"):
        await second.start()

    # The first one paused past its lease (1 s here): its lock lapses, the second starts
    # and takes the room under a new fence.
    first.pause()
    await second.start()
    a2 = await Client.connect(second.base, room.room_id, room.token_a, since=a.version)
    assert a2.welcome is not None
    _, new_fence, _ = await lease_of(store, room.room_id)
    assert new_fence > fence

    # The first one resumes: it finds its id taken, stops its room (its socket is sent
    # away) and is not ready; the second keeps serving.
    first.resume()
    assert await a.close_code() == CloseCode.ROOM_UNAVAILABLE
    status, body = await get(first.base, "/readyz")
    assert status == 503 and any("held by another process" in p for p in body["problems"])
    assert (await get(second.base, "/readyz"))[0] == 200
    answer = await a2.command(ACTIVATE)
    assert isinstance(answer, Accepted)
