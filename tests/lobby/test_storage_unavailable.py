"""A lobby request the store cannot serve now (Redis down or failing over; on a cluster, a
room's shard with no replica to confirm a load on) is answered 503 ``storage_unavailable``
with ``Retry-After`` and a message a player understands, not a bare 500, and the store's own
words (Redis node addresses) stay in the log (server/lobby/http_errors.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx

from server.app import create_app
from server.store import StorageUnavailable
from server.store.interface import Listing, RoomMeta, StoredRoom
from server.store.memory import MemoryRoomStore
from testkit.serving import running_server
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import settings

DETAIL = "load on 10.0.0.7:7001: 0 of 1 replicas confirmed it within 1000 ms"


class StoreWithoutReplica(MemoryRoomStore):
    """Rooms are made, but reading them back is refused, as on a shard without a replica."""

    async def load_room(self, room_id: str) -> StoredRoom | None:
        raise StorageUnavailable(DETAIL)

    async def load_meta(self, room_id: str) -> RoomMeta | None:
        raise StorageUnavailable(DETAIL)

    async def public_rooms(self, limit: int) -> Sequence[Listing]:
        raise StorageUnavailable(DETAIL)


async def test_a_room_the_store_cannot_read_now_is_answered_try_again(caplog: Any) -> None:
    app = create_app(settings(), engine=FakeEngine(), store=StoreWithoutReplica())
    async with running_server(settings(), app=app) as url, httpx.AsyncClient(base_url=url) as http:
        made = await http.post("/api/rooms", json={"ruleset": "n5"})
        assert made.status_code == 201
        room, token = made.json()["room"], made.json()["seats"]["A"]["token"]
        answers = [await http.get(f"/api/rooms/{room}"),
                   await http.post(f"/api/rooms/{room}/join", json={"token": token}),
                   await http.get("/api/rooms")]
    for answer in answers:
        assert answer.status_code == 503, answer.text
        assert answer.headers["retry-after"] == "2"
        assert answer.json()["error"] == "storage_unavailable"
        assert "try again" in answer.json()["message"]
        assert "10.0.0.7" not in answer.text
    assert DETAIL in caplog.text
