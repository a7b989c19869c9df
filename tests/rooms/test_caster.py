"""The caster feed (issue 20, point 2): the organizer token, caster links, and what a
caster sees -- both sides' hidden information, never sooner than max(delay, 60 s) -- over
real websockets with the rules core. Time is a fake clock (``RoomRegistry.clock``) and the
release is driven with ``Room.release_due``; a frame that must not have arrived is checked
behind a ``history`` answer (test_spectator_delay.py explains the barrier). Then the
organizer's list of its caster links and their withdrawal: refused at hello, sockets open
with a withdrawn link closed (``server.transport.caster_sessions``); the two-node case is
tests/cluster/test_caster_withdrawal.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from protocol import codec
from protocol.constants import PROTOCOL_VERSION, CloseCode, ProtocolReason
from protocol.messages import (
    Accepted,
    Error,
    Events,
    Hello,
    Measure,
    Measurement,
    Snapshot,
)
from server.app import create_app
from server.lobby.tokens import new_caster_token
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room
from server.store import MemoryRoomStore, RoomMeta, RoomSettings
from server.transport.caster_sessions import WITHDRAWN_MESSAGE, CasterSessions
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.helpers import settings
from tests.rooms.test_spectator_delay import FakeClock, history
from tests.support.skirmish import Placement, skirmish
from tests.support.windows import opened
from tests.support.withdrawn_casters import refused_as_withdrawn

GHOST = "B-t2"  # B's trooper in Hidden Deployment
PLACEMENTS: dict[str, Placement] = {
    "A-t3": (24.0, 6.0, 90.0), "A-t1": (10.0, 4.0, 90.0),
    "B-t3": (6.0, 40.0, 270.0), "B-t4": (40.0, 40.0, 270.0),
    GHOST: (30.0, 20.0, 270.0, "hidden"),
}


class Table:
    def __init__(self, base: str, registry: RoomRegistry, clock: FakeClock) -> None:
        self.base, self.registry, self.clock = base, registry, clock

    async def post(self, path: str, body: Any) -> httpx.Response:
        async with httpx.AsyncClient(base_url=self.base) as http:
            return await http.post(path, json=body)

    async def room(self, room_id: str) -> Room:
        room = await self.registry.open(room_id)
        assert isinstance(room, Room)
        return room

    async def caster_token(self, room_id: str, organizer: str) -> str:
        response = await self.post(f"/api/rooms/{room_id}/casters", {"organizer": organizer})
        assert response.status_code == 201, response.text
        token: str = response.json()["caster"]["token"]
        return token


@pytest.fixture
async def table() -> AsyncIterator[Table]:
    app = create_app(settings())
    clock = FakeClock()
    app.state.registry.clock = clock
    async with running_server(settings(), app=app) as base:
        yield Table(base, app.state.registry, clock)


async def test_the_lobby_hands_out_an_organizer_token_that_alone_makes_caster_links(
        table: Table) -> None:
    created = (await table.post("/api/rooms", {"ruleset": "n5", "spectator_delay_s": 90})).json()
    room_id, organizer = created["room"], created["organizer"]["token"]
    assert organizer not in (created["seats"]["A"]["token"], created["seats"]["B"]["token"])
    assert created["organizer"]["link"] == f"/#room={room_id}&organizer={organizer}"
    described = (await httpx.AsyncClient(base_url=table.base).get(f"/api/rooms/{room_id}")).json()
    assert organizer not in str(described)

    path = f"/api/rooms/{room_id}/casters"
    for body, status, code in (
        ({}, 400, "organizer_token_required"),
        ({"organizer": ""}, 400, "organizer_token_required"),
        ({"organizer": 7}, 400, "organizer_token_required"),
        ({"organizer": "not-it"}, 403, "bad_organizer_token"),
        ({"organizer": created["seats"]["A"]["token"]}, 403, "bad_organizer_token"),
    ):
        refused = await table.post(path, body)
        assert (refused.status_code, refused.json()["error"]) == (status, code), body
    missing = await table.post("/api/rooms/nope/casters", {"organizer": organizer})
    assert (missing.status_code, missing.json()["error"]) == (404, "room_not_found")

    made = await table.post(path, {"organizer": organizer})
    assert made.status_code == 201
    caster = made.json()
    token = caster["caster"]["token"]
    assert caster["delay_s"] == 90.0, "max(room delay, 60)"
    assert caster["caster"]["link"] == f"/#room={room_id}&token={token}"
    assert caster["caster"]["overlay_link"] == f"/overlay#room={room_id}&token={token}"
    client = await Client.connect(table.base, room_id, token)
    assert client.welcome is not None
    assert (client.welcome.role, client.welcome.delay_s) == ("caster", 90.0)


async def test_a_caster_token_not_made_with_this_rooms_organizer_token_is_refused(
        table: Table) -> None:
    one = (await table.post("/api/rooms", {"ruleset": "n5"})).json()
    other = (await table.post("/api/rooms", {"ruleset": "n5"})).json()
    token = await table.caster_token(other["room"], other["organizer"]["token"])
    nonce, mac = token.split(".")[1:]
    for forged in (token,  # another room's
                   f"c.{nonce}x.{mac}", f"c.{nonce}.{mac[:-1]}A", "c..", one["organizer"]["token"]):
        client = await Client.connect(table.base, one["room"], hello=False)
        await client.send(Hello(PROTOCOL_VERSION, one["room"], forged, None))
        error = await client.until(Error)
        assert error.code == "bad_token"
        with pytest.raises(ConnectionClosed) as closed:
            await client.next()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == CloseCode.BAD_TOKEN


def types(client: Client) -> list[str]:
    return [event["type"] for frame in client.of(Events) for event in frame.events]


async def test_a_caster_sees_both_sides_hidden_information_only_after_60_s(table: Table) -> None:
    """The spectators of this room are live (delay 0): the caster is still 60 s behind."""
    created = await table.registry.create(
        RoomSettings("n5", 600.0, "private", fixed_seed=3), skirmish(PLACEMENTS, ruleset="n5",
                                                                      seed=3))
    room_id = created.meta.room_id
    caster_token = await table.caster_token(room_id, created.organizer)
    a = await Client.connect(table.base, room_id, created.token_a)
    b = await Client.connect(table.base, room_id, created.token_b)
    spectator = await Client.connect(table.base, room_id)
    caster = await Client.connect(table.base, room_id, caster_token)
    assert caster.welcome is not None and caster.welcome.delay_s == 60.0
    spectator_view = (await spectator.until(Snapshot)).state
    caster_view = (await caster.until(Snapshot)).state
    assert GHOST not in [t["id"] for t in spectator_view["troopers"]]
    ghost = next(t for t in caster_view["troopers"] if t["id"] == GHOST)
    assert ghost["hidden"] is True, "the caster sees the trooper in Hidden Deployment"
    assert "entries" in caster_view["armies"]["B"] and "entries" in caster_view["armies"]["A"]
    assert "entries" not in spectator_view["armies"]["B"]

    assert isinstance(await a.command({"type": "activate", "trooper": "A-t3",
                                       "order": "regular"}), Accepted)
    assert isinstance(await a.command({"type": "declare_skill", "skill": {
        "type": "move", "route": [[24.0, 6.0], [24.0, 9.0]]}}), Accepted)
    await opened(b)
    assert isinstance(await b.command(
        {"type": "choose_guts_failure", "trooper": "B-t3", "fail": True}), Accepted)
    secret = b.version  # B's private choice is its latest event

    # measure reads the caster's delayed point: A-t3 still where it stood (24, 6).
    for viewer in (caster, spectator):
        await viewer.send(Measure("m", "A-t3", [24.0, 30.0]))
    late_ruler = await caster.until(Measurement)
    live_ruler = await spectator.until(Measurement)
    assert late_ruler.distance == pytest.approx(live_ruler.distance + 3.0)

    table.clock.advance(30)  # a new caster link, a reconnect: still the room as it began
    late = await Client.connect(table.base, room_id, caster_token)
    assert late.welcome is not None and late.welcome.version == 0
    assert (await late.until(Snapshot)).version == 0
    resumed = await Client.connect(table.base, room_id, caster_token, since=0)
    assert (await resumed.until(Events)).events == []
    table.clock.advance(29.999)
    (await table.room(room_id)).release_due()
    assert (await history(caster)).last == 0
    assert caster.of(Events) == [], "nothing a millisecond early"

    table.clock.advance(0.001)
    (await table.room(room_id)).release_due()
    page = await history(caster)
    assert "guts_failure_chosen" in types(caster)
    assert page.last == caster.version and [e["type"] for e in page.events] == types(caster)
    assert b.version == secret
    # The spectators never get it, live or late.
    await history(spectator)
    assert "guts_failure_chosen" not in types(spectator)
    assert "guts_failure_chosen" not in [e["type"] for e in (await history(spectator)).events]


# --- withdrawing a caster link --------------------------------------------------------


async def test_the_organizer_lists_its_caster_links_and_withdraws_one(table: Table) -> None:
    created = (await table.post("/api/rooms", {"ruleset": "n5"})).json()
    room_id, organizer = created["room"], created["organizer"]["token"]
    base = f"/api/rooms/{room_id}/casters"
    made_at = table.clock()
    first = (await table.post(base, {"organizer": organizer})).json()
    second = (await table.post(base, {"organizer": organizer})).json()
    assert first["nonce"] == first["caster"]["token"].split(".")[1]
    assert first["created_ms"] == made_at

    listed = await table.post(f"{base}/list", {"organizer": organizer})
    assert listed.status_code == 200
    assert listed.json() == {"room": room_id, "delay_s": 60.0, "casters": [
        {"nonce": made["nonce"], "created_ms": made_at, "withdrawn_ms": None,
         "caster": made["caster"]} for made in (first, second)]}, "the same links again"

    table.clock.advance(5)
    withdrawn = await table.post(f"{base}/{first['nonce']}/withdraw", {"organizer": organizer})
    assert withdrawn.status_code == 200
    assert withdrawn.json() == {"room": room_id, "already_withdrawn": False,
                                "nonce": first["nonce"], "created_ms": made_at,
                                "withdrawn_ms": made_at + 5000, "caster": None}
    table.clock.advance(5)
    again = (await table.post(f"{base}/{first['nonce']}/withdraw", {"organizer": organizer}))
    assert (again.status_code, again.json()["already_withdrawn"],
            again.json()["withdrawn_ms"]) == (200, True, made_at + 5000)
    casters = (await table.post(f"{base}/list", {"organizer": organizer})).json()["casters"]
    assert [(c["nonce"], c["withdrawn_ms"], c["caster"]) for c in casters] == [
        (first["nonce"], made_at + 5000, None), (second["nonce"], None, second["caster"])]

    await refused_as_withdrawn(table.base, room_id, first["caster"]["token"])
    kept = await Client.connect(table.base, room_id, second["caster"]["token"])
    assert kept.welcome is not None and kept.welcome.role == "caster", "only that link"


async def test_only_the_organizer_lists_or_withdraws_and_a_nonce_must_be_one(
        table: Table) -> None:
    created = (await table.post("/api/rooms", {"ruleset": "n5"})).json()
    room_id, organizer = created["room"], created["organizer"]["token"]
    nonce = (await table.post(f"/api/rooms/{room_id}/casters",
                              {"organizer": organizer})).json()["nonce"]
    for path in (f"/api/rooms/{room_id}/casters/list",
                 f"/api/rooms/{room_id}/casters/{nonce}/withdraw"):
        for body, status, code in (
            ({}, 400, "organizer_token_required"),
            ({"organizer": 7}, 400, "organizer_token_required"),
            ({"organizer": created["seats"]["B"]["token"]}, 403, "bad_organizer_token"),
        ):
            refused = await table.post(path, body)
            assert (refused.status_code, refused.json()["error"]) == (status, code), (path, body)
        missing = await table.post(path.replace(room_id, "nope"), {"organizer": organizer})
        assert (missing.status_code, missing.json()["error"]) == (404, "room_not_found")
    for bad in ("c.x.y", "a" * 65, "%20"):
        refused = await table.post(f"/api/rooms/{room_id}/casters/{bad}/withdraw",
                                   {"organizer": organizer})
        assert (refused.status_code, refused.json()["error"]) == (400, "bad_caster_link"), bad
    casters = (await table.post(f"/api/rooms/{room_id}/casters/list",
                                {"organizer": organizer})).json()["casters"]
    assert [c["withdrawn_ms"] for c in casters] == [None], "nothing refused was withdrawn"


async def test_a_caster_link_never_recorded_is_withdrawn_by_its_nonce(table: Table) -> None:
    """A tournament dashboard makes caster links without recording them: pasted into the
    organizer page, such a link is withdrawn all the same."""
    created = await table.registry.create(RoomSettings("n5", 30.0, "private"))
    room_id = created.meta.room_id
    token = new_caster_token(created.meta)
    watching = await Client.connect(table.base, room_id, token)
    assert watching.welcome is not None and watching.welcome.role == "caster"
    nonce = token.split(".")[1]
    answer = (await table.post(f"/api/rooms/{room_id}/casters/{nonce}/withdraw",
                               {"organizer": created.organizer})).json()
    assert (answer["already_withdrawn"], answer["created_ms"]) == (False, None)
    assert answer["withdrawn_ms"] == table.clock()
    await watching.until(Error, lambda e: e.code == "caster_withdrawn")
    assert await watching.close_code() == CloseCode.CASTER_WITHDRAWN
    await refused_as_withdrawn(table.base, room_id, token)


async def test_casters_connected_with_a_withdrawn_link_are_closed_at_once(
        table: Table) -> None:
    created = await table.registry.create(
        RoomSettings("n5", 600.0, "private", fixed_seed=3), skirmish(PLACEMENTS, ruleset="n5",
                                                                      seed=3))
    room_id = created.meta.room_id
    leaked = await table.caster_token(room_id, created.organizer)
    other = await table.caster_token(room_id, created.organizer)
    stream = await Client.connect(table.base, room_id, leaked)
    overlay = await Client.connect(table.base, room_id, leaked)  # the same link, twice
    kept = await Client.connect(table.base, room_id, other)
    a = await Client.connect(table.base, room_id, created.token_a)
    for viewer in (stream, overlay, kept):
        await viewer.until(Snapshot)
    nonce = leaked.split(".")[1]
    withdrawn = await table.post(f"/api/rooms/{room_id}/casters/{nonce}/withdraw",
                                 {"organizer": created.organizer})
    assert withdrawn.status_code == 200
    for viewer in (stream, overlay):
        error = await viewer.until(Error)
        assert (error.code, error.message) == ("caster_withdrawn", WITHDRAWN_MESSAGE)
        assert await viewer.close_code() == CloseCode.CASTER_WITHDRAWN
        assert viewer.frames[-1] is error, "nothing after the error but the close"
    await refused_as_withdrawn(table.base, room_id, leaked)

    # The game goes on for everyone else, the other caster's link included.
    assert isinstance(await a.command({"type": "activate", "trooper": "A-t3",
                                       "order": "regular"}), Accepted)
    table.clock.advance(60)
    (await table.room(room_id)).release_due()
    await kept.until(Events, lambda m: bool(m.events))
    assert kept.version > 0 and not kept.of(Error)


class Recorded:
    """A session stand-in: what ``CasterSessions`` sends it."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.closed: tuple[int, str] | None = None

    def deliver(self, frame: bytes) -> None:
        self.frames.append(frame)

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


def test_a_withdrawal_between_the_links_check_and_the_join_still_refuses_it() -> None:
    casters = CasterSessions()
    watch = casters.watch("room", "n1")  # the hello's check of the store is under way...
    assert casters.withdrawn("room", "n1") == 0  # ...when the withdrawal is announced
    session = Recorded()
    assert not casters.attach(watch, session), "refused although its check passed"
    assert session.frames == [] and session.closed is None, "the endpoint refuses it"
    casters.forget(watch)
    assert casters.watching("room", "n1") == 0


def test_a_withdrawal_closes_the_links_sessions_once_and_no_other() -> None:
    casters = CasterSessions()
    sessions = {key: Recorded() for key in ("n1", "n1-again", "n2", "other-room")}
    for key, room, nonce in (("n1", "room", "n1"), ("n1-again", "room", "n1"),
                             ("n2", "room", "n2"), ("other-room", "elsewhere", "n1")):
        assert casters.attach(casters.watch(room, nonce), sessions[key])
    assert casters.withdrawn("room", "n1") == 2
    assert casters.withdrawn("room", "n1") == 0, "announced twice (its own bus echo): once"
    for key in ("n1", "n1-again"):
        session = sessions[key]
        assert session.closed == (CloseCode.CASTER_WITHDRAWN, WITHDRAWN_MESSAGE)
        [frame] = session.frames
        error = codec.decode_server(frame)
        assert isinstance(error, Error) and error.code == ProtocolReason.CASTER_WITHDRAWN
    for key in ("n2", "other-room"):
        assert sessions[key].closed is None and sessions[key].frames == []


async def test_a_withdrawal_whose_announcement_was_missed_is_closed_by_a_recheck() -> None:
    """Stored, never announced here (a bus connection that dropped, a node that died between
    storing and announcing): the next recheck closes the link's sockets, and only those."""
    store = MemoryRoomStore()
    meta = RoomMeta("room", RoomSettings("n5", 30.0, "private"), "a" * 64, "b" * 64, 1,
                    organizer_hash="c" * 64)
    await store.create_room(meta, b"snap", None)
    for nonce in ("missed", "kept"):
        assert await store.record_caster_link("room", nonce, 1) == "recorded"
    casters = CasterSessions()
    missed, kept, elsewhere = Recorded(), Recorded(), Recorded()
    assert casters.attach(casters.watch("room", "missed"), missed)
    assert casters.attach(casters.watch("room", "kept"), kept)
    assert casters.attach(casters.watch("gone-room", "missed"), elsewhere)
    assert await casters.recheck(store) == 0, "nothing withdrawn yet"

    await store.withdraw_caster_link("room", "missed", 2)  # no announce
    assert missed.closed is None
    assert await casters.recheck(store) == 1
    assert missed.closed == (CloseCode.CASTER_WITHDRAWN, WITHDRAWN_MESSAGE)
    assert kept.closed is None and elsewhere.closed is None
    assert await casters.recheck(store) == 0, "closed once"
