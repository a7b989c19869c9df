"""The game the multi-process tests play (tests/cluster, tests/deploy): a CodeOne skirmish
stored directly in Redis as the lobby would store it, the commands of its first Order, and
the checks that every accepted command's events are stored exactly once and in order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol import codec
from protocol.constants import ProtocolReason
from protocol.messages import Accepted, Events, Snapshot
from server.lobby.tokens import new_room_id, new_seat_token, token_hash
from server.rooms.numbering import NONE_SEEN, pack_room_snapshot, snapshot_state
from server.rooms.rules_engine import RulesCoreEngine
from server.store import RoomMeta, RoomSettings
from server.store.interface import Visibility
from server.store.redis_store import RedisRoomStore
from testkit.redis_cluster import NodeView, RedisClusterProcesses
from testkit.wsclient import Client
from tests.support.skirmish import skirmish
from tests.support.windows import closed, current

A1, B_SHOOTER = "A-t5", "B-t3"
PLACEMENTS = {
    A1: (22.5, 4.0, 90.0),
    B_SHOOTER: (22.5, 28.0, 270.0),  # sees A1's column
    "B-t4": (1.5, 30.0, 90.0),
    "A-t1": (3.5, 1.5, 90.0),
    "B-t1": (3.5, 30.5, 90.0),
}
ACTIVATE = {"type": "activate", "trooper": A1, "order": "regular"}
MOVE = {"type": "declare_skill", "skill": {"type": "move", "route": [[22.5, 4], [22.5, 6]]}}
SHOOT_B = {"type": "declare_skill", "skill": {
    "type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": B_SHOOTER, "burst": 3}]}}
ENGINE = RulesCoreEngine()
RETRIES = 20  # a pooled connection that died with Redis fails once; bounded, not timed


@dataclass
class Room:
    room_id: str
    token_a: str
    token_b: str


async def create_room(store: RedisRoomStore, aro_window_s: float,
                      visibility: Visibility = "private", room_id: str | None = None) -> Room:
    """Store a scenario room directly in Redis, as the lobby would (version 0); ``room_id``
    (default: a new one) to pick its Redis Cluster slot."""
    token_a, token_b = new_seat_token(), new_seat_token()
    settings = RoomSettings("codeone", aro_window_s, visibility, fixed_seed=1)
    meta = RoomMeta(room_id or new_room_id(), settings, token_hash(token_a), token_hash(token_b), 1)
    state = skirmish(PLACEMENTS)
    snapshot = pack_room_snapshot(ENGINE.state_to_plain(state), NONE_SEEN)
    await store.create_room(meta, snapshot, None)
    return Room(meta.room_id, token_a, token_b)


async def room_on(store: RedisRoomStore, cluster: RedisClusterProcesses, master: NodeView,
                  aro_window_s: float = 600.0, visibility: Visibility = "private") -> Room:
    """A new room whose keys (and bus channels) live on ``master`` of a Redis Cluster."""
    while True:
        room_id = new_room_id()
        if cluster.master_of_key(f"{{room:{room_id}}}") == master:
            return await create_room(store, aro_window_s, visibility, room_id=room_id)


COUNTER_SHOT = {"type": "declare_aro", "trooper": "B-t3", "skill": {
    "type": "bs_attack", "weapon": "punch_carbine", "targets": [{"trooper": "A-t5", "burst": 1}]}}


async def seats_on_two_nodes(store: RedisRoomStore, cluster: RedisClusterProcesses,
                             master: NodeView, owner_base: str, relay_base: str
                             ) -> tuple[Room, Client, Client]:
    """A new room on ``master``: seat A on the node at ``owner_base`` (which owns the room),
    seat B on the one at ``relay_base`` (which relays it); both hold their snapshot."""
    room = await room_on(store, cluster, master)
    a = await Client.connect(owner_base, room.room_id, room.token_a)
    b = await Client.connect(relay_base, room.room_id, room.token_b)
    for seat in (a, b):
        await seat.until(Snapshot)
    return room, a, b


def close_window(window: dict[str, Any]) -> dict[str, Any]:
    """The reactive player's "nothing more to declare" for ``window``."""
    return {"type": "close_aro_window", "order": window["order"], "step": window["step"]}


def received_events(*connections: Client) -> dict[int, object]:
    """Version -> event as this seat saw it, over all its connections; fails on a version
    received twice with different content or a gap."""
    seen: dict[int, object] = {}
    for client in connections:
        for frame in client.of(Events):
            for offset, event in enumerate(frame.events):
                version = frame.first + offset
                assert seen.get(version, event) == event, f"version {version} changed"
                seen[version] = event
    assert sorted(seen) == list(range(1, len(seen) + 1)), "gap in the versions received"
    return seen


async def assert_stored_exactly_once_in_order(store: RedisRoomStore, room: Room,
                                              seen_by_a: dict[int, object],
                                              accepted: list[int]) -> None:
    stored = await store.load_room(room.room_id)
    assert stored is not None
    payloads = await store.events_since(room.room_id, 0)
    assert payloads is not None and len(payloads) == stored.version
    events = [ENGINE.event_from_plain(codec.unpack_plain(p)) for p in payloads]
    # Replaying the stored log from the initial state reproduces the stored snapshot (taken
    # at its version), and that snapshot plus the events after it the state at the end.
    at_snapshot = ENGINE.apply_all(skirmish(PLACEMENTS), events[:stored.snapshot_version])
    read, _ = snapshot_state(ENGINE, stored.snapshot, stored.snapshot_version, stored.armies)
    assert ENGINE.state_to_plain(read) == ENGINE.state_to_plain(at_snapshot)
    assert list(stored.events) == payloads[stored.snapshot_version:]
    replayed = ENGINE.apply_all(skirmish(PLACEMENTS), events)
    # Seat A's view of every stored event is exactly what seat A received, version by version.
    assert {v: ENGINE.view_event(e, "A", replayed)
            for v, e in enumerate(events, 1)} == seen_by_a
    assert accepted == sorted(accepted) and accepted[-1] <= stored.version


async def command_once_storage_is_back(client: Client, body: dict[str, object],
                                       command_id: str) -> Accepted:
    """Send ``body`` (same id each time) until the restarted Redis stores it; every refusal
    before that must be ``storage_unavailable``."""
    for _ in range(RETRIES):
        answer = await client.command(body, id=command_id)
        if isinstance(answer, Accepted):
            return answer
        assert answer.code == ProtocolReason.STORAGE_UNAVAILABLE, answer
    raise AssertionError(f"{command_id} still refused after {RETRIES} tries")


async def play_on_after_failover(store: RedisRoomStore, room: Room, seat_a: list[Client],
                                 relay_base: str,
                                 answered: list[tuple[Client, dict[str, object], str, Accepted]],
                                 ) -> Client:
    """After a master's failover: seat B reconnects through the relaying node at
    ``relay_base``, counters the Move that seat A's last command opened and closes the window
    (both accepted at the first try); every id in ``answered`` (seat, body, id, its first
    answer) and B's counter get their first answers again; the room's log holds every accepted
    command once and in order, as seat A received it (``seat_a``: its connections, the live
    one last). Returns B's client."""
    a = seat_a[-1]
    b = await Client.connect(relay_base, room.room_id, room.token_b)
    await b.until(Snapshot)
    window = current(a)  # the Move opened the reactive seat's window
    assert window is not None
    counter = await b.command(COUNTER_SHOT, id="counter")
    closing = await b.command(close_window(window), id="close")
    await closed(a, window)
    assert isinstance(counter, Accepted) and isinstance(closing, Accepted), (counter, closing)
    for seat, body, command_id, first in [*answered, (b, COUNTER_SHOT, "counter", counter)]:
        again = await seat.command(body, id=command_id)
        assert isinstance(again, Accepted) and again.version == first.version, again
    versions = [first.version for *_, first in answered] + [counter.version, closing.version]
    stored = await store.load_room(room.room_id)
    assert stored is not None and stored.version == versions[-1]
    await assert_stored_exactly_once_in_order(store, room, received_events(*seat_a),
                                              versions)
    return b
