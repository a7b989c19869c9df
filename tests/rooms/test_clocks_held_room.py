"""Chess clocks held while the room's store refused its writes (``server/rooms/
clock_timer.py``), over real websockets with the real rules core and a store that fails on
demand: the span from the first refused write to the store's return is given back to the
running clock before anything else is decided (a ``clocks_held`` event everyone sees), so a
deadline met meanwhile does not run the clock out; with nobody sending anything, the room's
own retries give it back once the store is back. Only a refused write everyone would have
seen starts the span: its start is public, and a private one's would tell when a player did
what only that player may know of. Time is a fake clock the test moves."""

from __future__ import annotations

from starlette.applications import Starlette

from protocol.constants import ProtocolReason
from protocol.messages import Accepted, Events, Rejected
from server.store import RoomSettings
from testkit.wsclient import Client
from tests.doubles.fake_clock import FakeClock
from tests.rooms.test_chess_clocks_wire import (
    A1,
    ACTIVATE,
    CLOCK_S,
    MOVE,
    PLACEMENTS,
    clocks,
    create,
    room_of,
    serving,
)
from tests.rooms.test_window_runs_again_room import FailingStore
from tests.support.skirmish import skirmish

CHOOSE_GUTS_FAILURE = {"type": "choose_guts_failure", "trooper": A1, "fail": True}


def held(frame: Events) -> list[dict[str, object]]:
    return [e for e in frame.events if e.get("type") == "clocks_held"]


async def activated(app: Starlette, base: str, clock: FakeClock) -> tuple[str, int, Client]:
    """A new room on 60 s chess clocks whose player A activates a trooper 10 s in (50 s
    left): its id, its start (room time) and A's client."""
    created = await create(app)
    start = clock.ms
    a = await Client.connect(base, created.meta.room_id, created.token_a)
    clock.advance(10)
    assert isinstance(await a.command(ACTIVATE), Accepted)
    return created.meta.room_id, start, a


async def test_a_deadline_met_while_the_store_failed_is_moved_on_by_the_span_it_failed() -> None:
    clock, store = FakeClock(), FailingStore()
    async with serving(store, clock) as (app, base):
        room_id, start, a = await activated(app, base, clock)
        spectator = await Client.connect(base, room_id)

        clock.advance(5)  # Redis fails over as A moves: refused from 15 s
        store.down = True
        refused = await a.command(MOVE, id="move")
        assert isinstance(refused, Rejected)
        assert refused.code == ProtocolReason.STORAGE_UNAVAILABLE
        clock.advance(50)  # A's deadline (60 s) passes: its time-out cannot be stored
        (await room_of(app, room_id)).clock_due()

        clock.advance(5)  # the store is back at 70 s; A sends its move again
        store.down = False
        assert isinstance(await a.command(MOVE, id="move"), Accepted)
        # (A read the hold's frame before its answer; the spectator reads on to it.)
        for frame in (next(f for f in a.of(Events) if held(f)),
                      await spectator.until(Events, lambda f: bool(held(f)))):
            assert held(frame) == [{"type": "clocks_held", "from_ms": start + 15_000,
                                    "to_ms": start + 70_000,
                                    "remaining": {"A": 45_000, "B": 60_000}}]
        # A's move opened B's ARO window: A stopped with the 45 s it had when Redis failed.
        assert a.of(Events)[-1].clocks == clocks(45_000, 60_000, "B")
        assert not any(e.get("type") == "clock_ran_out" for f in a.of(Events) for e in f.events)


async def test_with_nobody_sending_the_rooms_retries_give_the_span_back() -> None:
    clock, store = FakeClock(), FailingStore()
    async with serving(store, clock) as (app, base):
        room_id, start, a = await activated(app, base, clock)
        store.down = True
        assert isinstance(await a.command(MOVE), Rejected)  # refused from 10 s
        clock.advance(60)  # A's deadline passes while the store is down
        (await room_of(app, room_id)).clock_due()
        store.down = False  # back at 70 s: nobody sends anything
        frame = await a.until(Events, lambda f: bool(held(f)))
        assert held(frame)[0]["from_ms"] == start + 10_000
        assert held(frame)[0]["to_ms"] == start + 70_000
        assert frame.clocks == clocks(50_000, 60_000, "A")


async def test_a_private_write_refused_starts_no_span_its_start_would_tell_of_it() -> None:
    clock, store = FakeClock(), FailingStore()
    async with serving(store, clock) as (app, base):
        created = await app.state.registry.create(
            RoomSettings("n5", 600.0, "public", fixed_seed=1, clock_s=CLOCK_S),
            skirmish(PLACEMENTS, ruleset="n5"))
        a = await Client.connect(base, created.meta.room_id, created.token_a)
        spectator = await Client.connect(base, created.meta.room_id)
        clock.advance(10)
        store.down = True  # A's standing Guts choice, seen by A only, meets the outage
        refused = await a.command(CHOOSE_GUTS_FAILURE, id="guts")
        assert isinstance(refused, Rejected)
        assert refused.code == ProtocolReason.STORAGE_UNAVAILABLE
        clock.advance(20)
        store.down = False
        assert isinstance(await a.command(CHOOSE_GUTS_FAILURE, id="guts"), Accepted)
        assert isinstance(await a.command(ACTIVATE), Accepted)  # public: the spectator sees it
        frame = await spectator.until(Events, lambda f: bool(f.events))
        assert not held(frame)  # no hold: A's 20 s of the outage are charged
        assert frame.clocks == clocks(30_000, 60_000, "A")
        assert not any(held(f) for f in a.of(Events))
