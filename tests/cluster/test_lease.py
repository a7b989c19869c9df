"""Room leases with fencing against a real redis-server: one owner at a time, only the lease
winner gets a fence, a stale owner's append is refused, renewal and release."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from server.cluster.lease import RedisLeases, lease_key
from server.cluster.renewal import LeaseRenewal, connect_sync
from server.rooms.ownership import Claimed, HeldBy
from server.store import RoomMeta, RoomSettings, StaleWriter
from server.store.redis_store import RedisRoomStore

pytestmark = pytest.mark.redis


async def new_room(store: RedisRoomStore, room_id: str) -> str:
    meta = RoomMeta(room_id, RoomSettings("n5", 2.0, "private", fixed_seed=1), "a", "b", 1)
    await store.client.delete(lease_key(room_id), f"{{room:{room_id}}}:state")
    await store.create_room(meta, b"snap-0", None)
    return room_id


Renewal = Callable[[str], LeaseRenewal]


@pytest.fixture
def renewal(store: RedisRoomStore) -> Iterator[Renewal]:
    """Node id -> the renewal thread's round trip, called here directly (its own client)."""
    made: list[LeaseRenewal] = []

    def make(node_id: str) -> LeaseRenewal:
        made.append(LeaseRenewal(connect_sync(store.url, 5.0), node_id, 60_000))
        return made[-1]

    yield make
    for each in made:
        each.close()


async def append(store: RedisRoomStore, room_id: str, fence: int, version: int) -> int:
    return await store.append(room_id, fence=fence, expected_version=version,
                              events=[f"e{version + 1}".encode()], snapshot=b"s",
                              deadlines=(), listing=None)


async def test_only_the_lease_winner_gets_a_fence_and_a_stale_owner_cannot_write(
        store: RedisRoomStore, renewal: Renewal) -> None:
    room = await new_room(store, "lease-room-1")
    one = RedisLeases(store.client, "n1", 60_000)
    two = RedisLeases(store.client, "n2", 60_000)
    first = await one.acquire(room)
    assert isinstance(first, Claimed)
    assert await two.acquire(room) == HeldBy("n1"), "held: no fence for the loser"
    assert await append(store, room, first.fence, 0) == 1

    await store.client.delete(lease_key(room))  # n1's lease expired (e.g. it was paused)
    second = await two.acquire(room)
    assert isinstance(second, Claimed) and second.fence > first.fence
    with pytest.raises(StaleWriter, match="fence"):
        await append(store, room, first.fence, 1)  # the stale owner is refused
    assert await append(store, room, second.fence, 1) == 2

    assert renewal("n2").tick([(room, second.fence)], [], []).lost == frozenset()
    report = renewal("n1").tick([(room, first.fence)], [room], ["n2"])
    assert report.lost == {room}, "n1 learns it lost the room"
    assert report.holders == {room: "n2"} and report.dead_nodes == frozenset()
    assert await one.acquire(room) == HeldBy("n2")
    assert await store.events_since(room, 0) == [b"e1", b"e2"]


async def test_an_expired_lease_nobody_claimed_is_renewed_and_release_frees_the_room(
        store: RedisRoomStore, renewal: Renewal) -> None:
    room = await new_room(store, "lease-room-2")
    one = RedisLeases(store.client, "n3", 60_000)
    two = RedisLeases(store.client, "n4", 60_000)
    claim = await one.acquire(room)
    assert isinstance(claim, Claimed)
    await store.client.delete(lease_key(room))  # expired while Redis was unreachable
    report = renewal("n3").tick([(room, claim.fence)], [], ["n4"])
    assert report.lost == frozenset(), "same fence, nobody claimed: renewed"
    assert report.dead_nodes == {"n4"}, "n2 never renewed its liveness"
    assert await two.acquire(room) == HeldBy("n3")
    await one.release([room])
    assert isinstance(await two.acquire(room), Claimed)
    assert await one.acquire("no-such-room") is None


async def test_a_room_stopped_here_gives_its_lease_back_only_under_its_own_fence(
        store: RedisRoomStore, renewal: Renewal) -> None:
    """An idle room leaves memory and releases its lease at once; a release that arrives
    after a newer claim of the same room (even by the same node) leaves that lease alone."""
    room = await new_room(store, "lease-room-release")
    node = RedisLeases(store.client, "n1", 60_000)
    old = await node.acquire(room)
    assert isinstance(old, Claimed)
    newer = await node.acquire(room)  # the room was opened again on this node meanwhile
    assert isinstance(newer, Claimed)
    renewal("n1").release_rooms([(room, old.fence)])
    assert await store.client.get(lease_key(room)) == b"n1", "the newer claim keeps its lease"
    renewal("n1").release_rooms([(room, newer.fence)])
    assert await store.client.get(lease_key(room)) is None
    other = RedisLeases(store.client, "n2", 60_000)
    assert isinstance(await other.acquire(room), Claimed), "free for any node at once"


async def test_a_renewal_round_reuses_each_rooms_packed_call_only_under_the_same_fence(
        store: RedisRoomStore, renewal: Renewal) -> None:
    """Rounds reuse the RESP bytes packed for a (room, fence): a room claimed again under a
    newer fence is renewed under that fence, and the old fence is no longer accepted."""
    room = await new_room(store, "lease-room-packed")
    leases = RedisLeases(store.client, "n7", 60_000)
    first = await leases.acquire(room)
    assert isinstance(first, Claimed)
    node = renewal("n7")
    assert node.tick([(room, first.fence)], [], []).lost == frozenset()
    assert node.tick([(room, first.fence)], [], []).lost == frozenset(), "the reused call"

    await store.client.delete(lease_key(room))
    again = await leases.acquire(room)  # claimed again here: a newer fence
    assert isinstance(again, Claimed) and again.fence > first.fence
    await store.client.delete(lease_key(room))  # and that lease lapsed too
    assert node.tick([(room, first.fence)], [], []).lost == {room}, "the old fence is stale"
    assert node.tick([(room, again.fence)], [], []).lost == frozenset()
    assert await store.client.get(lease_key(room)) == b"n7"


async def test_a_renewal_round_after_redis_lost_its_scripts_loses_nothing(
        store: RedisRoomStore, renewal: Renewal) -> None:
    """After a Redis restart (an empty script cache) the round's calls fail with NOSCRIPT:
    the same round loads the scripts and renews, re-taking a lease that expired meanwhile
    (the room's fence is still this node's), and nothing is reported lost."""
    room = await new_room(store, "lease-room-noscript")
    claim = await RedisLeases(store.client, "n8", 60_000).acquire(room)
    assert isinstance(claim, Claimed)
    node = renewal("n8")
    assert node.tick([(room, claim.fence)], [], []).lost == frozenset()
    await store.client.script_flush()
    await store.client.delete(lease_key(room))
    assert node.tick([(room, claim.fence)], [], []).lost == frozenset(), "renewed, not lost"
    assert await store.client.get(lease_key(room)) == b"n8", "re-taken in that same round"
    assert node.tick([(room, claim.fence)], [room], ["n8"]).lost == frozenset()
    report = node.tick([], [room], ["n8"])
    assert report.holders == {room: "n8"} and report.dead_nodes == frozenset()
