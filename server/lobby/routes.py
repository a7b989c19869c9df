"""The HTTP lobby: create a room, check a seat token, describe a room, list public rooms
(caster links: ``server.lobby.caster_routes``).

JSON in and out; bodies are read and errors answered as ``server.lobby.http`` says (4xx
``{"error": code, "message": text}``; a body is one JSON object of at most 64 KiB). Links
put the room id and seat token in the URL fragment, which browsers never send to servers.
Room creation is limited per client address and per node (``server.lobby.admission``).
"""

from __future__ import annotations

import math
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from protocol.constants import WS_PATH
from server.config import Settings
from server.lobby.admission import admission_for, client_address
from server.lobby.armies import routes as army_routes
from server.lobby.http import BadRequest, error_response, read_json_object, refusal_response
from server.lobby.record import routes as record_routes
from server.lobby.reserve import credential_key
from server.lobby.tables import routes as table_routes
from server.lobby.tokens import seat_for_token
from server.rooms.registry import RoomRegistry
from server.rules.ruleset import Ruleset
from server.rules.table import table_catalogue
from server.rules.table.tables import TableError
from server.store import RoomMeta, RoomSettings
from server.tournaments.app_service import tournaments_of
from server.tournaments.lobby_labels import lobby_fields

RULESETS = ("n5", "codeone")
PUBLIC_LIST_LIMIT = 200
MAX_CLOCK_S = 4 * 3600
MAX_ARO_MIN_OPEN_S = 30.0
"""The longest minimum a room holds its ARO windows open (``aro_min_open_s``)."""
TOURNAMENT_ARO_MIN_OPEN_S = 3.0
"""Tournament rooms hold ARO windows uniform by default (docs/fair-play.md): long enough to
pass or declare with a hidden trooper unseen, short enough to cost at most 6 s an Order."""
"""The longest chess clock a room takes per player (ITS plays 1:15 each: 4500 s)."""


def parse_room_settings(body: dict[str, Any], settings: Settings,
                        default_aro_min_open_s: float = 0.0) -> RoomSettings:
    """Validate a create-room request; unknown fields are refused so typos are noticed.
    ``default_aro_min_open_s``: uniform ARO windows when the body does not say (lobby rooms:
    off; tournament rooms: ``TOURNAMENT_ARO_MIN_OPEN_S``)."""
    known = {"ruleset", "aro_window_s", "visibility", "spectator_delay_s", "seed", "table",
             "clock_s", "aro_min_open_s"}
    unknown = sorted(set(body) - known)
    if unknown:
        raise BadRequest("bad_field", f"unknown fields {unknown}")
    ruleset = body.get("ruleset", "n5")
    if ruleset not in RULESETS:
        raise BadRequest("bad_field", f"ruleset must be one of {list(RULESETS)}")
    window = _number(body.get("aro_window_s", settings.default_aro_window_s), "aro_window_s")
    if not settings.min_aro_window_s <= window <= settings.max_aro_window_s:
        raise BadRequest("bad_field", f"aro_window_s must be within "
                         f"{settings.min_aro_window_s}..{settings.max_aro_window_s}")
    visibility = body.get("visibility", "public")
    if visibility not in ("public", "private"):
        raise BadRequest("bad_field", "visibility must be public or private")
    delay = _number(body.get("spectator_delay_s", 0), "spectator_delay_s")
    if not 0 <= delay <= 3600:
        raise BadRequest("bad_field", "spectator_delay_s must be within 0..3600")
    clock = body.get("clock_s", 0)
    if isinstance(clock, bool) or not isinstance(clock, int) or not 0 <= clock <= MAX_CLOCK_S:
        raise BadRequest("bad_field", f"clock_s must be a whole number of seconds within "
                         f"0..{MAX_CLOCK_S} (0: no chess clocks)")
    # (a default longer than a short window: the whole window)
    min_open = _number(body.get("aro_min_open_s", min(default_aro_min_open_s, window)),
                       "aro_min_open_s")
    if not 0 <= min_open <= min(MAX_ARO_MIN_OPEN_S, window):
        raise BadRequest("bad_field", f"aro_min_open_s must be within 0..{MAX_ARO_MIN_OPEN_S:g} "
                         "and at most aro_window_s (0: ARO windows are not held)")
    return RoomSettings(ruleset, window, visibility, delay, _fixed_seed(body, settings),
                        _table(body, Ruleset(ruleset)), clock, aro_min_open_s=min_open)


def _table(body: dict[str, Any], ruleset: Ruleset) -> str | dict[str, Any]:
    """A shipped layout's id or a whole table document (docs/tables.md); without one, the
    ruleset's first tournament layout."""
    if "table" not in body:
        return table_catalogue.default_table(ruleset)
    chosen = body["table"]
    shipped = {item.layout.id for item in table_catalogue.shipped()}
    if isinstance(chosen, str) and chosen and chosen not in shipped:
        raise BadRequest("unknown_table", f"there is no table '{chosen[:60]}'; GET /api/tables "
                         "lists them")
    try:
        return table_catalogue.room_choice(chosen, ruleset)
    except TableError as error:
        raise BadRequest("bad_table", f"table: {error}") from None


def _fixed_seed(body: dict[str, Any], settings: Settings) -> int | None:
    """A ``seed`` fixes every die of the room, so whoever chose it knows them: only a server
    run for testing (REFEREE_ALLOW_FIXED_SEED=1) accepts one, and the room says so."""
    if "seed" not in body:
        return None
    if not settings.allow_fixed_seed:
        raise BadRequest("bad_field", "seed is not accepted: a room's dice come from a secret "
                         "nobody chooses (only servers run for testing accept a fixed seed)")
    seed = body["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise BadRequest("bad_field", "seed must be a whole number in 0..2^63-1")
    return seed


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadRequest("bad_field", f"{name} must be a number")
    try:
        number = float(value)  # OverflowError: a JSON integer beyond a double (10**309)
    except OverflowError:
        raise BadRequest("bad_field", f"{name} must be a number") from None
    if not math.isfinite(number):
        raise BadRequest("bad_field", f"{name} must be a number")
    return number


async def create_room(request: Request) -> Response:
    registry: RoomRegistry = request.app.state.registry
    settings: Settings = request.app.state.settings
    admission = admission_for(request.app.state, settings)
    peer = request.client.host if request.client is not None else None
    refused = admission.admit(client_address(peer, request.headers, admission.trusted))
    if refused is not None and refused.status != 503:
        return refusal_response(refused)  # this address's own limits: no credential lifts them
    try:
        body = await read_json_object(request)
        credential = body.pop("credential", None)
        if refused is not None:  # the node's limits: a known client may use the reserve
            key = await credential_key(registry, tournaments_of(request), credential)
            if key is None:
                return refusal_response(refused)
            reserved = admission.admit_reserved(key)
            if reserved is not None:
                return refusal_response(reserved)
        room_settings = parse_room_settings(body, settings)
    except BadRequest as error:
        return error_response(error)
    created = await registry.create(room_settings)
    room_id = created.meta.room_id
    admission.created(room_id)
    return JSONResponse({
        "room": room_id,
        "settings": _settings_json(room_settings),
        **_dice_json(created.meta),
        "seats": {
            "A": {"token": created.token_a, "link": f"/#room={room_id}&token={created.token_a}"},
            "B": {"token": created.token_b, "link": f"/#room={room_id}&token={created.token_b}"},
        },
        "organizer": {"token": created.organizer,
                      "link": f"/#room={room_id}&organizer={created.organizer}"},
        "spectator_link": f"/#room={room_id}",
        "ws_path": WS_PATH,
    }, status_code=201)


async def describe_room(request: Request) -> Response:
    registry: RoomRegistry = request.app.state.registry
    stored = await registry.store.load_room(request.path_params["room_id"])
    if stored is None:
        return error_response(BadRequest("room_not_found", "no such room", 404))
    return JSONResponse({
        "room": stored.meta.room_id,
        "settings": _settings_json(stored.meta.settings),
        **_dice_json(stored.meta),
        "spectator_link": f"/#room={stored.meta.room_id}",
        "ws_path": WS_PATH,
    })


async def join_seat(request: Request) -> Response:
    """Check a seat token: answers which seat it opens (the game itself is on the websocket)."""
    registry: RoomRegistry = request.app.state.registry
    try:
        body = await read_json_object(request)
        token = body.get("token")
        if not isinstance(token, str) or not token:
            raise BadRequest("bad_field", "token must be text")
        stored = await registry.store.load_room(request.path_params["room_id"])
        if stored is None:
            raise BadRequest("room_not_found", "no such room", 404)
        seat = seat_for_token(stored.meta, token)
        if seat is None:
            raise BadRequest("bad_token", "this token does not open a seat of this room", 403)
    except BadRequest as error:
        return error_response(error)
    return JSONResponse({"room": stored.meta.room_id, "seat": seat, "ws_path": WS_PATH})


async def list_rooms(request: Request) -> Response:
    registry: RoomRegistry = request.app.state.registry
    listings = await registry.store.public_rooms(PUBLIC_LIST_LIMIT)
    # A public tournament's table says which (server/tournaments/lobby_labels.py).
    tournaments = await lobby_fields(tournaments_of(request).store,
                                     [item.room_id for item in listings])
    return JSONResponse({"rooms": [
        {"room": item.room_id, "ruleset": item.ruleset, "phase": item.phase,
         "round": item.round, "turn": item.turn, "active": item.active,
         "spectators": item.spectators, "seats_taken": item.seats_taken,
         "fixed_dice": item.fixed_dice, "spectator_link": f"/#room={item.room_id}",
         "tournament": tournament}
        for item, tournament in zip(listings, tournaments, strict=True)
    ]})


def _dice_json(meta: RoomMeta) -> dict[str, Any]:
    """The commitment to the room's dice secret, published before any roll, and whether its
    dice were fixed by a seed (docs/fair-play.md)."""
    return {"dice_commitment": meta.dice_commitment, "fixed_dice": meta.settings.fixed_dice}


def _settings_json(settings: RoomSettings) -> dict[str, Any]:
    # Never the seed: whoever knows it can predict every die of the game.
    return {"ruleset": settings.ruleset, "aro_window_s": settings.aro_window_s,
            "visibility": settings.visibility, "spectator_delay_s": settings.spectator_delay_s,
            "clock_s": settings.clock_s, "aro_min_open_s": settings.aro_min_open_s,
            "table": table_catalogue.summary(settings.table, Ruleset(settings.ruleset))}


routes = [
    Route("/api/rooms", create_room, methods=["POST"]),
    Route("/api/rooms", list_rooms, methods=["GET"]),
    Route("/api/rooms/{room_id}", describe_room, methods=["GET"]),
    Route("/api/rooms/{room_id}/join", join_seat, methods=["POST"]),
    *army_routes,
    *record_routes,
    *table_routes,
]
