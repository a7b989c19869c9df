"""A warm restart, against a real redis-server: a node started again under its id after a
``kill -9`` loads the rooms it was running before any player comes back
(``server.cluster.warm_up``), from the index it keeps under its own hash tag
(``server.cluster.room_index``). Before, every room started on its first hello.

Also: a room another node took meanwhile is left to it (no relay opened), a deleted room
leaves the index, a warmed room nobody returns to idles out (leaving the index and giving
its lease back), a graceful shutdown deletes the index, and ``REFEREE_WARM_RESTART=0``
keeps starting rooms on their hellos."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from protocol.messages import Accepted, Snapshot
from server.cluster.lease import lease_key
from server.cluster.room_index import RoomIndex, rooms_key
from server.cluster.warm_up import WarmUp
from server.lobby.tokens import new_room_id
from server.rooms.registry import RoomRegistry
from server.store.cluster_store import ClusterRoomStore
from server.store.redis_store import RedisRoomStore, state_key
from testkit.redis_process import RedisProcess
from testkit.server_process import METRICS_TOKEN, READY, SHORT_LEASES, ServerProcess
from testkit.wsclient import Client
from tests.cluster.game import ACTIVATE, ENGINE, create_room
from tests.cluster.stand_ins import GUARD_S, new_room
from tests.cluster.test_takeover import make_node

pytestmark = pytest.mark.redis

LONG_LEASE = {"REFEREE_LEASE_S": "60", "REFEREE_LEASE_RENEW_S": "0.5"}
"""The dead process's leases outlive the test: only this node id may take its rooms back."""


class LoggedNode(ServerProcess):
    """A ``python -m server`` process whose log lines the test can wait for."""

    async def start(self) -> None:
        env = {**os.environ, "REDIS_URL": self.redis_url, "REFEREE_FREEZE_GC": "0",
               "REFEREE_STATIC_DIR": "", "REFEREE_METRICS_TOKEN": METRICS_TOKEN,
               **SHORT_LEASES, **self.env}
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", self.module, "--port", str(self.port), "--log-level", "info",
            cwd=Path(__file__).resolve().parents[2], env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        self.lines: list[str] = []
        self._more = asyncio.Event()
        self._drain = asyncio.create_task(self._lines())
        await self.logged(READY.decode())

    async def _lines(self) -> bytes:
        assert self.process is not None and self.process.stdout is not None
        stream = self.process.stdout
        try:
            while line := await stream.readline():
                self.lines.append(line.decode(errors="replace"))
                self.output += line
                self._more.set()
        finally:
            self._more.set()
        return b""

    async def logged(self, text: str) -> str:
        """The first line of this run of the process that contains ``text``, once logged."""
        async with asyncio.timeout(GUARD_S):  # against a hung test only
            while True:
                found = next((line for line in self.lines if text in line), None)
                if found is not None:
                    return found
                assert self._drain is not None
                if self._drain.done():
                    raise AssertionError(f"never logged {text!r}:\n{''.join(self.lines)}")
                self._more.clear()
                await self._more.wait()


@pytest.fixture
async def processes() -> AsyncIterator[list[LoggedNode]]:
    started: list[LoggedNode] = []
    try:
        yield started
    finally:
        for process in started:
            await process.stop()
            print(process.output.decode(errors="replace"))


async def healthz(base: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base) as http:
        body: dict[str, Any] = (await http.get("/healthz")).json()
        return body


async def fence_of(store: RedisRoomStore, room_id: str) -> int:
    return int(await store.client.hget(state_key(room_id), "fence") or 0)


async def index_of(store: RedisRoomStore, node_id: str) -> set[str]:
    return {member.decode() for member in await store.client.smembers(rooms_key(node_id))}


@pytest.mark.slow
async def test_a_node_restarted_after_kill_9_has_its_rooms_live_before_any_hello(
        redis_server: RedisProcess, store: RedisRoomStore, tmp_path: Path,
        processes: list[LoggedNode]) -> None:
    node = LoggedNode(redis_server.url, env={**LONG_LEASE,
                                             "REFEREE_NODE_STATE_DIR": str(tmp_path)})
    processes.append(node)
    await node.start()
    played, joined = (await create_room(store, aro_window_s=600.0),
                      await create_room(store, aro_window_s=600.0))
    a = await Client.connect(node.base, played.room_id, played.token_a)
    await a.until(Snapshot)
    first = await a.command(ACTIVATE)
    assert isinstance(first, Accepted)
    other = await Client.connect(node.base, joined.room_id, joined.token_b)
    await other.until(Snapshot)
    node_id = (tmp_path / "node-id").read_text().strip()
    fences = {room.room_id: await fence_of(store, room.room_id) for room in (played, joined)}

    await node.kill()
    await node.start()

    summary = await node.logged("warm restart:")
    assert "2 rooms loaded, 0 skipped, 0 failed" in summary
    assert (await healthz(node.base))["rooms"] == 2, "live with no client connected"
    for room_id, fence in fences.items():
        assert await fence_of(store, room_id) == fence + 1, "claimed back once, by the warm-up"
    a2 = await Client.connect(node.base, played.room_id, played.token_a, since=a.version)
    assert a2.welcome is not None and a2.welcome.version == first.version
    assert not a2.of(Snapshot), "resumed from its version"
    assert await fence_of(store, played.room_id) == fences[played.room_id] + 1, \
        "the hello found the room live: no claim of its own"
    assert await index_of(store, node_id) == {played.room_id, joined.room_id}

    # A graceful shutdown gives the leases back and deletes the index (nothing to warm).
    await node.stop()
    assert await index_of(store, node_id) == set()


@pytest.mark.slow
async def test_with_warm_restart_off_rooms_start_on_their_first_hello_as_before(
        redis_server: RedisProcess, store: RedisRoomStore, tmp_path: Path,
        processes: list[LoggedNode]) -> None:
    node = LoggedNode(redis_server.url, env={**LONG_LEASE, "REFEREE_WARM_RESTART": "0",
                                             "REFEREE_NODE_STATE_DIR": str(tmp_path)})
    processes.append(node)
    await node.start()
    room = await create_room(store, aro_window_s=600.0)
    a = await Client.connect(node.base, room.room_id, room.token_a)
    await a.until(Snapshot)
    node_id = (tmp_path / "node-id").read_text().strip()
    fence = await fence_of(store, room.room_id)

    await node.kill()
    await node.start()

    # The index is kept all the same (turning the setting on later finds it) ...
    assert await index_of(store, node_id) == {room.room_id}
    # ... but nothing is loaded until a hello comes.
    assert (await healthz(node.base))["rooms"] == 0
    assert await fence_of(store, room.room_id) == fence
    assert not any("warm restart:" in line for line in node.lines)
    a2 = await Client.connect(node.base, room.room_id, room.token_a, since=a.version)
    assert a2.welcome is not None
    assert (await healthz(node.base))["rooms"] == 1
    assert await fence_of(store, room.room_id) == fence + 1


async def test_the_warm_up_leaves_a_room_another_node_took_and_drops_a_deleted_one(
        store: RedisRoomStore) -> None:
    node_id = f"warm-{new_room_id()[:8]}"
    node = make_node(store, node_id)
    registry = RoomRegistry(store, node.fanout, ENGINE, node._settings, node)
    taken = await new_room(store, new_room_id())
    await store.client.set(lease_key(taken), "another-node", px=60_000)
    deleted = new_room_id()  # (in the index, no longer in the store)
    await store.client.sadd(rooms_key(node_id), taken, deleted)
    fence = await fence_of(store, taken)

    report = await WarmUp(node.room_index, registry.warm, node.unindex).run()

    assert report.loaded == [] and report.failed == []
    assert sorted(report.skipped) == sorted([taken, deleted])
    assert node._relays == {}, "no relay opened for a room another node runs"
    assert registry.live_rooms() == 0
    assert (await store.client.get(lease_key(taken))) == b"another-node"
    assert await fence_of(store, taken) == fence, "not claimed: the other node keeps it"
    await node.room_index.flushed()
    assert await index_of(store, node_id) == set()


async def test_a_warmed_room_nobody_returns_to_idles_out_and_leaves_the_index(
        store: RedisRoomStore) -> None:
    node_id = f"warm-{new_room_id()[:8]}"
    node = make_node(store, node_id, idle_room_s=0.05)
    registry = RoomRegistry(store, node.fanout, ENGINE, node._settings, node)
    room = await create_room(store, aro_window_s=600.0)
    await store.client.sadd(rooms_key(node_id), room.room_id)
    await node.start()
    try:
        report = await WarmUp(node.room_index, registry.warm, node.unindex).run()
        assert report.loaded == [room.room_id]
        assert await store.client.get(lease_key(room.room_id)) == node_id.encode()

        await registry._tasks[room.room_id]  # the room's actor ends: idle, nobody came
        assert registry.live_rooms() == 0
        await node.room_index.flushed()
        assert await index_of(store, node_id) == set()
    finally:
        await registry.shutdown()
    assert await store.client.get(lease_key(room.room_id)) is None


async def test_a_hello_sharing_a_warm_up_claim_of_a_room_held_elsewhere_is_relayed(
        store: RedisRoomStore) -> None:
    node = make_node(store, f"warm-{new_room_id()[:8]}")
    registry = RoomRegistry(store, node.fanout, ENGINE, node._settings, node)
    taken = await new_room(store, new_room_id())
    await store.client.set(lease_key(taken), "another-node", px=60_000)

    warming = asyncio.create_task(registry.warm(taken))
    await asyncio.sleep(0)  # (one loop turn: the warm-up's claim is under way)
    assert taken in registry._loading
    door = await registry.open(taken)  # a hello arriving meanwhile shares that claim

    assert await warming == "held"
    assert door is not None and door is node.relay_for(taken), "relayed to the owner"
    assert list(node._relays) == [taken]


@pytest.mark.slow  # (forms the session's Redis Cluster if no test did yet)
async def test_the_room_index_lives_under_the_node_hash_tag_on_a_redis_cluster(
        cluster_store: ClusterRoomStore) -> None:
    node_id = f"warm-{new_room_id()[:8]}"
    index = RoomIndex(cluster_store.cluster_client, node_id, 600_000)
    rooms = [new_room_id() for _ in range(5)]  # (their own slots: the index is in the node's)
    for room_id in rooms:
        index.add(room_id)
    index.remove(rooms[0])
    await index.flushed()
    assert await index.rooms() == sorted(rooms[1:])

    await index.clear()  # a graceful shutdown
    assert await index.rooms() == []
