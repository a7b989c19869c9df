"""Chess clocks across a takeover and a restart (issue 20: the clocks "hold across
reconnects, restarts and takeovers"), with real ``python -m server`` processes against one
real redis-server.

The nodes read the time from a file the test writes (``clocked``:
tests/cluster/clocked_node.py), so time moves only when the test says. The owner stops while
A's clock runs (``kill -9``, or a shutdown nobody takes over at once): the node that loads
the room next gives the running clock back the time nobody ran the room, from the owner's
last stamp (``server.cluster.lease``), and so moves its deadline on; it runs A out at exactly
that deadline (found first by the command that arrives after it, so no test waits for a
timer). The open ARO window's deadline moves on likewise.
"""

from __future__ import annotations

import pytest

from protocol.messages import Accepted, Events, Rejected, Snapshot
from server.cluster.lease import Stamp, seen_key
from server.lobby.tokens import new_organizer_token, new_room_id, new_seat_token, token_hash
from server.rooms.numbering import NONE_SEEN, pack_room_snapshot
from server.store import RoomMeta, RoomSettings
from server.store.redis_store import RedisRoomStore
from testkit.wsclient import Client
from tests.cluster.clocked_node import Clock, ClockedNode
from tests.cluster.game import ACTIVATE, ENGINE, MOVE, PLACEMENTS
from tests.support.skirmish import skirmish

pytestmark = [pytest.mark.redis, pytest.mark.slow]

CLOCK_S = 60
ARO_WINDOW_S = 600.0


def clocks(a: int, b: int, running: str | None) -> dict[str, object]:
    return {side: {"remaining_ms": ms, "running": running == side, "out_of_time": False}
            for side, ms in (("A", a), ("B", b))}


async def clocked_room(clock: Clock, store: RedisRoomStore) -> tuple[str, str, int]:
    """A room on 60 s chess clocks, A's running from now: its id, A's token, its start."""
    token_a = new_seat_token()
    settings = RoomSettings("codeone", ARO_WINDOW_S, "private", fixed_seed=1, clock_s=CLOCK_S)
    meta = RoomMeta(new_room_id(), settings, token_hash(token_a), token_hash(new_seat_token()),
                    1, "", token_hash(new_organizer_token()))
    start = clock.ms  # the room's clocks start here, A's running (its Orders Phase)
    state = ENGINE.start_clocks(skirmish(PLACEMENTS), CLOCK_S * 1000, start)
    await store.create_room(meta, pack_room_snapshot(ENGINE.state_to_plain(state), NONE_SEEN),
                            None)
    return meta.room_id, token_a, start


async def activated(clock: Clock, store: RedisRoomStore, node: ClockedNode
                    ) -> tuple[str, str, int, Client]:
    """``clocked_room`` on ``node``, whose player A activates a trooper 10 s in (50 s left):
    the room's id, A's token, its start and A's client."""
    room_id, token_a, start = await clocked_room(clock, store)
    a = await Client.connect(node.base, room_id, token_a)
    assert (await a.until(Snapshot)).clocks == clocks(60_000, 60_000, "A")
    clock.advance(10)
    assert isinstance(await a.command(ACTIVATE), Accepted)
    assert a.of(Events)[-1].clocks == clocks(50_000, 60_000, "A")
    return room_id, token_a, start, a


async def until_stamped(store: RedisRoomStore, node: ClockedNode, room_ms: int) -> None:
    """Until ``node``'s renewal rounds have stamped the room time ``room_ms`` (its loop's
    heartbeat read the clock since the test moved it; each look is a round trip)."""
    key = seen_key(node.env["REFEREE_NODE_ID"])
    while (stamp := Stamp.parse(await store.client.get(key))) is None or stamp.room_ms < room_ms:
        pass


async def test_the_clocks_and_their_deadline_survive_a_takeover(
        clocked: tuple[Clock, ClockedNode, ClockedNode], store: RedisRoomStore) -> None:
    clock, one, two = clocked
    room_id, token_a, start, a = await activated(clock, store, one)  # node one owns the room

    await until_stamped(store, one, clock.ms)
    await one.kill()  # 10 s in: nobody runs the room from here
    await a.close_code()  # (the connection dies with its node)
    clock.advance(20)
    a = await Client.connect(two.base, room_id, token_a)  # node two takes it over
    # The 20 s nobody ran the room are given back: A has its 50 s, its deadline 20 s later.
    assert (await a.until(Snapshot)).clocks == clocks(50_000, 60_000, "A")

    clock.advance(51)  # A's deadline (start + 80 s) passed a second ago
    # The room finds the time-out before the command (as it does an ARO window's deadline):
    # it commits the time-out first, so the command, issued before it, is stale.
    late = await a.command(MOVE)
    assert isinstance(late, Rejected) and late.code == "stale_version"
    assert a.of(Events)[-1].events == [
        {"type": "clock_ran_out", "side": "A", "at_ms": start + 80_000}]
    assert isinstance(await a.command(MOVE), Accepted)  # A finishes the Order in progress
    assert any(e["type"] == "skill_declared" for e in a.of(Events)[-1].events)
    last = a.of(Events)[-1].clocks
    assert last is not None and last["A"] == {"remaining_ms": 0, "running": False,
                                              "out_of_time": True}
    assert last["B"]["running"]  # the ARO window of A's Order waits on B


async def test_a_node_restarted_in_place_gives_its_rooms_the_time_it_was_down(
        clocked: tuple[Clock, ClockedNode, ClockedNode], store: RedisRoomStore) -> None:
    clock, one, _two = clocked
    room_id, token_a, start, a = await activated(clock, store, one)

    await until_stamped(store, one, clock.ms)
    await one.kill()
    await a.close_code()
    clock.advance(30)
    await one.start()  # the same node id: it takes its rooms back at once (warm restart)
    a = await Client.connect(one.base, room_id, token_a, since=a.version)
    caught_up = await a.until(Events)
    assert caught_up.events == [{"type": "clocks_held", "from_ms": start + 10_000,
                                 "to_ms": start + 40_000,
                                 "remaining": {"A": 50_000, "B": 60_000}}]
    assert caught_up.clocks == clocks(50_000, 60_000, "A")


async def test_a_shutdown_waited_for_gives_back_the_clock_and_the_aro_window(
        clocked: tuple[Clock, ClockedNode, ClockedNode], store: RedisRoomStore) -> None:
    clock, one, two = clocked
    room_id, token_a, start, a = await activated(clock, store, one)
    assert isinstance(await a.command(MOVE), Accepted)  # B's ARO window opens: B's clock runs
    window = a.of(Events)[-1].window
    assert window is not None and window["deadline_ms"] == start + 10_000 + 600_000

    await one.stop()  # SIGTERM at 10 s: it stamps the time it lets its rooms go
    await a.close_code()
    clock.advance(25)
    a = await Client.connect(two.base, room_id, token_a)
    snapshot = await a.until(Snapshot)
    assert snapshot.clocks == clocks(50_000, 60_000, "B")
    assert snapshot.window is not None
    assert snapshot.window["deadline_ms"] == start + 35_000 + 600_000  # 25 s later
