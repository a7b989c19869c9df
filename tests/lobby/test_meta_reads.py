"""The lobby's routes that need only a room's meta read only its meta
(``RoomStore.load_meta``): a room's page, a seat's token check and the organizer's caster
links never read its snapshot, events or answers, so a request anyone can send costs the
store one small read (on a Redis Cluster that waits for replicas, no confirmed load)."""

from __future__ import annotations

import httpx

from server.app import create_app
from server.store.interface import RoomMeta, StoredRoom
from server.store.memory import MemoryRoomStore
from testkit.serving import running_server
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import settings


class MetaOnlyStore(MemoryRoomStore):
    """Serves a room's meta; a read of the whole room fails the test."""

    def __init__(self) -> None:
        super().__init__()
        self.meta_reads = 0

    async def load_room(self, room_id: str) -> StoredRoom | None:
        raise AssertionError(f"load_room({room_id}): the route read the whole room")

    async def load_meta(self, room_id: str) -> RoomMeta | None:
        self.meta_reads += 1
        return await super().load_meta(room_id)


async def test_room_page_seat_check_and_caster_links_read_only_the_meta() -> None:
    store = MetaOnlyStore()
    config = settings(claim_on_create=False)  # (no room started: nothing else loads it)
    app = create_app(config, engine=FakeEngine(), store=store)
    async with running_server(config, app=app) as url, httpx.AsyncClient(base_url=url) as http:
        made = await http.post("/api/rooms", json={"ruleset": "n5"})
        assert made.status_code == 201, made.text
        room = made.json()["room"]
        token, organizer = made.json()["seats"]["B"]["token"], made.json()["organizer"]["token"]
        described = await http.get(f"/api/rooms/{room}")
        joined = await http.post(f"/api/rooms/{room}/join", json={"token": token})
        refused = await http.post(f"/api/rooms/{room}/join", json={"token": "x" * 43})
        missing = await http.get("/api/rooms/no-such-room")
        caster = await http.post(f"/api/rooms/{room}/casters", json={"organizer": organizer})
        listed = await http.post(f"/api/rooms/{room}/casters/list",
                                 json={"organizer": organizer})
        nonce = caster.json()["nonce"]
        withdrawn = await http.post(f"/api/rooms/{room}/casters/{nonce}/withdraw",
                                    json={"organizer": organizer})
    assert described.status_code == 200 and described.json()["room"] == room
    assert described.json()["dice_commitment"] == made.json()["dice_commitment"]
    assert joined.status_code == 200 and joined.json()["seat"] == "B"
    assert refused.status_code == 403 and refused.json()["error"] == "bad_token"
    assert missing.status_code == 404 and missing.json()["error"] == "room_not_found"
    assert caster.status_code == 201, caster.text
    assert listed.status_code == 200 and [link["nonce"] for link in listed.json()["casters"]] \
        == [nonce]
    assert withdrawn.status_code == 200 and withdrawn.json()["withdrawn_ms"] is not None
    assert store.meta_reads == 7
