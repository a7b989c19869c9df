"""The tournaments' HTTP API under ``/api/tournaments`` (docs/tournaments.md is its
contract). Bodies are read and errors answered as the lobby's (``server.lobby.http``: size
and time limits, ``bad_json``); rooms are made by the lobby's own room-settings check and
the registry's ``create``, the path ``POST /api/rooms`` takes."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.config import Settings
from server.lobby.admission import Refusal, TrustedProxies, admission_for, client_address
from server.lobby.caster_routes import current_caster
from server.lobby.http import BadRequest, error_response, read_json_object, refusal_response
from server.lobby.room_form import TOURNAMENT_ARO_MIN_OPEN_S, parse_room_settings
from server.rooms.registry import RoomRegistry
from server.rooms.rules_engine import ArmyCodeReader
from server.rules.armies.army_catalogue import sample_armies
from server.store.interface import StorageUnavailable
from server.tournaments import decide, scoring, tokens, views
from server.tournaments.app_service import labels_of, tournaments_of
from server.tournaments.creation_limits import tournament_creations_for
from server.tournaments.live import live_row
from server.tournaments.mission_choice import round_missions
from server.tournaments.model import Player, Proposal, Tournament, fold
from server.tournaments.refusals import Refused
from server.tournaments.registered_lists import BroughtArmy, brought_army
from server.tournaments.registration_limits import registrant, registration_admission_for

PUBLIC_LIST_LIMIT = 200
MAX_LAYOUTS = 20


def _answer(handler: Callable[[Request], Awaitable[Response]]
            ) -> Callable[[Request], Awaitable[Response]]:
    """Every refusal as ``{"error", "message"}`` with its status."""

    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except Refused as refused:
            if refused.retry_after_s is not None:
                return refusal_response(Refusal(refused.status, refused.code, refused.message,
                                                refused.retry_after_s))
            return _error(refused.code, refused.message, refused.status)
        except BadRequest as error:
            return error_response(error)
        except StorageUnavailable as error:
            return _error("storage_unavailable", str(error), 503)

    return endpoint


def _client(request: Request, trusted: TrustedProxies) -> str:
    """The client address a request counts against (``server.lobby.admission``)."""
    peer = request.client.host if request.client is not None else None
    return client_address(peer, request.headers, trusted)


def _error(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def army_name(army_id: str) -> tuple[str, str | None]:
    army = sample_armies().get(army_id)
    return (army.name, army.faction) if army is not None else (army_id, None)


def _bring(state: Tournament, read_code: ArmyCodeReader | None) -> decide.Bring:
    """A registration's army checked for this tournament (``registered_lists``)."""
    def bring(body: Mapping[str, Any]) -> BroughtArmy:
        return brought_army(body, ruleset=state.settings.ruleset,
                            point_limit=state.settings.point_limit, read_code=read_code)

    return bring


def _room_body(settings: Any, layout: str | None, mission: str = "") -> dict[str, Any]:
    body: dict[str, Any] = {"ruleset": settings.ruleset, "aro_window_s": settings.aro_window_s,
                            "visibility": settings.visibility,
                            "spectator_delay_s": settings.spectator_delay_s,
                            "aro_min_open_s": settings.aro_min_open_s}
    if layout is not None:
        body["table"] = layout
    if mission:  # the round's mission (server.tournaments.model.Tournament.mission_for)
        body["mission"] = mission
    if settings.clock_s is not None:
        body["clock_s"] = settings.clock_s
    return body


def _organizer(state: Tournament, body: dict[str, Any]) -> None:
    token = body.get("organizer")
    if not isinstance(token, str) or not token:
        raise Refused("organizer_token_required", "this takes the tournament's organizer token")
    if not tokens.matches(token, state.organizer_hash):
        raise Refused("bad_organizer_token", "this is not the organizer token of this "
                      "tournament", 403)


def _player_by_token(state: Tournament, body: dict[str, Any]) -> Player:
    token = body.get("token")
    if not isinstance(token, str) or not token:
        raise Refused("bad_field", "token must be the player's token")
    for player in state.players.values():
        if tokens.matches(token, player.token_hash):
            return player
    raise Refused("bad_player_token", "this is not a player token of this tournament", 403)


# -- create and list ----------------------------------------------------------------------

@_answer
async def create_tournament(request: Request) -> Response:
    settings: Settings = request.app.state.settings
    trusted = admission_for(request.app.state, settings).trusted
    refused = tournament_creations_for(request.app.state, settings).admit(
        _client(request, trusted))
    if refused is not None:
        return refusal_response(refused)
    body = await read_json_object(request)
    decide.known_fields(body, {"action_id", "name", "rounds", "ruleset", "point_limit",
                               "aro_window_s", "spectator_delay_s", "clock_s", "tables",
                               "visibility", "max_players", "aro_min_open_s", "scoring",
                               "missions"})
    action_id = decide.action_id_of(body)
    name = decide.text(body, "name", 1, 80)
    rounds = decide.integer(body, "rounds", 1, 10)
    layouts = body.get("tables", [])
    if (not isinstance(layouts, list) or len(layouts) > MAX_LAYOUTS
            or not all(isinstance(t, str) and t for t in layouts)):
        raise Refused("bad_field", f"tables must be a list of at most {MAX_LAYOUTS} layout ids "
                      "(GET /api/tables)")
    room_fields: dict[str, Any] = {k: body[k] for k in ("ruleset", "aro_window_s", "spectator_delay_s",
                                        "clock_s", "visibility", "aro_min_open_s") if k in body}
    # The rooms' settings are checked as POST /api/rooms checks them, for every layout.
    checked = [parse_room_settings({**room_fields, **({"table": t} if t else {})}, settings,
                                   TOURNAMENT_ARO_MIN_OPEN_S)
               for t in (layouts or [""])]
    first = checked[0]
    # The format's usual game size when none is given: 300 points in N5, 30 in CodeOne.
    default_limit = 30 if first.ruleset == "codeone" else 300
    point_limit = decide.integer({"point_limit": body.get("point_limit", default_limit)},
                                 "point_limit", 10, 1000)
    max_players = decide.integer({"max_players": body.get("max_players", decide.MAX_PLAYERS)},
                                 "max_players", 2, decide.MAX_PLAYERS)
    missions = round_missions(body.get("missions", []), rounds, first.ruleset)
    # Missions score OP: the ITS table's bonuses then mean something (docs/tournaments.md).
    table = scoring.parse(body.get("scoring", "its" if any(missions) else "classic"))
    tournament_settings = {
        "rounds": rounds, "ruleset": first.ruleset, "point_limit": point_limit,
        "aro_window_s": first.aro_window_s, "spectator_delay_s": first.spectator_delay_s,
        "clock_s": body.get("clock_s"), "tables": layouts, "visibility": first.visibility,
        "max_players": max_players, "aro_min_open_s": first.aro_min_open_s,
        "scoring": table.plain(), "missions": missions}
    service = tournaments_of(request)
    tournament_id = await service.store.claim_creation(action_id, tokens.new_id())
    for _ in range(2):
        entries = await service.store.load(tournament_id)
        if entries:  # a retried creation: its first answer again
            created = entries[0]
            organizer = tokens.unseal(created["sealed_organizer"], action_id,
                                      f"organizer:{tournament_id}")
            if created["settings"]["visibility"] == "public":  # in case the first stopped
                await service.store.publish(tournament_id, int(created["created_ms"]))
            return _created(fold(entries), organizer)
        organizer = tokens.new_token()
        created_ms = service.clock()
        entry = {"type": "created", "action_id": action_id, "tournament": tournament_id,
                 "name": name, "settings": tournament_settings,
                 "organizer_hash": tokens.token_hash(organizer),
                 "sealed_organizer": tokens.seal(organizer, action_id,
                                                 f"organizer:{tournament_id}"),
                 "created_ms": created_ms}
        done = await service.store.append(tournament_id, expected_version=0,
                                          action_id=action_id, entry=entry)
        if done.status == "appended":
            if first.visibility == "public":
                await service.store.publish(tournament_id, created_ms)
            return _created(fold([entry]), organizer)
    raise Refused("busy", "try again", 503)


def _created(state: Tournament, organizer: str) -> Response:
    return JSONResponse({"tournament": state.id,
                         "organizer": {"token": organizer,
                                       "link": views.organizer_link(state.id, organizer)},
                         "view": views.public_view(state, army_name)}, status_code=201)


@_answer
async def list_tournaments(request: Request) -> Response:
    service = tournaments_of(request)
    states = []
    for tournament_id in await service.store.public(PUBLIC_LIST_LIMIT):
        entries = await service.store.load(tournament_id)
        if entries:
            states.append(fold(entries))
    await labels_of(request).heal(*states)  # one HMGET for all the rounds not seen yet
    return JSONResponse({"tournaments": [views.listing(state) for state in states]})


# -- public reads -------------------------------------------------------------------------

async def _read(request: Request) -> Tournament:
    """The tournament now (``Tournaments.read``), its current round's lobby labels healed if
    a start's labels were lost (``lobby_labels.RoundLabels.heal``)."""
    state = await tournaments_of(request).read(request.path_params["tournament_id"])
    await labels_of(request).heal(state)
    return state


@_answer
async def describe(request: Request) -> Response:
    state = await _read(request)
    return JSONResponse(views.public_view(state, army_name))


@_answer
async def standings_json(request: Request) -> Response:
    state = await _read(request)
    view = views.public_view(state, army_name)
    return JSONResponse({"tournament": state.id, "round": state.round,
                         "status": state.status, "standings": view["standings"]})


@_answer
async def standings_csv(request: Request) -> Response:
    state = await _read(request)
    return Response(views.standings_csv(state), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition":
                             f'attachment; filename="standings-{state.id}.csv"'})


# -- players ------------------------------------------------------------------------------

@_answer
async def register(request: Request) -> Response:
    service = tournaments_of(request)
    tournament_id = request.path_params["tournament_id"]
    settings: Settings = request.app.state.settings
    limits = registration_admission_for(request.app.state, settings)
    body = await read_json_object(request)
    action_id = decide.action_id_of(body)
    by_organizer = "organizer" in body
    client = _client(request, limits.trusted)
    if not by_organizer:  # the organizer adds players beyond the limits of an address
        refused = limits.admit(client)
        if refused is not None:
            return refusal_response(refused)
    token_box: list[str] = []

    async def entry(state: Tournament) -> dict[str, Any]:
        if by_organizer:
            _organizer(state, body)
        made, token = decide.registration(state, body, by_organizer=by_organizer,
                                          bring=_bring(state, service.army_codes),
                                          registrant=registrant(tournament_id, client),
                                          per_registrant=limits.per_tournament)
        token_box.append(token)
        return made

    written = await service.write(tournament_id, action_id, entry)
    await labels_of(request).heal(written.state)
    if written.entry.get("type") != "registered":
        raise Refused("bad_field", "this action_id was used by another action")
    player = str(written.entry["player"])
    token = token_box[-1] if not written.duplicate else tokens.unseal(
        str(written.entry["sealed_token"]), action_id, f"player:{tournament_id}")
    return JSONResponse({"player": player, "token": token,
                         "link": views.player_link(tournament_id, token),
                         "view": views.public_view(written.state, army_name)},
                        status_code=201)


@_answer
async def player_page(request: Request) -> Response:
    body = await read_json_object(request)
    state = await _read(request)
    player = _player_by_token(state, body)
    return JSONResponse(views.player_page(state, player, army_name))


# -- the organizer ------------------------------------------------------------------------

@_answer
async def dashboard(request: Request) -> Response:
    body = await read_json_object(request)
    service = tournaments_of(request)
    state = await _read(request)
    _organizer(state, body)
    registry: RoomRegistry = request.app.state.registry
    rows = []
    current = state.current
    for table in current.tables if current is not None else ():
        room = table.room
        live, meta = await live_row(service.folds, room, service.clock())
        # The room's own caster link (listed and withdrawn on its organizer page), the same
        # at every read until withdrawn: reads do not make more.
        caster = await current_caster(registry, meta) if meta is not None else None
        rows.append({
            "round": current.number if current else 0, "table": table.number,
            "a": table.a, "b": table.b, "room": room, **live,
            "spectator_link": f"/#room={room}",
            "organizer_link": f"/#room={room}&organizer={table.room_organizer}",
            "caster_link": None if caster is None else caster["link"],
            "overlay_link": None if caster is None else caster["overlay_link"],
            "mission": views.mission_json(current.mission if current else ""),
            "result": views.result_json(table.result, state.settings.scoring)})
    return JSONResponse({"view": views.public_view(state, army_name), "tables": rows,
                         "registrations": views.registrations(state)})


@_answer
async def organizer_action(request: Request) -> Response:
    service = tournaments_of(request)
    registry: RoomRegistry = request.app.state.registry
    settings: Settings = request.app.state.settings
    admission = admission_for(request.app.state, settings)
    body = await read_json_object(request)
    action_id = decide.action_id_of(body)
    made: dict[str, Any] = {}

    async def start_round(state: Tournament) -> dict[str, Any]:
        proposal, _ = decide.round_start_plan(state, body)
        plan = (proposal.tables, state.mission_for(proposal.round))
        if made.get("plan") != plan:  # rooms made for another plan (or mission): unused
            # The round's rooms count against the lobby's room limits, as POST /api/rooms
            # does: the organizer's address and this node's (server.lobby.admission).
            refused = admission.admit_round(_client(request, admission.trusted),
                                            len(proposal.tables))
            if refused is not None:
                raise Refused(refused.code, refused.message, refused.status,
                              refused.retry_after_s)
            made["plan"] = plan
            made["rooms"] = [await _make_room(registry, settings, state, proposal, n)
                             for n in range(1, len(proposal.tables) + 1)]
            for room in made["rooms"]:
                admission.created(room["room"])  # unstarted until a seat joins
        return decide.round_started(state, body, proposal, made["rooms"])

    async def other(state: Tournament) -> dict[str, Any]:
        return decide.organizer_action(state, body)

    async def checked(state: Tournament) -> dict[str, Any]:
        _organizer(state, body)
        if body.get("type") == "start_round":
            return await start_round(state)
        return await other(state)

    written = await service.write(request.path_params["tournament_id"], action_id, checked)
    if written.duplicate:  # the organizer token still has to be right
        _organizer(written.state, body)
    # The lobby's list names the round's rooms (again on a retry, in case the first stopped);
    # any other action heals the current round's, as a read does.
    if written.entry.get("type") == "round_started":
        await labels_of(request).label_round(written.state, int(written.entry["round"]))
    else:
        await labels_of(request).heal(written.state)
    return JSONResponse({"version": written.state.version, "duplicate": written.duplicate,
                         "view": views.public_view(written.state, army_name)})


async def _make_room(registry: RoomRegistry, settings: Settings, state: Tournament,
                     proposal: Proposal, table_number: int) -> dict[str, Any]:
    layout = state.settings.layout_for(proposal.round, table_number)
    room_settings = parse_room_settings(
        _room_body(state.settings, layout, state.mission_for(proposal.round)), settings)
    a, b = proposal.tables[table_number - 1]
    # The table holds each player to the army they registered: a shipped list's id, or the
    # document checked at registration (the seat chooses it by its id).
    room_settings = dataclasses.replace(
        room_settings, armies={"A": state.players[a].table_army,
                               "B": state.players[b].table_army})
    created = await registry.create(room_settings)
    return {"room": created.meta.room_id,
            "layout": room_settings.table if isinstance(room_settings.table, str) else None,
            "seat_a": created.token_a, "seat_b": created.token_b,
            "room_organizer": created.organizer}


routes = [
    Route("/api/tournaments", create_tournament, methods=["POST"]),
    Route("/api/tournaments", list_tournaments, methods=["GET"]),
    Route("/api/tournaments/{tournament_id}", describe, methods=["GET"]),
    Route("/api/tournaments/{tournament_id}/standings", standings_json, methods=["GET"]),
    Route("/api/tournaments/{tournament_id}/standings.csv", standings_csv, methods=["GET"]),
    Route("/api/tournaments/{tournament_id}/players", register, methods=["POST"]),
    Route("/api/tournaments/{tournament_id}/me", player_page, methods=["POST"]),
    Route("/api/tournaments/{tournament_id}/dashboard", dashboard, methods=["POST"]),
    Route("/api/tournaments/{tournament_id}/actions", organizer_action, methods=["POST"]),
]
