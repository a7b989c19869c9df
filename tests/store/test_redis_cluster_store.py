"""The room store on a real local Redis Cluster (three masters, three replicas): rooms whose
slots sit on every master, every script on one slot, and a ``kill -9`` of a master while
rooms write: its replica is promoted and every acknowledged append is there, every command
re-sent after a "try again" finds its first answer (the room layer's duplicate check reads
the stored answers), nothing twice."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from redis.crc import key_slot

from server.cluster.identity import instance_key
from server.cluster.lease import alive_key, lease_key
from server.cluster.wire import in_channel, out_channel
from server.node.health import probe_key
from server.store import Answer, Listing, RoomMeta, RoomSettings
from server.store.cluster_appends import NotReplicated
from server.store.cluster_store import ClusterRoomStore
from server.store.interface import StaleWriter, StorageUnavailable
from server.store.redis_scripts import ANSWER_KEYS
from server.store.redis_store import room_keys, state_key
from server.store.tournament_store import RedisTournamentStore, tournament_keys
from testkit.cluster_store import store_on
from testkit.redis_cluster import NodeView, RedisClusterProcesses

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def meta(room_id: str, visibility: str = "private") -> RoomMeta:
    return RoomMeta(room_id, RoomSettings("n5", 2.0, visibility, fixed_seed=1), "a", "b", 1)


def rooms_on_every_master(cluster: RedisClusterProcesses, prefix: str,
                          per_master: int) -> dict[str, NodeView]:
    """Room ids (``prefix-n``) whose slots sit on each master, ``per_master`` each."""
    masters = cluster.masters()
    found: dict[str, NodeView] = {}
    n = 0
    while any(sum(1 for m in found.values() if m == master) < per_master for master in masters):
        room_id = f"{prefix}-{n}"
        n += 1
        master = cluster.master_of_key(f"{{room:{room_id}}}")
        if sum(1 for m in found.values() if m == master) < per_master:
            found[room_id] = master
    return found


@pytest.fixture
async def cluster_store(redis_cluster: RedisClusterProcesses) -> AsyncIterator[ClusterRoomStore]:
    async with store_on(redis_cluster, wait_replicas=1, wait_ms=2000) as store:
        yield store


def test_every_script_touches_one_slot() -> None:
    # Each script's keys (docs/deploy.md, "Redis Cluster"): one slot, or Redis Cluster
    # refuses the call (CROSSSLOT).
    def slots(*keys: str) -> int:
        return len({key_slot(key.encode()) for key in keys})

    room = "any-room"
    assert len(room_keys(room)) == 2 + len(ANSWER_KEYS)
    assert slots(*room_keys(room)) == 1  # create, claim, append, deadlines, load, casters
    assert slots(lease_key(room), state_key(room)) == 1  # acquire, renew, release
    assert slots(instance_key("n"), alive_key("n"), probe_key("n")) == 1  # node identity
    assert slots(*tournament_keys("any")) == 1  # a tournament's append
    # The room's bus channels live on its slot too (sharded pub/sub).
    assert slots(in_channel(room), out_channel(room), state_key(room)) == 1


async def test_rooms_on_every_master_create_write_and_load(
        redis_cluster: RedisClusterProcesses, cluster_store: ClusterRoomStore) -> None:
    rooms = rooms_on_every_master(redis_cluster, "spread", 2)
    assert len({master.port for master in rooms.values()}) == 3
    for room_id in rooms:
        await cluster_store.create_room(meta(room_id), b"s0", None)
        fence = await cluster_store.claim_room(room_id, "node-x")
        assert fence == 1
        for version in range(3):
            assert await cluster_store.append(
                room_id, fence=fence, expected_version=version,
                events=[f"{room_id}:e{version + 1}".encode()], snapshot=None, deadlines=(),
                listing=None, answer=Answer("A", f"c{version + 1}", b"ok")) == version + 1
        with pytest.raises(StaleWriter):  # fencing holds per room on its own master
            await cluster_store.append(room_id, fence=fence - 1, expected_version=3,
                                       events=[b"x"], snapshot=None, deadlines=(), listing=None)
    loaded = await cluster_store.load_rooms(list(rooms))  # one pipeline, split by master
    for room_id, stored in zip(rooms, loaded, strict=True):
        assert stored is not None and stored.version == 3
        assert stored.events == tuple(f"{room_id}:e{v}".encode() for v in (1, 2, 3))
        assert [answer.command_id for answer in stored.answers] == ["c1", "c2", "c3"]
    first = next(iter(rooms))
    assert await cluster_store.events_since(first, 1) == [f"{first}:e2".encode(),
                                                          f"{first}:e3".encode()]
    timeline = await cluster_store.timeline(first)  # a MULTI on the room's slot
    assert timeline is not None and len(timeline.events) == 3
    assert await cluster_store.record_caster_link(first, "nonce-1", 10) == "recorded"
    # Node-wide keys (their own slots) work beside the rooms.
    tournaments = RedisTournamentStore(cluster_store.client)
    assert await tournaments.claim_creation("act-1", "t-cluster") == "t-cluster"
    appended = await tournaments.append("t-cluster", expected_version=0, action_id="a1",
                                        entry={"kind": "create"})
    assert appended.status == "appended"
    await tournaments.publish("t-cluster", 5)
    assert "t-cluster" in await tournaments.public(10)


async def test_public_rooms_listed_from_every_master(
        redis_cluster: RedisClusterProcesses, cluster_store: ClusterRoomStore) -> None:
    rooms = rooms_on_every_master(redis_cluster, "listed", 1)
    for n, room_id in enumerate(rooms):
        listing = Listing(room_id, "n5", "deployment", 1, "A", "A", 0, 1, 100 + n)
        await cluster_store.create_room(meta(room_id, "public"), b"s0", listing)
        fence = await cluster_store.claim_room(room_id, "node-x")
        assert fence is not None
        moved = Listing(room_id, "n5", "deployment", 1, "A", "A", 0, 2, 1000 + n)
        await cluster_store.append(room_id, fence=fence, expected_version=0, events=[b"e"],
                                   snapshot=None, deadlines=(), listing=moved)
    found = {listing.room_id: listing for listing in await cluster_store.public_rooms(50)}
    assert {room_id: found[room_id].seats_taken for room_id in rooms} == dict.fromkeys(rooms, 2)


async def test_an_append_no_replica_confirms_is_not_acknowledged(
        redis_cluster: RedisClusterProcesses) -> None:
    # Every master has ONE replica: asking for two can never be confirmed, so the append
    # is answered "try again" (it is on the master only), never acknowledged.
    store = ClusterRoomStore.from_url(redis_cluster.url, wait_replicas=2, wait_ms=50)
    try:
        with pytest.raises(NotReplicated, match="of 2 replicas"):
            await store.create_room(meta("unconfirmed"), b"s0", None)
    finally:
        await store.close()


@dataclass
class Writer:
    """One room's commands, sent like the room layer does: an append per command with its
    answer; on "try again" the command is re-sent with the same id, after the room reloads
    (a stored answer for that id is its first answer: the duplicate is answered from it)."""

    room_id: str
    fence: int
    commands: int
    progress_after: int = 5
    """Acknowledged commands after which ``progress`` is set (the test kills a master)."""
    acknowledged: dict[str, int] = field(default_factory=dict)  # command id -> version
    answered_from_store: list[str] = field(default_factory=list)
    failures: int = 0

    async def run(self, store: ClusterRoomStore, promoted: asyncio.Event,
                  progress: asyncio.Event) -> None:
        version = 0
        n = 0
        while n < self.commands:
            command_id = f"{self.room_id}:c{n + 1}"
            try:
                version = await store.append(
                    self.room_id, fence=self.fence, expected_version=version,
                    events=[command_id.encode()], snapshot=None, deadlines=(), listing=None,
                    answer=Answer("A", command_id, b"answer:" + command_id.encode()),
                    answers_kept=1000)
                self.acknowledged[command_id] = version
                n += 1
                if len(self.acknowledged) >= self.progress_after:
                    progress.set()
            except (StorageUnavailable, StaleWriter):
                self.failures += 1
                assert self.failures < 50, "the cluster never took writes again"
                await promoted.wait()  # the room's master is gone until its replica serves
                version = await self._reload(store, command_id)
                if command_id in self.acknowledged:
                    n += 1

    async def _reload(self, store: ClusterRoomStore, command_id: str) -> int:
        for _ in range(20):
            try:
                stored = await store.load_room(self.room_id)
                break
            except StorageUnavailable:
                await store.appends.router.refresh()
        else:
            raise AssertionError("the room could not be loaded after the failover")
        assert stored is not None
        first = [a for a in stored.answers if a.command_id == command_id]
        if first:  # it was stored before the failure: its answer is the first one
            assert first[0].frame == b"answer:" + command_id.encode()
            self.answered_from_store.append(command_id)
            self.acknowledged[command_id] = stored.version
        return stored.version


async def test_kill_9_of_a_master_loses_no_acknowledged_append(
        redis_cluster: RedisClusterProcesses, cluster_store: ClusterRoomStore) -> None:
    rooms = rooms_on_every_master(redis_cluster, "failover", 2)
    writers = []
    for room_id in rooms:
        await cluster_store.create_room(meta(room_id), b"s0", None)
        fence = await cluster_store.claim_room(room_id, "node-x")
        assert fence is not None
        writers.append(Writer(room_id, fence, commands=200))
    victim = next(iter(rooms.values()))
    # A room on the victim's shard that no writer uses (the check below writes to it).
    bystander = next(room_id for room_id, master in
                     rooms_on_every_master(redis_cluster, "bystander", 1).items()
                     if master == victim)
    await cluster_store.create_room(meta(bystander), b"s0", None)
    bystander_fence = await cluster_store.claim_room(bystander, "node-x")
    assert bystander_fence is not None
    promoted, progress = asyncio.Event(), asyncio.Event()
    tasks = [asyncio.create_task(writer.run(cluster_store, promoted, progress))
             for writer in writers]
    await progress.wait()  # mid-game: rooms have written, none has finished
    restarted = False
    try:
        await asyncio.to_thread(redis_cluster.kill, victim.port)
        new_master = await asyncio.to_thread(redis_cluster.wait_promoted, victim)
        # The promoted replica has no replica of its own: nothing it takes can be confirmed,
        # so the shard answers "try again" until a replica is back (docs/deploy.md,
        # "Redis Cluster").
        impatient = ClusterRoomStore.from_url(redis_cluster.url, wait_replicas=1, wait_ms=100)
        try:
            with pytest.raises(NotReplicated):
                for _ in range(5):  # (its first calls may still find the dead master)
                    try:
                        await impatient.append(bystander, fence=bystander_fence,
                                               expected_version=0, events=[b"e"],
                                               snapshot=None, deadlines=(), listing=None)
                    except NotReplicated:
                        raise
                    except StorageUnavailable:
                        await impatient.appends.router.refresh()
        finally:
            await impatient.close()
        # The dead node started again (what a supervisor does): it rejoins as the replica.
        await asyncio.to_thread(redis_cluster.restart, victim.port)
        restarted = True
        promoted.set()
        await asyncio.gather(*tasks)
        assert new_master.slots == victim.slots
        hit = [w for w in writers if rooms[w.room_id] == victim]
        assert hit and all(w.failures > 0 for w in hit)  # they did meet the failover
        loaded = await cluster_store.load_rooms(list(rooms))
        for writer, stored in zip(writers, loaded, strict=True):
            assert stored is not None
            # Every command once, in order; each acknowledged one at its version.
            assert stored.events == tuple(f"{writer.room_id}:c{n}".encode()
                                          for n in range(1, writer.commands + 1))
            for command_id, version in writer.acknowledged.items():
                assert stored.events[version - 1] == command_id.encode()
            assert {a.command_id: a.frame for a in stored.answers} == {
                command_id: b"answer:" + command_id.encode()
                for command_id in writer.acknowledged}
    finally:
        for task in tasks:
            task.cancel()
        if not restarted:
            await asyncio.to_thread(redis_cluster.restart, victim.port)


async def test_a_failover_loses_what_no_replica_confirmed_and_wait_refuses_to_acknowledge_it(
        redis_cluster: RedisClusterProcesses) -> None:
    """Why appends wait for a replica: with the replica stalled (SIGSTOP) an append with
    ``wait_replicas=1`` is refused ("try again"), not acknowledged; with the replica cut off,
    an append that does not wait (``wait_replicas=0``) is acknowledged from the master
    alone, and the master's ``kill -9`` loses it: the replica promoted never had it."""
    victim = redis_cluster.masters()[1]
    room_id = next(room for room, master in rooms_on_every_master(
        redis_cluster, "unwaited", 1).items() if master == victim)
    careful = ClusterRoomStore.from_url(redis_cluster.url, wait_replicas=1, wait_ms=200)
    hasty = ClusterRoomStore.from_url(redis_cluster.url, wait_replicas=0)
    replica = redis_cluster.replica_of(victim.node_id)
    paused = restarted = False
    try:
        await careful.create_room(meta(room_id), b"s0", None)
        fence = await careful.claim_room(room_id, "node-x")
        assert fence is not None
        assert await careful.append(room_id, fence=fence, expected_version=0, events=[b"e1"],
                                    snapshot=None, deadlines=(), listing=None) == 1
        # Both stores learn the cluster's slots now: the node their URL names may be the
        # replica paused below (an earlier test's failover swaps roles), which could not
        # answer a first discovery then.
        assert (await hasty.load_room(room_id)) is not None
        redis_cluster.pause(replica.port)
        paused = True
        with pytest.raises(NotReplicated):
            await careful.append(room_id, fence=fence, expected_version=1, events=[b"e2"],
                                 snapshot=None, deadlines=(), listing=None)
        # Cut the replica off for good (what was sent to it before is in its socket's
        # buffer, and it takes that when it resumes): nothing written now reaches it.
        with redis_cluster.client(victim.port) as client:
            client.execute_command("CLIENT", "KILL", "TYPE", "replica")
        # (The unconfirmed write did land on the master: the next one expects version 2.)
        assert await hasty.append(room_id, fence=fence, expected_version=2, events=[b"e3"],
                                  snapshot=None, deadlines=(), listing=None) == 3
        await asyncio.to_thread(redis_cluster.kill, victim.port)
        redis_cluster.resume(replica.port)
        paused = False
        await asyncio.to_thread(redis_cluster.wait_promoted, victim)
        await asyncio.to_thread(redis_cluster.restart, victim.port)
        restarted = True
        for _ in range(5):  # (its first reads may still find the dead master)
            try:
                stored = await careful.load_room(room_id)
                break
            except StorageUnavailable:
                await careful.appends.router.refresh()
        else:
            raise AssertionError("the room could not be loaded after the failover")
        assert stored is not None
        # The append acknowledged after WAIT survived; the one acknowledged without it is
        # gone. (The refused one, never acknowledged, may be there: it was sent to the
        # replica before the cut.)
        assert stored.events in ((b"e1",), (b"e1", b"e2"))
        assert stored.version == len(stored.events)
    finally:
        if paused:
            redis_cluster.resume(replica.port)
        if not restarted and redis_cluster.nodes[victim.port].process is None:
            await asyncio.to_thread(redis_cluster.restart, victim.port)
        await careful.close()
        await hasty.close()
