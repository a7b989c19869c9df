"""``measure`` over real websockets: the server's geometry answers a seat and a spectator, a
trooper the viewer may not know of is answered byte for byte as an unknown id, bad input
gets a ``rejected`` with a stable code, and measuring counts against the rate limit."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
from starlette.applications import Starlette

from protocol import codec
from protocol.constants import CloseCode
from protocol.messages import Error, Measure, Measurement, Rejected, Snapshot
from server.app import create_app
from server.rules.table.silhouettes import MM_PER_INCH
from server.rules.table.terrain import Table
from server.store import RoomSettings
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.helpers import settings
from tests.support.skirmish import Placement, skirmish

S2 = 25.0 / MM_PER_INCH / 2  # radius of a Silhouette 2 base, inches
OFFICER, SCOUT, GHOST, ENFORCER = "A-t1", "A-t3", "B-t2", "B-t3"
OPEN: dict[str, Placement] = {
    OFFICER: (10.0, 4.0, 90.0),  # Warden Officer, S2, facing +y
    SCOUT: (30.0, 4.0, 90.0),  # Pathfinder Scout: Camouflage, a marker
    ENFORCER: (40.0, 40.0, 270.0),
}
_ids = itertools.count(1)


@dataclass
class Table3:
    """A room's two seats and a spectator."""

    a: Client
    b: Client
    spectator: Client


class Server:
    def __init__(self, base: str, app: Starlette) -> None:
        self.base, self.app = base, app

    async def room(self, placements: dict[str, Placement]) -> Table3:
        """An N5 room in its first Orders Phase on a bare 48" table."""
        state = replace(skirmish(placements, ruleset="n5", seed=3), table=Table(48.0, 48.0))
        created = await self.app.state.registry.create(
            RoomSettings("n5", 600.0, "private", fixed_seed=3), state)
        room = created.meta.room_id
        viewers = Table3(await Client.connect(self.base, room, created.token_a),
                         await Client.connect(self.base, room, created.token_b),
                         await Client.connect(self.base, room))
        for viewer in (viewers.a, viewers.b, viewers.spectator):
            await viewer.until(Snapshot)
        return viewers


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    app_settings = settings()
    app = create_app(app_settings)
    async with running_server(app_settings, app=app) as base:
        yield Server(base, app)


async def ask(viewer: Client, origin: str | list[float], to: list[float],
              silhouette: int | None = None, *, id: str | None = None) -> Measurement | Rejected:
    request_id = id or f"m{next(_ids)}"
    await viewer.send(Measure(request_id, origin, to, silhouette))
    return await answer(viewer, request_id)


async def answer(viewer: Client, request_id: str) -> Measurement | Rejected:
    while True:
        message = await viewer.next()
        if isinstance(message, Measurement | Rejected) and message.id == request_id:
            return message


async def test_a_seat_measures_from_its_trooper_with_the_servers_geometry(server: Server) -> None:
    viewers = await server.room(OPEN)
    measured = await ask(viewers.a, OFFICER, [10, 20])
    assert isinstance(measured, Measurement)
    assert (measured.from_, measured.to) == (OFFICER, [10, 20])
    assert measured.distance == pytest.approx(16.0 - 2 * S2)  # base to base, 15.016"
    assert (measured.silhouette, measured.line_of_fire, measured.in_front_arc) == (2, True, True)
    assert measured.weapons == [
        {"weapon": "breacher_rifle", "name": "Breacher Rifle (Shock)", "mod": 3},
        {"weapon": "sidearm", "name": "Sidearm", "mod": 0},
        {"weapon": "stunner", "name": "Stunner (Stun)", "mod": 0},
        {"weapon": "combat_knife", "name": "Combat Knife (Shock)", "mod": None},
    ]
    behind = await ask(viewers.a, OFFICER, [10, 1.0], 8)
    assert isinstance(behind, Measurement)
    assert (behind.silhouette, behind.line_of_fire, behind.in_front_arc) == (8, False, False)
    points = await ask(viewers.spectator, [0, 0], [3, 4])
    assert isinstance(points, Measurement)
    assert (points.distance, points.line_of_fire, points.weapons) == (5.0, None, None)


async def test_an_enemy_marker_is_measured_where_it_stands_without_its_profile(
        server: Server) -> None:
    viewers = await server.room(OPEN)
    for viewer in (viewers.b, viewers.spectator):
        seen = await ask(viewer, SCOUT, [30, 1])
        assert isinstance(seen, Measurement)
        assert seen.weapons is None and seen.in_front_arc is True  # all-round vision
        assert seen.distance == pytest.approx(3.0 - 2 * S2)
    own = await ask(viewers.a, SCOUT, [30, 1])
    assert isinstance(own, Measurement) and own.weapons and own.weapons[0]["weapon"] == "line_rifle"


async def test_a_hidden_trooper_is_answered_byte_for_byte_as_an_unknown_id(
        server: Server) -> None:
    """One room has B's Ghost hidden in Deployment, the other not at all: A's and the
    spectator's answers are the same frames; its owner measures from it."""
    hidden = await server.room({**OPEN, GHOST: (30.0, 20.0, 270.0, "hidden")})
    absent = await server.room(OPEN)
    for name in ("a", "spectator"):
        frames = []
        for viewers in (hidden, absent):
            viewer = getattr(viewers, name)
            refused = await ask(viewer, GHOST, [30, 10], id=f"same-{name}")
            assert isinstance(refused, Rejected)
            assert (refused.code, refused.message) == ("unknown_trooper",
                                                      f"There is no trooper {GHOST}.")
            frames.append(viewer.raw[-1])
        assert frames[0] == frames[1]
        nobody = await ask(getattr(hidden, name), "B-nobody", [30, 10])
        assert isinstance(nobody, Rejected)
        assert (nobody.code, nobody.message) == ("unknown_trooper", "There is no trooper B-nobody.")
    owner = await ask(hidden.b, GHOST, [30, 10])
    assert isinstance(owner, Measurement) and owner.line_of_fire is True
    assert owner.weapons is not None and owner.weapons[0]["weapon"] == "lance_rifle"


@pytest.mark.parametrize(("request_fields", "code"), [
    ({"from": OFFICER, "to": [49, 10]}, "bad_position"),  # off the 48" table
    ({"from": [10, -1], "to": [10, 10]}, "bad_position"),
    ({"from": OFFICER, "to": [10, 20], "silhouette": 11}, "bad_target"),
    ({"from": "A-t2", "to": [10, 20]}, "trooper_not_on_table"),  # its own, not deployed
    ({"from": OFFICER, "to": [10]}, "bad_message"),
    ({"from": OFFICER, "to": [1, 2, 3]}, "bad_message"),
    ({"from": OFFICER, "to": "here"}, "bad_message"),
    ({"from": 7, "to": [10, 20]}, "bad_message"),
    ({"from": OFFICER, "to": [10, 20], "silhouette": 2.5}, "bad_message"),
    ({"from": OFFICER, "to": [10, 20], "range": 3}, "bad_message"),
    ({"to": [10, 20]}, "bad_message"),
])
async def test_bad_input_is_rejected_with_a_stable_code_and_the_room_goes_on(
        server: Server, request_fields: dict[str, Any], code: str) -> None:
    viewers = await server.room(OPEN)
    await viewers.a.send_raw(codec.pack_plain({"type": "measure", "id": "bad", **request_fields}))
    refused = await answer(viewers.a, "bad")
    assert isinstance(refused, Rejected) and refused.code == code, refused
    assert refused.message
    still = await ask(viewers.a, OFFICER, [10, 20])
    assert isinstance(still, Measurement)


async def test_a_measure_without_a_readable_id_gets_an_error(server: Server) -> None:
    viewers = await server.room(OPEN)
    await viewers.spectator.send_raw(codec.pack_plain(
        {"type": "measure", "from": OFFICER, "to": [10, 20]}))
    error = await viewers.spectator.until(Error)
    assert error.code == "bad_message" and "'id'" in error.message


async def test_measuring_counts_against_the_rate_limit() -> None:
    app_settings = settings(rate_burst=3, rate_per_s=0.0001)
    app = create_app(app_settings)
    async with running_server(app_settings, app=app) as base:
        viewers = await Server(base, app).room(OPEN)
        for _ in range(3):
            assert isinstance(await ask(viewers.spectator, OFFICER, [10, 20]), Measurement)
        await viewers.spectator.send(Measure("over", OFFICER, [10, 20]))
        assert await viewers.spectator.close_code() == CloseCode.RATE_LIMITED
        assert isinstance(await ask(viewers.a, OFFICER, [10, 20]), Measurement)  # others go on
