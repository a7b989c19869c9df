"""A room that leaves memory is freed by reference counting, not left in reference cycles
for the garbage collector.

A node freezes what is alive when a crowd grows and after each batch of a warm restart
(``server/node/crowd_gc.py``, ``server/cluster/warm_up.py``): a frozen object in a cycle is
never collected. A room's parts used to hold it back (the catch-up, the options, the joins
and the listing their room; bound methods of it and lambdas over it; the spectator count's
timer its own bound method), so every room that was alive at a freeze and later left
memory stayed there for good, its game state with it.

Each case runs a real uvicorn server with the app in this process and the collector off,
plays a room a little, closes its sockets, waits until the room left memory (its idle
countdown, ``idle_room_s``, is short here), and finds none of the room's objects alive.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from protocol.constants import PROTOCOL_VERSION, WS_PATH
from protocol.messages import Hello
from server.app import create_app
from server.rooms.registry import RoomRegistry
from server.rules.state import GameState
from server.transport import live_connections
from tests.helpers import create_room, settings
from tests.transport.test_socket_cycles import closed, freed, joined, left_alive, served, settled


def room_parts(things: list[Any]) -> list[str]:
    """The kinds of a room's objects among ``things``: anything of ``server.rooms`` and the
    game's state."""
    return sorted({type(thing).__name__ for thing in things if _of_a_room(thing)})


def _of_a_room(thing: object) -> bool:
    kind = type(thing)
    module = kind.__dict__.get("__module__")  # (a metaclass's own is a descriptor)
    return kind is GameState or (isinstance(module, str) and module.startswith("server.rooms."))


async def left_memory(registry: RoomRegistry) -> None:
    """Until no room is in memory (idle: nobody connected for ``idle_room_s``). Bounded by
    loop turns."""
    for _ in range(100_000):
        if registry.live_rooms() == 0:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"{registry.live_rooms()} rooms still in memory")


@pytest.mark.parametrize("options", [
    {},
    {"clock_s": 3600, "spectator_delay_s": 30.0},
], ids=["plain", "clock-and-delayed-spectators"])
async def test_a_room_that_left_memory_leaves_no_cycle_for_the_collector(
        options: dict[str, Any]) -> None:
    node = settings(idle_room_s=0.0)
    app = create_app(node)
    async with served(node, app) as (base, server):
        registry = app.state.registry
        with left_alive(_of_a_room) as alive:
            async with httpx.AsyncClient(base_url=base) as http:
                room = await create_room(http, **options)
            url = "ws" + base.removeprefix("http") + WS_PATH + f"?room={room['room']}"
            tokens = [room["seats"]["A"]["token"], room["seats"]["B"]["token"], None, None]
            sockets = [await joined(url, Hello(PROTOCOL_VERSION, room["room"], token, 0))
                       for token in tokens]
            for ws in sockets:
                await closed(ws)
            del sockets
            await settled(server)
            await freed(live_connections.unfreed)
            await left_memory(registry)
        assert room_parts(alive) == [], "left for the collector"
