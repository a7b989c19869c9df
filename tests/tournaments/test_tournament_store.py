"""The tournament log's contract, on the memory store and on a real redis-server: appends
are fenced by the expected version, an action id is applied once, a creation's action id
finds its tournament again, and (Redis) the log survives a kill -9 of Redis."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from server.store.redis_errors import StorageUnavailable
from server.store.redis_store import connect
from server.store.tournament_store import RedisTournamentStore, TournamentStore
from testkit.redis_process import RedisProcess


async def test_an_append_lands_only_at_the_expected_version_and_once_per_action_id(
        tournament_store: TournamentStore) -> None:
    store = tournament_store
    assert await store.load("t1") is None
    first = await store.append("t1", expected_version=0, action_id="create-1",
                               entry={"type": "created", "n": 1})
    assert (first.status, first.version) == ("appended", 1)
    stale = await store.append("t1", expected_version=0, action_id="other",
                               entry={"type": "x"})
    assert (stale.status, stale.version) == ("conflict", 1)
    second = await store.append("t1", expected_version=1, action_id="act-2",
                                entry={"type": "drop", "player": "p1"})
    assert (second.status, second.version) == ("appended", 2)
    again = await store.append("t1", expected_version=2, action_id="act-2",
                               entry={"type": "drop", "player": "p1"})
    assert (again.status, again.version) == ("duplicate", 2), "not applied twice"
    assert await store.load("t1") == [{"type": "created", "n": 1},
                                      {"type": "drop", "player": "p1"}]
    assert await store.load("t2") is None, "tournaments do not share a log"


async def test_a_creation_claims_its_id_once_and_public_lists_newest_first(
        tournament_store: TournamentStore) -> None:
    store = tournament_store
    assert await store.claim_creation("create-action-x", "tid-a") == "tid-a"
    assert await store.claim_creation("create-action-x", "tid-b") == "tid-a"
    assert await store.claim_creation("create-action-y", "tid-b") == "tid-b"
    # Newer than any tournament another test published on the session's Redis (created now):
    # the public list is shared, and only its newest entries are listed.
    future_ms = 2**52
    old, new = f"old-{uuid.uuid4().hex}", f"new-{uuid.uuid4().hex}"
    await store.publish(old, future_ms)
    await store.publish(new, future_ms + 1_000)
    assert list(await store.public(2)) == [new, old]
    assert len(await store.public(1)) == 1


@pytest.mark.slow  # kill drill
@pytest.mark.redis
async def test_the_log_survives_a_kill_9_of_redis(tmp_path: Path) -> None:
    server = RedisProcess(tmp_path / "redis")
    server.start()
    client = connect(server.url)
    store = RedisTournamentStore(client)
    try:
        for version in range(5):
            done = await store.append("t", expected_version=version, action_id=f"a-{version}",
                                      entry={"n": version})
            assert done.status == "appended"
        server.kill()
        with pytest.raises(StorageUnavailable):
            await store.load("t")
        server.start()
        assert await store.load("t") == [{"n": n} for n in range(5)]
        # The scripts are gone with the restart: the next append loads them again.
        assert (await store.append("t", expected_version=5, action_id="a-5",
                                   entry={"n": 5})).status == "appended"
        assert (await store.append("t", expected_version=6, action_id="a-0",
                                   entry={"n": 0})).status == "duplicate"
    finally:
        await client.aclose()
        server.stop()


async def test_room_labels_are_stored_replaced_and_read_in_order(
        tournament_store: TournamentStore) -> None:
    store = tournament_store
    assert await store.room_labels([]) == []
    await store.label_rooms({"r1": {"name": "Winter Cup", "round": 1, "table": 1},
                             "r2": {"name": "Winter Cup", "round": 1, "table": 2}})
    await store.label_rooms({"r2": {"name": "Winter Cup", "round": 1, "table": 3}})
    await store.label_rooms({})
    assert await store.room_labels(["r2", "none", "r1"]) == [
        {"name": "Winter Cup", "round": 1, "table": 3}, None,
        {"name": "Winter Cup", "round": 1, "table": 1}]
