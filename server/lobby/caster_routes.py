"""The organizer's caster links: make one, list them, withdraw one.

Every route takes the room's organizer token in its JSON body (``{"organizer": …}``; a
token never goes in a URL, which logs keep): 400 ``organizer_token_required`` without it,
403 ``bad_organizer_token`` when it is not this room's, 404 ``room_not_found``.

- ``POST /api/rooms/{room}/casters``: a new caster link (``server.lobby.tokens``), recorded
  with the room (``server.store.caster_links``); 409 ``too_many_caster_links`` past
  ``MAX_MADE``.
- ``POST /api/rooms/{room}/casters/list``: the room's records, oldest first, each with its
  links again while it is in use (the token of a nonce is the same every time it is made).
- ``POST /api/rooms/{room}/casters/{nonce}/withdraw``: from now on the link opens nothing,
  on any node (hello: ``error`` ``caster_withdrawn``, close 4012), and the sockets open
  with it are closed with the same (``server.transport.caster_sessions``). Idempotent
  (``already_withdrawn``); a nonce never recorded (a link made before rooms recorded their
  links) is recorded withdrawn; 400 ``bad_caster_link`` for what is not a nonce's shape.

A tournament's dashboard shows each table's room's ``current_caster`` link: the oldest in
use, made and recorded as here only when none is, so it is listed and withdrawn here too.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.fanout import Audience
from server.lobby.http import BadRequest, error_response, read_json_object
from server.lobby.tokens import caster_token, is_nonce, is_organizer, new_caster_nonce
from server.rooms.registry import RoomRegistry
from server.rooms.spectator_delay import delay_ms
from server.store import RoomMeta
from server.store.caster_links import MAX_MADE, CasterLink
from server.transport.caster_sessions import caster_sessions_for


async def _organizer_room(request: Request) -> RoomMeta:
    """The meta of the path's room, if the body holds its organizer token; else
    ``BadRequest`` (the meta alone is read: ``RoomStore.load_meta``)."""
    registry: RoomRegistry = request.app.state.registry
    body = await read_json_object(request)
    token = body.get("organizer")
    if not isinstance(token, str) or not token:
        raise BadRequest("organizer_token_required",
                         "caster links are managed with the room's organizer token")
    meta = await registry.store.load_meta(request.path_params["room_id"])
    if meta is None:
        raise BadRequest("room_not_found", "no such room", 404)
    if not is_organizer(meta, token):
        raise BadRequest("bad_organizer_token", "this is not the organizer token of this room",
                         403)
    return meta


def _links(meta: RoomMeta, token: str) -> dict[str, str]:
    room_id = meta.room_id
    return {"token": token, "link": f"/#room={room_id}&token={token}",
            "overlay_link": f"/overlay#room={room_id}&token={token}"}


def _record(meta: RoomMeta, link: CasterLink) -> dict[str, Any]:
    """A record as the lobby shows it: its links only while it is in use."""
    return {"nonce": link.nonce, "created_ms": link.created_ms or None,
            "withdrawn_ms": link.withdrawn_ms or None,
            "caster": None if link.withdrawn else _links(meta, caster_token(meta, link.nonce))}


def _too_many() -> BadRequest:
    return BadRequest("too_many_caster_links", f"a room keeps at most {MAX_MADE} caster links; "
                      "make a new room for more", 409)


async def current_caster(registry: RoomRegistry, meta: RoomMeta) -> dict[str, str] | None:
    """The room's oldest caster link in use (``_links``); when it has none, a new one made
    and recorded as ``make_caster`` does, in one atomic step of the store (two reads at once
    make one link). None: the room is gone, or it holds ``MAX_MADE`` records, all
    withdrawn."""
    link = await registry.store.current_caster_link(meta.room_id, new_caster_nonce(),
                                                    registry.clock())
    if not isinstance(link, CasterLink):
        return None
    return _links(meta, caster_token(meta, link.nonce))


async def make_caster(request: Request) -> Response:
    """A new caster link of the room, for its organizer: a caster sees both sides' hidden
    information, at least 60 s late (``spectator_delay``)."""
    registry: RoomRegistry = request.app.state.registry
    try:
        meta = await _organizer_room(request)
        nonce = new_caster_nonce()
        token = caster_token(meta, nonce)
        created_ms = registry.clock()
        recorded = await registry.store.record_caster_link(meta.room_id, nonce, created_ms)
        if recorded is None:
            raise BadRequest("room_not_found", "no such room", 404)
        if recorded == "full":
            raise _too_many()
    except BadRequest as error:
        return error_response(error)
    return JSONResponse({
        "room": meta.room_id, "nonce": nonce, "created_ms": created_ms,
        "caster": _links(meta, token),
        "delay_s": delay_ms(Audience.CASTER, meta.settings) / 1000,
    }, status_code=201)


async def list_casters(request: Request) -> Response:
    registry: RoomRegistry = request.app.state.registry
    try:
        meta = await _organizer_room(request)
        links = await registry.store.caster_links(meta.room_id)
        if links is None:
            raise BadRequest("room_not_found", "no such room", 404)
    except BadRequest as error:
        return error_response(error)
    return JSONResponse({"room": meta.room_id,
                         "delay_s": delay_ms(Audience.CASTER, meta.settings) / 1000,
                         "casters": [_record(meta, link) for link in links]})


async def withdraw_caster(request: Request) -> Response:
    registry: RoomRegistry = request.app.state.registry
    nonce = request.path_params["nonce"]
    try:
        meta = await _organizer_room(request)
        if not is_nonce(nonce):
            raise BadRequest("bad_caster_link", "this is not a caster link's nonce (the part "
                             "between the dots of c.<nonce>.<mac>)")
        room_id = meta.room_id
        outcome = await registry.store.withdraw_caster_link(room_id, nonce, registry.clock())
        if outcome is None:
            raise BadRequest("room_not_found", "no such room", 404)
        status, link = outcome
        if status == "full":
            raise _too_many()
    except BadRequest as error:
        return error_response(error)
    # Stored first, announced after (server.transport.caster_sessions explains why).
    caster_sessions_for(request.app.state).announce(room_id, nonce)
    return JSONResponse({"room": room_id, "already_withdrawn": status == "already_withdrawn",
                         **_record(meta, link)})


routes = [
    Route("/api/rooms/{room_id}/casters", make_caster, methods=["POST"]),
    Route("/api/rooms/{room_id}/casters/list", list_casters, methods=["POST"]),
    Route("/api/rooms/{room_id}/casters/{nonce}/withdraw", withdraw_caster, methods=["POST"]),
]
