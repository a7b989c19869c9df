"""The server the browser tests drive: the real app (rules core, in-memory store, the
browser client at /) plus one test-only route that creates a room from a scenario.

``POST /test/scenario`` with ``{"placements": {"A-t5": [x, y, facing], ...},
"aro_window_s": s, "seed": n, "ruleset": "codeone"|"n5", "dice": [faces]}`` answers like the
lobby (seat links, spectator link): the game starts in the first Orders Phase with the
troopers where the test wants them (``tests.support.skirmish``: the ruleset's sample lists,
or ``"armies": {"A": "orrery-veil"}``: a shipped list of the test's choice per side;
``dice``: the next faces rolled, then the seed's), so browser tests play real orders without
depending on deployment clicks; ``"profile_fields": {"A-t7": {"berserk": true}}`` changes those
troopers' profiles (skills no shipped list carries yet); ``"deployment_step": 4`` leaves the
game in that deployment step (the steps before it ended), the troopers not placed still to
deploy by clicks; with ``"terrain": [piece, ...]`` the table's terrain is the
test's own (``tests.support.scenarios.build_state``, the rules scenarios' format), and so are
its Special Terrain areas with ``"special_terrain": [area, ...]``; with ``"mission": id``
(a shipped mission of the ruleset, or a whole mission document) the game is played on that
mission (docs/missions.md), and with ``"classified": {"A": [card, ...], "B": [...]}`` each side
holds those Classified Objectives (deck card ids) as if it had drawn them. The route exists only in this test process.

``POST /test/army_code`` with ``{"faction": 901, "slug": "lantern-accord", "name": "...",
"points": 150, "groups": [[[unit, profile_group, option], ...], ...]}`` answers
``{"code": "..."}``: an army code (N5 layout) of those ids, written by the project's own
encoder (``testkit.army_codes``), for the browser tests to paste (the ids are the invented ones of
``testkit/army_data``, which this server reads when ``REFEREE_ARMY_DATA`` names it).

``POST /test/storage`` with ``{"down": true}`` makes the store refuse every room's writes,
appends and deadlines (``StorageUnavailable``: nothing stored, as while a Redis Cluster
fails over) until ``{"down": false}``.

Its rooms' dice come from ``seed``: test rooms, which every viewer is told about
(``fixed_dice``). This server also lets the lobby take a ``seed``
(REFEREE_ALLOW_FIXED_SEED=1), as the browser tests do for a whole game from army selection.

Run: ``python -m tests.browser.scenario_server``; it prints ``PORT <n>`` once it listens.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from dataclasses import replace
from typing import Any

import uvicorn
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.app import create_app
from server.config import Settings
from server.rooms.room import now_ms
from server.rules import engine
from server.rules.ids import Side, TrooperId
from server.rules.missions import mission_catalogue
from server.rules.state import ClassifiedCard
from server.store import MemoryRoomStore, RoomSettings, StorageUnavailable
from server.transport.uvicorn_options import websocket_options
from testkit.army_codes import army_code_text
from tests.support.scenarios import build_state
from tests.support.skirmish import skirmish


async def create_scenario(request: Request) -> Response:
    body: dict[str, Any] = await request.json()
    placements = {k: tuple(v) for k, v in body["placements"].items()}
    ruleset = str(body.get("ruleset", "codeone"))
    room_settings = RoomSettings(ruleset, float(body.get("aro_window_s", 30)), "public",
                                 fixed_seed=int(body.get("seed", 1)),
                                 clock_s=int(body.get("clock_s", 0)))
    if "terrain" in body or "special_terrain" in body:  # the test's own table, as a rules
        # scenario's setup: terrain pieces and Special Terrain areas
        state = build_state({"ruleset": ruleset, "seed": int(body.get("seed", 1)),
                             **{key: body[key] for key in ("terrain", "special_terrain")
                                if key in body},
                             "placements": body["placements"],
                             "dice": [int(d) for d in body.get("dice", ())]})
    else:
        state = skirmish(placements, ruleset=ruleset, seed=int(body.get("seed", 1)),
                         dice=tuple(int(d) for d in body.get("dice", ())),
                         armies={Side(side): army for side, army in body.get("armies", {}).items()},
                         deployment_step=body.get("deployment_step"))
    if body.get("mission"):  # a game on a mission, its OP scored from the game
        state = replace(state, mission=mission_catalogue.choose(body["mission"], ruleset))
    if body.get("classified"):  # the cards each side holds, chosen by the test instead of drawn
        state = replace(state, classified={Side(side): tuple(ClassifiedCard(str(card)) for card in cards)
                                           for side, cards in body["classified"].items()})
    for trooper_id, kinds in body.get("fireteam_able", {}).items():
        # The Fireteam types these troopers' profiles list (the shipped lists have none yet).
        trooper = state.trooper(TrooperId(trooper_id))
        profile = replace(trooper.profile, **{f"fireteam_{kind}": True for kind in kinds})
        state = state.with_trooper(replace(trooper, entry=replace(trooper.entry, profile=profile)))
    for trooper_id, fields in body.get("profile_fields", {}).items():
        # Skills the shipped lists do not carry yet (issue 36: {"berserk": true, "berserk_mod": 3}).
        trooper = state.trooper(TrooperId(trooper_id))
        profile = replace(trooper.profile, **fields)
        state = state.with_trooper(replace(trooper, entry=replace(trooper.entry, profile=profile)))
    if "clock_a_s" in body:  # A's clock starts with less time than B's (a time-out soon)
        state = engine.start_clocks(state, room_settings.clock_s * 1000, now_ms())
        assert state.clocks is not None
        state = replace(state, clocks=replace(state.clocks, remaining={
            **state.clocks.remaining, Side.A: int(body["clock_a_s"] * 1000)}))
    created = await request.app.state.registry.create(room_settings, state)
    room = created.meta.room_id
    return JSONResponse({
        "room": room,
        "seats": {side: {"link": f"/#room={room}&token={token}"}
                  for side, token in (("A", created.token_a), ("B", created.token_b))},
        "spectator_link": f"/#room={room}",
        "organizer": {"token": created.organizer,
                      "link": f"/#room={room}&organizer={created.organizer}"},
    }, status_code=201)


async def army_code(request: Request) -> Response:
    body: dict[str, Any] = await request.json()
    groups = [[(int(u), int(g), int(o)) for u, g, o in members] for members in body["groups"]]
    return JSONResponse({"code": army_code_text(int(body["faction"]), groups, points=int(body["points"]),
                                                name=str(body["name"]), slug=str(body["slug"]))})


class OutageStore(MemoryRoomStore):
    """The in-memory store, whose room writes a test can refuse for a while
    (``/test/storage``)."""

    down = False

    async def append(self, room_id: str, **fields: Any) -> int:
        if self.down:
            raise StorageUnavailable("the test took the storage down")
        return await super().append(room_id, **fields)

    async def set_deadlines(self, room_id: str, **fields: Any) -> None:
        if self.down:
            raise StorageUnavailable("the test took the storage down")
        await super().set_deadlines(room_id, **fields)


async def storage(request: Request) -> Response:
    store: OutageStore = request.app.state.outage_store
    store.down = bool((await request.json())["down"])
    return JSONResponse({"down": store.down})


async def main() -> None:
    # A test server: the lobby accepts a ``seed`` (such rooms say fixed_dice to everyone).
    os.environ.setdefault("REFEREE_ALLOW_FIXED_SEED", "1")
    # Every player and organizer of the browser tests is at 127.0.0.1: no per-address
    # limits (tests/tournaments/test_registration_limits.py and test_round_limits.py
    # test them).
    os.environ.setdefault("REFEREE_CLIENT_REGISTRATION_BURST", "0")
    os.environ.setdefault("REFEREE_REGISTRATIONS_PER_ADDRESS", "0")
    os.environ.setdefault("REFEREE_CLIENT_TOURNAMENT_BURST", "0")
    os.environ.setdefault("REFEREE_CLIENT_ROOM_BURST", "0")  # rounds' rooms count too
    settings = Settings.from_env(None, freeze_gc=False)
    store = OutageStore()
    app = create_app(settings, store=store)
    app.state.outage_store = store
    app.router.routes.insert(0, Route("/test/scenario", create_scenario, methods=["POST"]))
    app.router.routes.insert(0, Route("/test/army_code", army_code, methods=["POST"]))
    app.router.routes.insert(0, Route("/test/storage", storage, methods=["POST"]))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    config = uvicorn.Config(app, lifespan="on", log_level="warning",
                            **websocket_options(settings))  # type: ignore[arg-type]
    server = uvicorn.Server(config)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    await server.serve(sockets=[sock])


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
