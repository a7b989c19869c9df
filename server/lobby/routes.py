"""The HTTP lobby: create a room, check a seat token, describe a room, list public rooms
(caster links: ``server.lobby.caster_routes``).

JSON in and out; errors are ``{"error": code, "message": text}`` with a 4xx status. Links
put the room id and seat token in the URL fragment, which browsers never send to servers.
A request body is read up to ``MAX_BODY_BYTES`` and no further (a table sent whole is the
largest body the lobby takes), within ``BODY_TIMEOUT_S``; a body that is not one JSON object
(malformed, nested too deep, ``NaN``) is 400 ``bad_json``. Room creation is limited per
client address and per node (``server.lobby.admission``).
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncIterator
from typing import Any, NoReturn

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from protocol.constants import WS_PATH
from server.config import Settings
from server.lobby.admission import Refusal, admission_for, client_address
from server.lobby.armies import routes as army_routes
from server.lobby.record import routes as record_routes
from server.lobby.reserve import credential_key
from server.lobby.tables import routes as table_routes
from server.lobby.tokens import seat_for_token
from server.node.health import routes as health_routes
from server.rooms.registry import RoomRegistry
from server.rules.ruleset import Ruleset
from server.rules.table import table_catalogue
from server.rules.table.tables import TableError
from server.store import RoomMeta, RoomSettings
from server.tournaments.app_service import tournaments_of
from server.tournaments.lobby_labels import lobby_fields

RULESETS = ("n5", "codeone")
PUBLIC_LIST_LIMIT = 200
MAX_BODY_BYTES = 64 * 1024
"""The largest request body read, as deploy/nginx.conf's ``client_max_body_size``: room
settings are tiny, and a table at the format's limits (docs/tables.md) fits."""
DRAIN_BYTES = 256 * 1024
"""After refusing a body for its size, the lobby reads and drops at most this much more of
it before it answers, so that a client that sends its whole body before it reads (most do)
finds the 413 rather than a connection reset; a body declared larger than the limit and
this together is refused unread. The connection is closed after the answer, so nothing
more of the body is read, by the lobby or by uvicorn."""
BODY_TIMEOUT_S = 10.0
"""How long a request body may take to arrive whole (408 ``body_timeout`` after): a client
that trickles one byte at a time holds a connection and a task, not the node."""


class BadRequest(Exception):
    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def _error(error: BadRequest) -> JSONResponse:
    # A body refused unread (too large, too slow): the connection is closed after the
    # answer, or uvicorn would go on reading whatever of it the client still sends.
    unread = error.status in (408, 413)
    return JSONResponse({"error": error.code, "message": error.message}, status_code=error.status,
                        headers={"Connection": "close"} if unread else None)


def _refusal(refused: Refusal) -> JSONResponse:
    return JSONResponse({"error": refused.code, "message": refused.message,
                         "retry_after_s": refused.retry_after_s},
                        status_code=refused.status,
                        headers={"Retry-After": str(refused.retry_after_s)})


async def _json_object(request: Request) -> dict[str, Any]:
    return json_object(await _bounded_body(request))


def json_object(raw: bytes) -> dict[str, Any]:
    """``raw`` read as one JSON object, or ``BadRequest`` ``bad_json``: malformed or not
    UTF-8, nested deeper than Python's recursion allows, a number too long to read, or
    ``NaN``/``Infinity`` (not JSON; no answer could echo them)."""
    try:
        body = json.loads(raw, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:  # arrays or objects nested about a thousand deep
        raise BadRequest("bad_json", "the body is nested too deep") from None
    except ValueError as error:  # UnicodeDecodeError and JSONDecodeError among them
        raise BadRequest("bad_json", f"the body is not JSON: {str(error)[:120]}") from None
    if not isinstance(body, dict):
        raise BadRequest("bad_json", "the body must be a JSON object")
    return body


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999
        raise ValueError("a number beyond what a double holds")
    return value


async def _bounded_body(request: Request) -> bytes:
    """The body, read chunk by chunk and never kept past ``MAX_BODY_BYTES``: a declared
    ``Content-Length`` above it is refused before any of it is read (413), a chunked body
    as soon as it passes it. Then at most ``DRAIN_BYTES`` more are read and dropped, and
    the connection is closed after the answer."""
    too_large = BadRequest("body_too_large", f"the body must be at most {MAX_BODY_BYTES} "
                           "bytes", 413)
    declared = request.headers.get("content-length", "")
    chunks = request.stream()
    raw = bytearray()
    refused = False
    try:
        async with asyncio.timeout(BODY_TIMEOUT_S):
            if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
                refused = True
                if int(declared) <= MAX_BODY_BYTES + DRAIN_BYTES:
                    await _drop(chunks, int(declared))
                raise too_large
            async for chunk in chunks:
                raw += chunk
                if len(raw) > MAX_BODY_BYTES:
                    refused = True
                    await _drop(chunks, DRAIN_BYTES)
                    raise too_large
    except TimeoutError:
        if refused:
            raise too_large from None
        raise BadRequest("body_timeout", f"the body must arrive within {BODY_TIMEOUT_S:g} s",
                         408) from None
    except ClientDisconnect:  # nobody will read the answer; nothing to log either
        raise BadRequest("bad_json", "the client left before its body arrived") from None
    return bytes(raw)


async def _drop(chunks: AsyncIterator[bytes], most: int) -> None:
    """Read and drop the rest of a refused body, up to ``most`` bytes."""
    dropped = 0
    async for chunk in chunks:
        dropped += len(chunk)
        if dropped >= most:
            return


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
        return _refusal(refused)  # this address's own limits: no credential lifts them
    try:
        body = await _json_object(request)
        credential = body.pop("credential", None)
        if refused is not None:  # the node's limits: a known client may use the reserve
            key = await credential_key(registry, tournaments_of(request), credential)
            if key is None:
                return _refusal(refused)
            reserved = admission.admit_reserved(key)
            if reserved is not None:
                return _refusal(reserved)
        room_settings = parse_room_settings(body, settings)
    except BadRequest as error:
        return _error(error)
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
        return _error(BadRequest("room_not_found", "no such room", 404))
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
        body = await _json_object(request)
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
        return _error(error)
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
    *health_routes,  # /livez, /readyz, /healthz (server/node/health.py)
    Route("/api/rooms", create_room, methods=["POST"]),
    Route("/api/rooms", list_rooms, methods=["GET"]),
    Route("/api/rooms/{room_id}", describe_room, methods=["GET"]),
    Route("/api/rooms/{room_id}/join", join_seat, methods=["POST"]),
    *army_routes,
    *record_routes,
    *table_routes,
]
