"""The spectator delay and the caster feed across nodes and a takeover (issue 20: "the
delay holds across restarts and takeovers: a delayed feed resumes where it was"), with
real ``python -m server`` processes against one real redis-server.

The nodes read the time from a file the test writes (``clocked``:
tests/cluster/clocked_node.py), so time moves only when the test says; a delayed viewer's
join answers from the feed as the clock stands (a late timer never makes it staler), so no
test waits for a timer. The owner is killed (``kill -9``) with one commit released to spectators and one
not: on the node that takes the room over, the spectators resume at exactly that point,
then get the second commit once its time has come, and the caster (60 s) nothing yet.
"""

from __future__ import annotations

import pytest

from protocol.constants import CloseCode
from protocol.messages import Accepted, Events, Snapshot
from server.lobby.tokens import (
    new_caster_token,
    new_organizer_token,
    new_room_id,
    new_seat_token,
    token_hash,
)
from server.rooms.numbering import NONE_SEEN, pack_room_snapshot
from server.store import RoomMeta, RoomSettings
from server.store.redis_store import RedisRoomStore
from testkit.wsclient import Client
from tests.cluster.clocked_node import Clock, ClockedNode
from tests.cluster.game import ACTIVATE, ENGINE, MOVE, PLACEMENTS
from tests.support.skirmish import skirmish

pytestmark = [pytest.mark.redis, pytest.mark.slow]

DELAY_S = 30.0


async def delayed_room(store: RedisRoomStore) -> tuple[RoomMeta, str]:
    """A CodeOne skirmish stored as the lobby would, delayed for spectators; its seat A
    token (the meta makes caster tokens)."""
    token_a, organizer = new_seat_token(), new_organizer_token()
    settings = RoomSettings("codeone", 600.0, "private", DELAY_S, fixed_seed=1)
    meta = RoomMeta(new_room_id(), settings, token_hash(token_a), token_hash(new_seat_token()),
                    1, "", token_hash(organizer))
    snapshot = pack_room_snapshot(ENGINE.state_to_plain(skirmish(PLACEMENTS)), NONE_SEEN)
    await store.create_room(meta, snapshot, None)
    return meta, token_a


def event_types(*clients: Client) -> list[str]:
    return [e["type"] for c in clients for frame in c.of(Events) for e in frame.events]


async def test_a_delayed_feed_resumes_where_it_was_after_the_owner_dies(
        clocked: tuple[Clock, ClockedNode, ClockedNode], store: RedisRoomStore) -> None:
    clock, one, two = clocked
    meta, token_a = await delayed_room(store)
    room_id = meta.room_id
    a = await Client.connect(one.base, room_id, token_a)  # node one owns the room
    first = await a.command(ACTIVATE)
    assert isinstance(first, Accepted)
    first_types = event_types(a)
    clock.advance(10)
    assert isinstance(await a.command(MOVE), Accepted)  # committed 10 s after the first
    second_types = event_types(a)[len(first_types):]
    assert first_types and second_types  # (no hidden information: spectators see them all)

    watcher = await Client.connect(two.base, room_id)  # relayed by node two
    assert watcher.welcome is not None and watcher.welcome.version == 0
    assert (await watcher.until(Snapshot)).version == 0

    clock.advance(DELAY_S - 5)  # the first commit is due, the second in 5 s
    # A join at the owner releases what is due (a relayed one may be greeted from the
    # relay's crowd kit, made before: never ahead of the delay, and the release follows).
    late = await Client.connect(one.base, room_id)
    assert late.welcome is not None and late.welcome.version > 0
    while watcher.version < late.welcome.version:
        await watcher.next()
    assert event_types(watcher) == first_types
    caster = await Client.connect(two.base, room_id, new_caster_token(meta))
    assert caster.welcome is not None
    assert (caster.welcome.role, caster.welcome.version, caster.welcome.delay_s) == (
        "caster", 0, 60.0)
    held = watcher.version

    await one.kill()
    assert await watcher.close_code() == CloseCode.ROOM_UNAVAILABLE  # node two took it over
    resumed = await Client.connect(two.base, room_id, since=held)
    assert resumed.welcome is not None and resumed.welcome.version == held, "where it was"
    caught_up = await resumed.until(Events)
    assert (caught_up.first, caught_up.events) == (held + 1, [])
    caster_again = await Client.connect(two.base, room_id, new_caster_token(meta), since=0)
    assert caster_again.welcome is not None and caster_again.welcome.version == 0

    clock.advance(5)  # the second commit's time has come
    await Client.connect(two.base, room_id)  # (a join releases it; the timer would too)
    while resumed.version < held + len(second_types):
        await resumed.next()
    assert event_types(resumed) == second_types
    assert event_types(caster_again) == []
