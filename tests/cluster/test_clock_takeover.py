"""Chess clocks across a takeover (issue 20: the clocks "hold across reconnects, restarts and
takeovers"), with real ``python -m server`` processes against one real redis-server.

The nodes read the time from a file the test writes (``clocked``:
tests/cluster/clocked_node.py), so time moves only when the test says. The owner is killed
(``kill -9``) while A's clock runs: the node that takes the room over shows the same clocks,
computed from the running side's stored start, and runs A out at exactly the deadline the
first node had (found first by the command that arrives after it, so no test waits for a
timer).
"""

from __future__ import annotations

import pytest

from protocol.messages import Accepted, Events, Rejected, Snapshot
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


def clocks(a: int, b: int, running: str | None) -> dict[str, object]:
    return {side: {"remaining_ms": ms, "running": running == side, "out_of_time": False}
            for side, ms in (("A", a), ("B", b))}


async def test_the_clocks_and_their_deadline_survive_a_takeover(
        clocked: tuple[Clock, ClockedNode, ClockedNode], store: RedisRoomStore) -> None:
    clock, one, two = clocked
    token_a = new_seat_token()
    settings = RoomSettings("codeone", 600.0, "private", fixed_seed=1, clock_s=CLOCK_S)
    meta = RoomMeta(new_room_id(), settings, token_hash(token_a), token_hash(new_seat_token()),
                    1, "", token_hash(new_organizer_token()))
    start = clock.ms  # the room's clocks start here, A's running (its Orders Phase)
    state = ENGINE.start_clocks(skirmish(PLACEMENTS), CLOCK_S * 1000, start)
    await store.create_room(meta, pack_room_snapshot(ENGINE.state_to_plain(state), NONE_SEEN),
                            None)
    room_id = meta.room_id

    a = await Client.connect(one.base, room_id, token_a)  # node one owns the room
    assert (await a.until(Snapshot)).clocks == clocks(60_000, 60_000, "A")
    clock.advance(10)
    assert isinstance(await a.command(ACTIVATE), Accepted)
    assert a.of(Events)[-1].clocks == clocks(50_000, 60_000, "A")

    await one.kill()
    await a.close_code()  # (the connection dies with its node)
    clock.advance(20)
    a = await Client.connect(two.base, room_id, token_a)  # node two takes it over
    assert (await a.until(Snapshot)).clocks == clocks(30_000, 60_000, "A")

    clock.advance(31)  # A's deadline (start + 60 s) passed a second ago
    # The room finds the time-out before the command (as it does an ARO window's deadline):
    # it commits the time-out first, so the command, issued before it, is stale.
    late = await a.command(MOVE)
    assert isinstance(late, Rejected) and late.code == "stale_version"
    assert a.of(Events)[-1].events == [
        {"type": "clock_ran_out", "side": "A", "at_ms": start + 60_000}]
    assert isinstance(await a.command(MOVE), Accepted)  # A finishes the Order in progress
    assert any(e["type"] == "skill_declared" for e in a.of(Events)[-1].events)
    last = a.of(Events)[-1].clocks
    assert last is not None and last["A"] == {"remaining_ms": 0, "running": False,
                                              "out_of_time": True}
    assert last["B"]["running"]  # the ARO window of A's Order waits on B
