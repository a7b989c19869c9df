"""Several nodes serve one room (issue 5), with real ``python -m server`` processes against
one real redis-server and real websocket clients:

- players and spectators of one room on two nodes all get every event in order, the relayed
  seat commands through the owner, presence and spectator counts are right on both nodes;
- ``kill -9`` of the owning node during an open ARO window: the other node takes the room
  over after the lease expires, the window closes at its original deadline, clients resume;
- a paused (SIGSTOP) owner whose lease was taken over can never write when it resumes.

Each checks that every accepted command's events are stored exactly once and in order.
"""

from __future__ import annotations

import httpx
import pytest

from protocol.constants import CloseCode
from protocol.messages import (
    Accepted,
    Events,
    Options,
    OptionsRequest,
    Presence,
    Rejected,
    Snapshot,
)
from server.rooms.room import now_ms
from server.store.redis_store import RedisRoomStore
from testkit.server_process import ServerProcess
from testkit.wsclient import Client
from tests.cluster.game import (
    ACTIVATE,
    COUNTER_SHOT,
    MOVE,
    SHOOT_B,
    assert_stored_exactly_once_in_order,
    close_window,
    create_room,
    received_events,
)
from tests.support.windows import closed, opened

pytestmark = [pytest.mark.redis, pytest.mark.slow]

async def get_json(url: str) -> dict[str, object]:
    async with httpx.AsyncClient() as http:
        response = await http.get(url)
    response.raise_for_status()
    result: dict[str, object] = response.json()
    return result


async def test_players_and_spectators_on_two_nodes_get_every_event_in_order(
        nodes: tuple[ServerProcess, ServerProcess], store: RedisRoomStore) -> None:
    one, two = nodes
    room = await create_room(store, aro_window_s=600.0, visibility="public")
    a = await Client.connect(one.base, room.room_id, room.token_a)  # node one owns the room
    b = await Client.connect(two.base, room.room_id, room.token_b)  # node two relays
    watch_one = await Client.connect(one.base, room.room_id)
    watch_two = await Client.connect(two.base, room.room_id)
    viewers = (a, b, watch_one, watch_two)
    for viewer in viewers:
        await viewer.until(Snapshot)
    health_one = await get_json(f"{one.base}/healthz")
    health_two = await get_json(f"{two.base}/healthz")
    assert health_one["node"] == one.env["REFEREE_NODE_ID"] and health_one["rooms"] == 1
    assert health_two["node"] == two.env["REFEREE_NODE_ID"] and health_two["rooms"] == 0
    for base in (one.base, two.base):  # both spectators counted, whichever node is asked
        listing = await get_json(f"{base}/api/rooms")
        assert [r["spectators"] for r in listing["rooms"]  # type: ignore[union-attr]
                if r["room"] == room.room_id] == [2]

    accepted = [await a.command(ACTIVATE), await a.command(MOVE)]
    window = await opened(b)
    assert window["reactive"] == "B"
    await b.send(OptionsRequest())  # a relayed seat asks the owner for its choices
    options = await b.until(Options)
    assert options.version == b.version and options.options
    counter = await b.command(COUNTER_SHOT)  # a relayed seat commands through the owner
    assert isinstance(counter, Accepted)
    # Its answer crossed the bus inside the events frame of seat B's audience.
    answered_by = b.frames[-1]
    assert isinstance(answered_by, Events) and answered_by.accepted == counter.id
    accepted.append(counter)
    by_b = [counter, await b.command(close_window(window))]  # B is done declaring
    accepted.append(by_b[-1])
    await closed(a, window)
    accepted.append(await a.command(SHOOT_B))
    by_b.append(await b.command(close_window(await opened(b))))  # nothing at ARO step 2
    accepted.append(by_b[-1])
    assert all(isinstance(answer, Accepted) for answer in accepted), accepted
    final = accepted[-1].version
    for viewer in (a, watch_one, watch_two):
        if viewer.version < final:
            await viewer.until(Events, lambda m: m.first + len(m.events) - 1 >= final)

    # Each accepted command answered its commander in its events frame, and only there.
    assert not a.of(Accepted) and not b.of(Accepted)
    assert [m.accepted for m in a.of(Events) if m.accepted] == [
        answer.id for answer in accepted if answer not in by_b]
    assert [m.accepted for m in b.of(Events) if m.accepted] == [answer.id for answer in by_b]
    assert not [m for w in (watch_one, watch_two) for m in w.of(Events) if m.accepted]
    seen_by_a = received_events(a)
    assert max(seen_by_a) == final
    assert max(received_events(b)) == final
    assert received_events(watch_one) == received_events(watch_two), "one spectator view"
    assert max(received_events(watch_two)) == final

    await b.close()  # presence crosses nodes: B's disconnect from node two reaches A
    away = await a.until(Presence, lambda m: m.seat == "B")
    assert away.status == "away"
    await assert_stored_exactly_once_in_order(
        store, room, seen_by_a, [answer.version for answer in accepted])


async def test_kill_9_of_the_owner_during_an_aro_window_the_other_node_takes_over(
        nodes: tuple[ServerProcess, ServerProcess], store: RedisRoomStore) -> None:
    one, two = nodes
    room = await create_room(store, aro_window_s=8.0, visibility="public")
    a = await Client.connect(one.base, room.room_id, room.token_a)
    watch_one = await Client.connect(one.base, room.room_id)
    b = await Client.connect(two.base, room.room_id, room.token_b)
    watch_two = await Client.connect(two.base, room.room_id)
    for viewer in (a, b, watch_one, watch_two):
        await viewer.until(Snapshot)
    before_ms = now_ms()  # (the window opens after this)
    accepted = [await a.command(ACTIVATE), await a.command(MOVE)]
    assert all(isinstance(answer, Accepted) for answer in accepted)
    window = await opened(b)
    await opened(watch_two)  # relayed from the owner with the events

    await one.kill()
    # Node two notices the lease expire, takes the room over and sends its viewers to
    # reconnect; the viewers of the dead node reconnect through the load balancer (here:
    # to node two directly).
    assert await b.close_code() == CloseCode.ROOM_UNAVAILABLE
    assert await watch_two.close_code() == CloseCode.ROOM_UNAVAILABLE
    a2 = await Client.connect(two.base, room.room_id, room.token_a, since=a.version)
    b2 = await Client.connect(two.base, room.room_id, room.token_b, since=b.version)
    watch_one2 = await Client.connect(two.base, room.room_id, since=watch_one.version)
    watch_two2 = await Client.connect(two.base, room.room_id, since=watch_two.version)
    assert (await get_json(f"{two.base}/healthz"))["rooms"] == 1

    reopened = await opened(b2)  # with the catch-up (no events were missed)
    # The original absolute deadline, with the time nobody ran the room added (from the dead
    # owner's last stamp, no earlier than the window opened, to the takeover's load).
    assert 0 < reopened["deadline_ms"] - window["deadline_ms"] <= now_ms() - before_ms
    closing = await closed(b2, window)  # nobody declared: the new owner's clock closed it
    assert [e and e["type"] for e in closing.events] == ["aro_window_closed"]
    await a2.until(Events, lambda m: any(e and e["type"] == "aro_window_closed"
                                         for e in m.events))
    third = await a2.command(SHOOT_B)
    assert isinstance(third, Accepted), "the game goes on on the new owner"
    for viewer in (b2, watch_one2, watch_two2):
        if viewer.version < third.version:
            await viewer.until(Events, lambda m: m.first + len(m.events) - 1 >= third.version)
    assert not any(c.of(Snapshot) for c in (a2, b2, watch_one2, watch_two2)), "resumed"

    seen_by_a = received_events(a, a2)
    assert max(seen_by_a) == third.version == max(received_events(b, b2))
    assert received_events(watch_one, watch_one2) == received_events(watch_two, watch_two2)
    await assert_stored_exactly_once_in_order(
        store, room, seen_by_a, [*(answer.version for answer in accepted), third.version])


async def test_a_paused_owner_that_lost_its_lease_can_never_write(
        nodes: tuple[ServerProcess, ServerProcess], store: RedisRoomStore) -> None:
    one, two = nodes
    room = await create_room(store, aro_window_s=600.0, visibility="public")
    a = await Client.connect(one.base, room.room_id, room.token_a)  # node one owns the room
    b = await Client.connect(two.base, room.room_id, room.token_b)
    await a.until(Snapshot)
    await b.until(Snapshot)
    first = await a.command(ACTIVATE)
    assert isinstance(first, Accepted)
    await b.until(Events, lambda m: m.first + len(m.events) - 1 >= first.version)

    one.pause()  # past its lease: node two takes the room over
    assert await b.close_code() == CloseCode.ROOM_UNAVAILABLE
    b2 = await Client.connect(two.base, room.room_id, room.token_b, since=b.version)
    assert (await get_json(f"{two.base}/healthz"))["rooms"] == 1
    await a.send_command(MOVE, id="move-1")  # reaches the paused node's socket
    one.resume()
    # The stale owner resumes: its lease is gone and its fence is old, so it stops the room
    # without acknowledging anything.
    assert await a.close_code() == CloseCode.ROOM_UNAVAILABLE
    assert not [m for m in a.answers() if m.id == "move-1"]

    a2 = await Client.connect(two.base, room.room_id, room.token_a, since=a.version)
    second = await a2.command(MOVE, id="move-1")  # the client sends its pending command again
    assert isinstance(second, Accepted) and second.version > first.version
    if b2.version < second.version:
        await b2.until(Events, lambda m: m.first + len(m.events) - 1 >= second.version)
    seen_by_a = received_events(a, a2)
    assert max(seen_by_a) == second.version == max(received_events(b, b2))
    assert not a2.of(Rejected)
    await assert_stored_exactly_once_in_order(store, room, seen_by_a,
                                              [first.version, second.version])
