"""Since when nobody ran a room, as a claim learns it (``server.cluster.lease``: the claim
returns the process that ran the room last, each renewal round stamps that process's last
heartbeat), against a real redis-server: the time a room is given back when it is loaded
(``ownership.Claimed.unattended_since_ms``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from server.cluster.lease import RedisLeases, Stamp, lease_key, seen_key
from server.cluster.renewal import LeaseRenewal, connect_sync
from server.rooms.ownership import Claimed
from server.store import RoomMeta, RoomSettings
from server.store.redis_store import RedisRoomStore

pytestmark = pytest.mark.redis

LEASE_MS = 60_000


async def new_room(store: RedisRoomStore, room_id: str) -> str:
    meta = RoomMeta(room_id, RoomSettings("n5", 2.0, "private", fixed_seed=1), "a", "b", 1)
    await store.client.delete(lease_key(room_id), f"{{room:{room_id}}}:state")
    await store.create_room(meta, b"snap-0", None)
    return room_id


Renewal = Callable[[str, str], LeaseRenewal]


@pytest.fixture
def renewal(store: RedisRoomStore) -> Iterator[Renewal]:
    """(node id, instance) -> that process's renewal round trip, called here directly."""
    made: list[LeaseRenewal] = []

    def make(node_id: str, instance: str) -> LeaseRenewal:
        made.append(LeaseRenewal(connect_sync(store.url, 5.0), node_id, LEASE_MS, instance))
        return made[-1]

    yield make
    for each in made:
        each.close()


async def run_and_stamped(store: RedisRoomStore, renewal: Renewal, room_id: str, node_id: str,
                          instance: str, seen_ms: int) -> int:
    """A new room claimed by the process (``node_id``, ``instance``), which then stamps
    ``seen_ms`` in a renewal round: the fence it holds the room under."""
    await new_room(store, room_id)
    claim = await RedisLeases(store.client, node_id, LEASE_MS, instance).acquire(room_id)
    assert isinstance(claim, Claimed) and claim.unattended_since_ms is None  # never run
    renewal(node_id, instance).tick([(room_id, claim.fence)], [], [], seen_ms=seen_ms)
    return claim.fence


async def lease_lapsed(store: RedisRoomStore, room_id: str) -> None:
    """The owner stopped renewing (killed) and its lease ran out."""
    await store.client.delete(lease_key(room_id))


async def test_a_room_claimed_after_its_owner_died_was_unattended_from_its_last_stamp(
        store: RedisRoomStore, renewal: Renewal) -> None:
    room = "unattended-1"
    fence = await run_and_stamped(store, renewal, room, "u1-dead", "token-d", 1_000_500)
    await lease_lapsed(store, room)

    claim = await RedisLeases(store.client, "u1-other", LEASE_MS, "token-o").acquire(room)
    assert claim == Claimed(fence + 1, unattended_since_ms=1_000_500)


async def test_nothing_is_given_back_without_the_owners_own_stamp(
        store: RedisRoomStore, renewal: Renewal) -> None:
    room = await new_room(store, "unattended-2")
    await store.client.delete(seen_key("u2-dead"))
    claim = await RedisLeases(store.client, "u2-dead", LEASE_MS, "token-old").acquire(room)
    assert isinstance(claim, Claimed)
    await lease_lapsed(store, room)
    other = RedisLeases(store.client, "u2-other", LEASE_MS, "token-o")
    # No stamp at all (it died before its first round, or the stamp expired): nothing tells.
    taken = await other.acquire(room)
    assert taken == Claimed(claim.fence + 1)

    second = await new_room(store, "unattended-2b")
    assert await RedisLeases(store.client, "u2-dead", LEASE_MS, "token-old").acquire(
        second) == Claimed(1)
    # A newer process of that node id stamped over it: its stamp is not the dead one's.
    renewal("u2-dead", "token-new").tick([], [], [], seen_ms=2_000_000)
    await lease_lapsed(store, second)
    assert await other.acquire(second) == Claimed(2)


async def test_a_process_claiming_again_what_it_ran_gives_nothing_back(
        store: RedisRoomStore, renewal: Renewal) -> None:
    room = "unattended-3"
    fence = await run_and_stamped(store, renewal, room, "u3", "token-a", 5_000)
    await lease_lapsed(store, room)
    again = await RedisLeases(store.client, "u3", LEASE_MS, "token-a").acquire(room)
    assert again == Claimed(fence + 1)


async def test_a_node_restarted_in_place_reads_its_predecessors_stamp_before_its_own(
        store: RedisRoomStore, renewal: Renewal) -> None:
    room = "unattended-4"
    fence = await run_and_stamped(store, renewal, room, "u4", "token-old", 7_000)

    new = RedisLeases(store.client, "u4", LEASE_MS, "token-new")  # killed, started again
    await new.read_predecessor()
    assert new.predecessor == Stamp("token-old", 7_000)
    renewal("u4", "token-new").tick([], [], [], seen_ms=9_000)  # its first round stamps over
    # Its lease is still the node id's: the restarted process takes it back at once.
    assert await new.acquire(room) == Claimed(fence + 1, unattended_since_ms=7_000)


async def test_a_room_let_go_idle_forgets_its_owner_a_shutdown_stamps_its_time(
        store: RedisRoomStore, renewal: Renewal) -> None:
    idle, shut = await new_room(store, "unattended-5a"), await new_room(store, "unattended-5b")
    node = RedisLeases(store.client, "u5", LEASE_MS, "token-5")
    rounds = renewal("u5", "token-5")
    claims = [await node.acquire(idle), await node.acquire(shut)]
    assert all(isinstance(claim, Claimed) for claim in claims)
    fences = [claim.fence for claim in claims if isinstance(claim, Claimed)]
    rounds.tick([(idle, fences[0]), (shut, fences[1])], [], [], seen_ms=3_000)

    rounds.release_rooms([(idle, fences[0])])  # nobody was connected: nobody waited for it
    await node.release_held([(shut, fences[1])], None, room_ms=3_400)  # SIGTERM

    other = RedisLeases(store.client, "u5-other", LEASE_MS, "token-o")
    assert await other.acquire(idle) == Claimed(fences[0] + 1)
    assert await other.acquire(shut) == Claimed(fences[1] + 1, unattended_since_ms=3_400)
