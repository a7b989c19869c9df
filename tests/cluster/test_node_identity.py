"""A node's id across restarts (issue 18): kept in its state directory, taken back at once
by the next process (which gets its rooms under NEW fences, so a process of the old
incarnation that still runs can neither write nor keep them), and never shared by two live
processes (the local lock file and the instance lock in Redis)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from server.cluster import identity
from server.cluster.identity import NodeIdentity, establish, instance_key
from server.cluster.lease import RedisLeases, lease_key
from server.cluster.node import ClusterNode
from server.cluster.renewal import LeaseRenewal, connect_sync
from server.config import Settings
from server.rooms.ownership import Claimed
from server.store import StaleWriter
from server.store.redis_store import RedisRoomStore
from tests.cluster.stand_ins import IdleBus, new_room, settings
from tests.cluster.test_lease import append
from tests.cluster.test_takeover import reports_read

pytestmark = pytest.mark.redis

LOCK_MS = 60_000  # a predecessor's lock that would hold a waiting start for a minute


@pytest.fixture
def made(store: RedisRoomStore, sync_client: redis.Redis) -> Iterator[
        Callable[..., NodeIdentity]]:
    """``establish`` against the test Redis; every identity made is closed at the end."""
    identities: list[NodeIdentity] = []

    def make(state_dir: Path | None, node_id: str = "") -> NodeIdentity:
        config = Settings(node_id=node_id, node_state_dir=str(state_dir or ""))
        identities.append(establish(config, store.url, sync_client, LOCK_MS))
        return identities[-1]

    yield make
    for each in identities:
        each.close()


class FakeTime:
    """``identity.time`` for a claim that waits: its clock moves only when it "sleeps", and
    each sleep runs ``meanwhile`` (what the lock's holder does in that time)."""

    def __init__(self, meanwhile: Callable[[], None] = lambda: None) -> None:
        self.now = 1000.0
        self.slept = 0.0
        self.meanwhile = meanwhile

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.slept += seconds
        self.meanwhile()


def no_waiting(monkeypatch: pytest.MonkeyPatch) -> FakeTime:
    clock = FakeTime()

    def refuse() -> None:
        raise AssertionError("the claim waited for a lock to expire")

    clock.meanwhile = refuse
    monkeypatch.setattr(identity, "time", clock)
    return clock


async def test_a_claim_by_the_same_node_id_gets_a_new_fence_and_the_old_one_is_dead(
        store: RedisRoomStore) -> None:
    """What a restart under the same id relies on: the new process's claim succeeds over
    its own unexpired lease, with a newer fence; the old process's append, renewal and
    release under the older fence are all refused."""
    room = await new_room(store, "identity-room-fence")
    before = await RedisLeases(store.client, "same-id", LOCK_MS).acquire(room)
    after = await RedisLeases(store.client, "same-id", LOCK_MS).acquire(room)
    assert isinstance(before, Claimed) and isinstance(after, Claimed)
    assert after.fence > before.fence
    with pytest.raises(StaleWriter, match="fence"):
        await append(store, room, before.fence, 0)
    assert await append(store, room, after.fence, 0) == 1

    old = LeaseRenewal(connect_sync(store.url, 5.0), "same-id", LOCK_MS)
    try:
        report = old.tick([(room, before.fence)], [], [])
        assert report.lost_leases == {(room, before.fence)}, "the old process learns it"
        old.release_rooms([(room, before.fence)])
    finally:
        old.close()
    await RedisLeases(store.client, "same-id", LOCK_MS).release_held([(room, before.fence)])
    assert await store.client.get(lease_key(room)) == b"same-id", "the new lease stays"
    assert await store.client.hget(f"{{room:{room}}}:state", "fence") == str(after.fence).encode()


def test_a_kept_id_is_made_once_and_taken_back_at_once_after_its_process_ended(
        made: Callable[..., NodeIdentity], tmp_path: Path, sync_client: redis.Redis,
        monkeypatch: pytest.MonkeyPatch) -> None:
    first = made(tmp_path)
    assert first.source == str(tmp_path / "node-id")
    assert (tmp_path / "node-id").read_text().strip() == first.node_id
    assert sync_client.get(instance_key(first.node_id)) == first.instance.encode()
    first.close()  # the process ended (a kill -9 drops its flock the same way)...
    assert sync_client.pttl(instance_key(first.node_id)) > 0  # ...its lock in Redis has not

    no_waiting(monkeypatch)
    second = made(tmp_path)
    assert second.node_id == first.node_id and second.instance != first.instance
    assert sync_client.get(instance_key(second.node_id)) == second.instance.encode()


def test_a_kept_id_in_use_by_a_live_process_gives_a_fresh_one(
        made: Callable[..., NodeIdentity], tmp_path: Path, sync_client: redis.Redis,
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two servers started from one checkout against one Redis: the second runs as a
    fresh id, and says why; the first keeps its id and lock."""
    first = made(tmp_path)
    no_waiting(monkeypatch)
    with caplog.at_level(logging.WARNING, logger="server.cluster.identity"):
        second = made(tmp_path)
    assert second.source == "fresh" and second.node_id != first.node_id
    assert f"node id {first.node_id}" in caplog.text and "in use by a live process" in caplog.text
    assert sync_client.get(instance_key(first.node_id)) == first.instance.encode()


def test_a_configured_id_in_use_on_this_machine_refuses_to_start(
        made: Callable[..., NodeIdentity], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    made(tmp_path, "configured-twin")
    no_waiting(monkeypatch)
    with pytest.raises(SystemExit, match=r"node id configured-twin .* in use by a live process"):
        made(tmp_path, "configured-twin")


def test_a_configured_id_held_elsewhere_is_waited_for_and_refused_while_renewed(
        made: Callable[..., NodeIdentity], tmp_path: Path, sync_client: redis.Redis,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """No local proof (another machine, another state directory): the start waits until
    the holder's lock would have lapsed; a holder that renewed it meanwhile is alive."""
    live = made(tmp_path / "machine-1", "elsewhere")
    renewal = LeaseRenewal(sync_client, "elsewhere", LOCK_MS, live.instance)
    clock = FakeTime(lambda: renewal.tick([], [], []))  # the live node renews meanwhile
    monkeypatch.setattr(identity, "time", clock)
    with pytest.raises(SystemExit, match="in use by a live process"):
        made(tmp_path / "machine-2", "elsewhere")
    assert clock.slept >= LOCK_MS / 1000 - 1, "waited until the lock would have lapsed"
    assert sync_client.get(instance_key("elsewhere")) == live.instance.encode()


def test_a_configured_id_whose_holder_died_elsewhere_is_taken_once_its_lock_lapsed(
        made: Callable[..., NodeIdentity], tmp_path: Path, sync_client: redis.Redis,
        monkeypatch: pytest.MonkeyPatch) -> None:
    made(tmp_path / "machine-1", "moved")
    clock = FakeTime(lambda: sync_client.delete(instance_key("moved")))  # it expires
    monkeypatch.setattr(identity, "time", clock)
    taken = made(tmp_path / "machine-2", "moved")
    assert taken.node_id == "moved" and clock.slept > 0
    assert sync_client.get(instance_key("moved")) == taken.instance.encode()


def test_without_a_state_directory_every_start_is_a_fresh_id(
        made: Callable[..., NodeIdentity]) -> None:
    assert made(None).node_id != made(None).node_id


async def test_a_node_whose_id_was_taken_stops_its_rooms_and_is_not_ready(
        store: RedisRoomStore, sync_client: redis.Redis) -> None:
    """A live process that finds its instance lock held by another process (its loop
    stalled past the lease, and a new process took the id) serves nothing more."""
    sync_client.set(instance_key("displaced"), "mine", px=LOCK_MS)
    config = settings(lease_renew_s=0.01)
    node = ClusterNode(store.client, "displaced", config, connect_sync(store.url, 5.0), "mine")
    node.bus = IdleBus()  # type: ignore[assignment]
    reports = reports_read(node)
    await node.start()
    try:
        assert not (await reports.get()).displaced and node.identity_problem() is None
        sync_client.set(instance_key("displaced"), "another process", px=LOCK_MS)
        while not (await reports.get()).displaced:
            pass
        assert node.displaced and "held by another process" in (node.identity_problem() or "")
        room = await new_room(store, "identity-room-displaced")
        with pytest.raises(Exception, match="held by another process"):
            await node.claim(room)
    finally:
        await node.close()
    assert sync_client.get(instance_key("displaced")) == b"another process", \
        "its shutdown leaves the other process's lock alone"
