"""Chess clocks over real websockets (issue 20, point 5), with the real rules core.

Every ``snapshot`` and ``events`` frame carries ``clocks`` (each side's ``remaining_ms`` as
of the frame, ``running``, ``out_of_time``); the room's clock timer records a time-out as a
``clock_ran_out`` event everyone sees; a restarted server computes the same clocks from the
stored state and runs the same deadline out; a delayed spectator sees the clocks as they
stood at its delayed point. Time is a fake clock the test moves (``RoomRegistry.clock``);
the time-out is then driven with ``Room.clock_due``, so no test waits for a timer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette

from protocol.messages import Accepted, Events, Snapshot
from server.app import create_app
from server.rooms.room import Room
from server.store import MemoryRoomStore, RoomSettings, RoomStore
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.doubles.fake_clock import FakeClock
from tests.helpers import settings
from tests.support.skirmish import skirmish

CLOCK_S = 60
A1, B_SHOOTER = "A-t5", "B-t3"
PLACEMENTS = {
    A1: (22.5, 4.0, 90.0),
    B_SHOOTER: (22.5, 28.0, 270.0),
    "A-t1": (3.5, 1.5, 90.0),
    "B-t1": (3.5, 30.5, 90.0),
}
ACTIVATE = {"type": "activate", "trooper": A1, "order": "regular"}
MOVE = {"type": "declare_skill", "skill": {"type": "move", "route": [[22.5, 4], [22.5, 6]]}}


def clocks(a: int, b: int, running: str | None = None,
           out: tuple[str, ...] = ()) -> dict[str, Any]:
    return {side: {"remaining_ms": ms, "running": running == side, "out_of_time": side in out}
            for side, ms in (("A", a), ("B", b))}


@asynccontextmanager
async def serving(store: RoomStore, clock: FakeClock) -> AsyncIterator[tuple[Starlette, str]]:
    app = create_app(settings(), store=store)
    app.state.registry.clock = clock
    async with running_server(settings(), app=app) as base:
        yield app, base


async def room_of(app: Starlette, room_id: str) -> Room:
    room = await app.state.registry.open(room_id)
    assert isinstance(room, Room)
    return room


async def create(app: Starlette, **options: Any) -> Any:
    return await app.state.registry.create(
        RoomSettings("codeone", 600.0, "public", fixed_seed=1, clock_s=CLOCK_S, **options),
        skirmish(PLACEMENTS))


async def test_frames_carry_the_clocks_and_a_time_out_is_an_event_for_everyone() -> None:
    clock = FakeClock()
    async with serving(MemoryRoomStore(), clock) as (app, base):
        created = await create(app)
        room_id = created.meta.room_id
        a = await Client.connect(base, room_id, created.token_a)
        assert (await a.until(Snapshot)).clocks == clocks(60_000, 60_000, "A")
        clock.advance(10)
        assert isinstance(await a.command(ACTIVATE), Accepted)
        assert a.of(Events)[-1].clocks == clocks(50_000, 60_000, "A")
        clock.advance(5)
        assert isinstance(await a.command(MOVE), Accepted)
        # The ARO window waits on B: B's clock runs, A's stopped at 45 s.
        assert a.of(Events)[-1].clocks == clocks(45_000, 60_000, "B")
        clock.advance(20)
        b = await Client.connect(base, room_id, created.token_b)
        spectator = await Client.connect(base, room_id)
        assert (await b.until(Snapshot)).clocks == clocks(45_000, 40_000, "B")
        assert (await spectator.until(Snapshot)).clocks == clocks(45_000, 40_000, "B")
        # A reconnect with ``since`` gets the clocks in its catch-up frame.
        again = await Client.connect(base, room_id, created.token_a, since=a.version)
        assert (await again.until(Events)).clocks == clocks(45_000, 40_000, "B")

        clock.advance(41)  # B's time is up
        (await room_of(app, room_id)).clock_due()
        for viewer in (again, b, spectator):
            frame = await viewer.until(Events, lambda f: any(
                e.get("type") == "clock_ran_out" for e in f.events))
            assert {"type": "clock_ran_out", "side": "B", "at_ms": clock.ms - 1_000} in frame.events
            assert frame.clocks == clocks(45_000, 0, None, out=("B",))


async def test_clocks_hold_across_a_restart(redis_server: RedisProcess) -> None:
    clock = FakeClock()
    async with serving(RedisRoomStore.from_url(redis_server.url), clock) as (app, base):
        created = await create(app)
        start = clock.ms
        room_id = created.meta.room_id
        a = await Client.connect(base, room_id, created.token_a)
        clock.advance(10)
        assert isinstance(await a.command(ACTIVATE), Accepted)
        assert a.of(Events)[-1].clocks == clocks(50_000, 60_000, "A")

    clock.advance(20)  # (the server is down: A's clock runs on)
    async with serving(RedisRoomStore.from_url(redis_server.url), clock) as (app, base):
        a = await Client.connect(base, room_id, created.token_a)
        assert (await a.until(Snapshot)).clocks == clocks(30_000, 60_000, "A")
        clock.advance(30)  # A's deadline, as the first server stored it
        (await room_of(app, room_id)).clock_due()
        frame = await a.until(Events, lambda f: bool(f.events))
        assert frame.events[0] == {"type": "clock_ran_out", "side": "A", "at_ms": start + 60_000}
        # No Order after the current one: A finishes it, its turn then ends at once.
        assert frame.clocks == clocks(0, 60_000, None, out=("A",))


async def test_a_delayed_spectator_sees_the_clocks_as_they_stood_at_its_delayed_point() -> None:
    clock = FakeClock()
    async with serving(MemoryRoomStore(), clock) as (app, base):
        created = await create(app, spectator_delay_s=30.0)
        room_id = created.meta.room_id
        a = await Client.connect(base, room_id, created.token_a)
        clock.advance(10)
        await a.command(ACTIVATE)
        clock.advance(5)
        await a.command(MOVE)  # B's clock runs from here (15 s)
        clock.advance(25)  # 40 s: the delayed point is 10 s, before the switch
        spectator = await Client.connect(base, room_id)
        assert (await spectator.until(Snapshot)).clocks == clocks(50_000, 60_000, "A")
        clock.advance(10)  # 50 s: the delayed point is 20 s: B has run 5 s
        (await room_of(app, room_id)).release_due()
        frame = await spectator.until(Events, lambda f: bool(f.events))
        assert frame.clocks == clocks(45_000, 55_000, "B")
        # Live seats are never delayed.
        b = await Client.connect(base, room_id, created.token_b)
        assert (await b.until(Snapshot)).clocks == clocks(45_000, 25_000, "B")
