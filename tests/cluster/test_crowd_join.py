"""A crowd joining through a relaying node, with real ``python -m server`` processes and one
real redis-server: the relay greets it from crowd kits (``server.cluster.crowd_kit``), each
spectator gets a welcome and the snapshot of its version, the owner counts every one of them,
and every one gets the events committed after."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

import httpx
import pytest

from protocol.messages import Accepted, Events, Snapshot, Spectators
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess
from testkit.server_process import METRICS_TOKEN, ServerProcess, two_nodes
from testkit.wsclient import Client
from tests.cluster.game import ACTIVATE, MOVE, create_room, received_events

pytestmark = [pytest.mark.redis, pytest.mark.slow]

CROWD = 24


@pytest.fixture
async def nodes(redis_server: RedisProcess) -> AsyncIterator[tuple[ServerProcess, ServerProcess]]:
    """Two nodes that send a room's spectator count as soon as it changes: the room here is
    loaded from the store (made there by the test), whose count is otherwise held for 10 s
    after its load (``server.rooms.spectator_count``)."""
    async with two_nodes(redis_server.url, ServerProcess,
                         env={"REFEREE_SPECTATOR_COUNT_HOLD_S": "0"}) as started:
        yield started


async def crowd_joins(base: str) -> dict[str, float]:
    """The relays' crowd joins counted by ``base``'s /metrics, by who greeted them."""
    async with httpx.AsyncClient() as http:
        text = (await http.get(f"{base}/metrics",
                               headers={"Authorization": f"Bearer {METRICS_TOKEN}"})).text
    found = re.findall(r'^referee_relay_crowd_joins_total\{greeted_from="(\w+)"\} (\S+)$', text,
                       re.MULTILINE)
    return {label: float(value) for label, value in found}


async def test_a_crowd_on_the_relaying_node_is_greeted_counted_and_fed(
        nodes: tuple[ServerProcess, ServerProcess], store: RedisRoomStore) -> None:
    one, two = nodes
    room = await create_room(store, aro_window_s=600.0, visibility="public")
    a = await Client.connect(one.base, room.room_id, room.token_a)  # node one owns the room
    await a.until(Snapshot)
    assert isinstance(await a.command(ACTIVATE), Accepted)
    crowd = await asyncio.gather(*(Client.connect(two.base, room.room_id)
                                   for _ in range(CROWD)))
    for spectator in crowd:
        assert spectator.welcome is not None and spectator.welcome.role == "spectator"
        snapshot = await spectator.until(Snapshot)
        assert snapshot.version == spectator.welcome.version >= 1, "the welcome's version"
        assert snapshot.state, "a spectator's whole view"
    greeted = await crowd_joins(two.base)
    assert sum(greeted.values()) == CROWD
    assert greeted["kit"] >= 1, "some greeted by the relay itself"
    assert greeted["owner"] < CROWD

    counted = await a.until(Spectators, lambda m: m.count == CROWD)  # the owner counts all
    assert counted.count == CROWD
    moved = await a.command(MOVE)
    assert isinstance(moved, Accepted)
    for spectator in crowd:
        if spectator.version < moved.version:
            await spectator.until(Events, lambda m: m.first + len(m.events) - 1 >= moved.version)
    seen_by_a = received_events(a)
    for spectator in crowd:
        since = spectator.welcome.version  # type: ignore[union-attr]
        after = events_after(spectator, since)
        assert sorted(after) == list(range(since + 1, moved.version + 1)), "no gap, no repeat"
        assert all(event == seen_by_a[version] for version, event in after.items()), (
            "the events as the room made them (no hidden information in this scenario)")


def events_after(client: Client, version: int) -> dict[int, object]:
    """The events ``client`` received after ``version``, by version (each once)."""
    seen: dict[int, object] = {}
    for frame in client.of(Events):
        for offset, event in enumerate(frame.events):
            if frame.first + offset > version:
                assert frame.first + offset not in seen, "an event received twice"
                seen[frame.first + offset] = event
    return seen
