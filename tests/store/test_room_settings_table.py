"""A room's table choice is part of its settings: stored with the room (in memory and in
Redis, whose meta is msgpack), read back as it was written, through a restart of Redis;
rooms stored before tables could be chosen read back with "" (the sample layout)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from protocol.codec import pack_plain
from server.rules.ruleset import Ruleset
from server.rules.table import table_catalogue
from server.store import RoomMeta, RoomSettings
from server.store.interface import RoomStore
from server.store.redis_store import RedisRoomStore, state_key
from testkit.redis_process import RedisProcess

pytestmark = pytest.mark.redis

INLINE = table_catalogue.room_choice({
    "format": "infinity-referee-table/1", "id": "kitchen-table", "title": "Kitchen table",
    "rulesets": ["codeone"], "width": 24, "depth": 32,
    "zones": {"south": {"x0": 0, "y0": 0, "x1": 24, "y1": 8},
              "north": {"x0": 0, "y0": 24, "x1": 24, "y1": 32}},
    "terrain": [{"id": "fridge", "name": "Fridge", "kind": "building",
                 "polygon": [[10, 14], [14, 14], [14, 18], [10, 18]], "height": 5}],
}, Ruleset.CODEONE)


def meta(ruleset: str, table: str | dict[str, object]) -> RoomMeta:
    settings = RoomSettings(ruleset, 30.0, "private", table=table)
    return RoomMeta(f"t{uuid.uuid4().hex[:10]}", settings, "a" * 64, "b" * 64, 1_000)


@pytest.mark.parametrize(("ruleset", "table"), [
    ("n5", "n5-night-market"), ("codeone", INLINE), ("n5", "")])
async def test_the_table_choice_is_read_back_as_it_was_stored(
        store: RoomStore, ruleset: str, table: str | dict[str, object]) -> None:
    room = meta(ruleset, table)
    await store.create_room(room, b"snap-0", None)
    stored = await store.load_room(room.room_id)
    assert stored is not None and stored.meta == room
    assert stored.meta.settings.table == table


def test_a_table_sent_whole_is_kept_as_its_document() -> None:
    assert isinstance(INLINE, dict) and INLINE["id"] == "kitchen-table"
    assert INLINE["terrain"][0]["height"] == 5.0


async def test_a_room_stored_before_tables_reads_back_on_the_sample_layout(
        redis_server: RedisProcess) -> None:
    store = RedisRoomStore.from_url(redis_server.url)
    raw = aioredis.Redis.from_url(redis_server.url)
    try:
        room = meta("n5", "n5-cargo-terminus")
        await store.create_room(room, b"snap-0", None)
        # The meta exactly as the store wrote it before settings had a table.
        await raw.hset(state_key(room.room_id), "meta", pack_plain({
            "room_id": room.room_id, "token_hash_a": "a" * 64, "token_hash_b": "b" * 64,
            "created_ms": 1_000, "dice_commitment": "",
            "settings": {"ruleset": "n5", "aro_window_s": 30.0, "visibility": "private",
                         "fixed_seed": None, "spectator_delay_s": 0.0}}))
        stored = await store.load_room(room.room_id)
        assert stored is not None and stored.meta.settings.table == ""
        assert table_catalogue.summary(stored.meta.settings.table, Ruleset.N5) == {
            "id": "sample-open", "title": "Open ground (sample)", "inline": False}
    finally:
        await raw.aclose()
        await store.close()


@pytest.mark.slow  # a redis-server of its own, restarted
async def test_the_table_survives_a_restart_of_redis(tmp_path: Path) -> None:
    server = RedisProcess(tmp_path / "redis")
    server.start()
    store = RedisRoomStore.from_url(server.url)
    try:
        rooms = [meta("codeone", INLINE), meta("n5", "n5-ashfall-refinery")]
        for room in rooms:
            await store.create_room(room, b"snap-0", None)
        await store.close()
        server.kill()
        server.start()  # same port, same directory: replays the append-only file
        store = RedisRoomStore.from_url(server.url)  # the referee started again, too
        for room in rooms:
            stored = await store.load_room(room.room_id)
            assert stored is not None and stored.meta.settings == room.settings
    finally:
        await store.close()
        server.stop()
