"""A finished game's record and replay serve the events up to the version their load of the
room returned, never one that landed after it (``server.store.clipped_reads``): on a Redis
Cluster only the load is confirmed on a replica, so an event read past it might be taken
back by a failover."""

from __future__ import annotations

from functools import partial
from typing import Any

from protocol.codec import pack_plain
from tests.doubles.lands_after_load import LandsAfterLoad
from tests.replay.test_replay_routes import ENTROPY, STRANGER, Server, command, serve


async def armies_chosen(server: Server) -> tuple[str, dict[str, Any]]:
    room_id, seats = await server.room()
    await command(seats, "A", {"type": "choose_army", "army": "helion-c1-patrol",
                               "entropy": ENTROPY["A"]})
    await command(seats, "B", {"type": "choose_army", "army": "vesper-c1-cell",
                               "entropy": ENTROPY["B"]})
    return room_id, seats


async def test_an_end_that_lands_after_the_load_is_not_published_until_a_load_sees_it(
) -> None:
    """The load saw a game in progress; its end landed right after: refused as not over
    (not published from an end no replica may have), served once a load sees it."""
    store = LandsAfterLoad()
    async for server in serve(store):
        room_id, seats = await armies_chosen(server)
        store.after_next_load = partial(command, seats, "B", {"type": "concede"})
        early = await server.http.get(f"/api/rooms/{room_id}/record")
        ended = await server.http.get(f"/api/rooms/{room_id}/record")
        for seat in seats.values():
            await seat.close()
    assert early.status_code == 409, early.text
    assert early.json()["error"] == "game_not_over"
    assert ended.status_code == 200, ended.text
    assert ended.json()["events"][-1]["event"]["type"] == "game_ended"


async def finished_with_a_landing(server: Server, store: LandsAfterLoad) -> tuple[str, int]:
    """A finished game whose next load is followed by an event landing (a writer that
    took the room over: a new fence), and the version that load returns."""
    room_id, seats = await armies_chosen(server)
    await command(seats, "B", {"type": "concede"})
    for seat in seats.values():
        await seat.close()
    stored = await store.load_room(room_id)
    assert stored is not None

    async def lands() -> None:
        fence = await store.claim_room(room_id, "another-node")
        assert fence is not None
        await store.append(room_id, fence=fence, expected_version=stored.version,
                           events=[pack_plain(STRANGER)], snapshot=None, deadlines=(),
                           listing=None, committed_ms=1)
    store.after_next_load = lands
    return room_id, stored.version


async def test_an_event_that_lands_after_the_load_is_not_in_the_record_or_the_replay(
) -> None:
    store = LandsAfterLoad()
    async for server in serve(store):
        room_id, loaded = await finished_with_a_landing(server, store)
        record = await server.http.get(f"/api/rooms/{room_id}/record")
        assert len(await store.events_since(room_id, 0) or ()) == loaded + 1  # it landed
        other_id, other_loaded = await finished_with_a_landing(server, store)
        replay = await server.http.get(f"/api/rooms/{other_id}/replay?view=A")
        assert len(await store.events_since(other_id, 0) or ()) == other_loaded + 1
    assert record.status_code == 200, record.text
    assert len(record.json()["events"]) == loaded
    assert record.json()["events"][-1]["event"]["type"] == "game_ended"
    assert replay.status_code == 200, replay.text
    assert replay.json()["steps"][-1]["type"] == "game_ended"
