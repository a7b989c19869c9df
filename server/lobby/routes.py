"""The HTTP lobby: create a room, check a seat token, describe a room, list public rooms
(caster links: ``server.lobby.caster_routes``).

JSON in and out; bodies are read and errors answered as ``server.lobby.http`` says (4xx
``{"error": code, "message": text}``; a body is one JSON object of at most 64 KiB). Links
put the room id and seat token in the URL fragment, which browsers never send to servers.
Room creation is limited per client address and per node (``server.lobby.admission``).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from protocol.constants import WS_PATH
from server.bot.seating import bots_of, node_base
from server.config import Settings
from server.lobby.admission import admission_for, client_address
from server.lobby.armies import routes as army_routes
from server.lobby.http import BadRequest, error_response, read_json_object, refusal_response
from server.lobby.missions import routes as mission_routes
from server.lobby.record import routes as record_routes
from server.lobby.reserve import credential_key
from server.lobby.room_form import parse_room_settings
from server.lobby.tables import routes as table_routes
from server.lobby.tokens import seat_for_token
from server.replay.routes import routes as replay_routes  # replays (issue 39): docs/replays.md
from server.rooms.registry import RoomRegistry
from server.rules.ruleset import Ruleset
from server.rules.table import table_catalogue
from server.store import RoomMeta, RoomSettings
from server.tournaments.app_service import tournaments_of
from server.tournaments.lobby_labels import lobby_fields

PUBLIC_LIST_LIMIT = 200


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
        room_settings = parse_room_settings(body, settings, seats_bot=True)
    except BadRequest as error:
        return error_response(error)
    if room_settings.bot:  # its bot connects to this listener (server/bot/seating.py)
        bots_of(request.app.state).base = node_base(request.scope.get("server"))
    created = await registry.create(room_settings)
    room_id = created.meta.room_id
    admission.created(room_id)
    seats = {"A": created.token_a, "B": created.token_b}
    # Practice bot (server/bot, docs/bot.md): the node that runs the room runs it with its
    # seat's token (the registry starts it); the creator gets only the other seat's link.
    if room_settings.bot:
        seats.pop(room_settings.bot)
    return JSONResponse({
        "room": room_id,
        "settings": _settings_json(room_settings),
        **_dice_json(created.meta),
        "seats": {seat: {"token": token, "link": f"/#room={room_id}&token={token}"}
                  for seat, token in seats.items()},
        "organizer": {"token": created.organizer,
                      "link": f"/#room={room_id}&organizer={created.organizer}"},
        "spectator_link": f"/#room={room_id}",
        "ws_path": WS_PATH,
    }, status_code=201)


async def describe_room(request: Request) -> Response:
    registry: RoomRegistry = request.app.state.registry
    # The meta alone (never the snapshot and events): anyone may ask, as often as they like.
    meta = await registry.store.load_meta(request.path_params["room_id"])
    if meta is None:
        return error_response(BadRequest("room_not_found", "no such room", 404))
    return JSONResponse({
        "room": meta.room_id,
        "settings": _settings_json(meta.settings),
        **_dice_json(meta),
        "spectator_link": f"/#room={meta.room_id}",
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
        meta = await registry.store.load_meta(request.path_params["room_id"])
        if meta is None:
            raise BadRequest("room_not_found", "no such room", 404)
        seat = seat_for_token(meta, token)
        if seat is None:
            raise BadRequest("bad_token", "this token does not open a seat of this room", 403)
    except BadRequest as error:
        return error_response(error)
    return JSONResponse({"room": meta.room_id, "seat": seat, "ws_path": WS_PATH})


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
            "mission": settings.mission or None,
            "bot": {"seat": settings.bot, "level": settings.bot_level} if settings.bot else None,
            "ranked": not settings.bot,  # a game against the bot is practice
            "table": table_catalogue.summary(settings.table, Ruleset(settings.ruleset))}


routes = [
    Route("/api/rooms", create_room, methods=["POST"]),
    Route("/api/rooms", list_rooms, methods=["GET"]),
    Route("/api/rooms/{room_id}", describe_room, methods=["GET"]),
    Route("/api/rooms/{room_id}/join", join_seat, methods=["POST"]),
    *army_routes,
    *record_routes,
    *table_routes,
    *mission_routes,
    *replay_routes,
]
