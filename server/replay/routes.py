"""The replay endpoints (docs/replays.md):

- ``GET /api/rooms/{room}/replay?view=…`` and ``…/replay/state?view=…&step=i``: a room's
  replay, available exactly when its record is (``server.lobby.record.finished_room``: the
  same refusals, checked until the replay is folded and kept: a game over stays over and a
  spectator delay passed stays passed, so a kept replay is served without a store read);
- ``POST /api/replays`` with a whole record (a downloaded record file): checked, folded and
  kept under an id (a hash of the record), then ``GET /api/replays/{id}?view=…`` and
  ``…/{id}/state?view=…&step=i``.

Errors as the lobby's (``{"error": code, "message": text}``): 400 ``bad_field`` for a view
or step out of range, 400 ``bad_record`` for a posted document that is not a record, 404
``replay_not_found`` for an id this node does not keep (any more: ``cache``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.lobby.http import BadRequest, error_response, json_object, read_body
from server.lobby.record import RecordRefused, finished_room, record_of
from server.replay.cache import Key, cache_for
from server.replay.documents import replay_document, step_document
from server.replay.fold import VIEWS, Replay, fold
from server.replay.record_input import BadRecord, read_record, with_stored_first_state
from server.replay.timing import from_timeline, unknown
from server.rooms.registry import RoomRegistry
from server.store import Timeline
from server.store.clipped_reads import timeline_through

MAX_RECORD_BYTES = 4 * 1024 * 1024
"""The largest record ``POST /api/replays`` reads (deploy/nginx.conf allows as much on that
path): a whole game's record is 100 to 300 KiB."""
REPLAY_ID_CHARS = 32
"""Hexadecimal characters of a posted record's id (the start of its SHA-256)."""


def _view(request: Request) -> str:
    view = request.query_params.get("view", "")
    if view not in VIEWS:
        raise BadRequest("bad_field", f"view must be one of {', '.join(VIEWS)}")
    return view


def _step(request: Request, replay: Replay, view: str) -> int:
    count = len(replay.views[view])
    text = request.query_params.get("step", "")
    if not (text.isascii() and text.isdigit() and len(text) <= 9) or int(text) >= count:
        raise BadRequest("bad_field", f"step must be a whole number from 0 to {count - 1}")
    return int(text)


def _refused(refused: RecordRefused) -> Response:
    return error_response(BadRequest(refused.code, refused.message, refused.status))


async def _answer(request: Request, replay_of: Callable[[Request], Awaitable[Replay]],
                  stepped: bool) -> Response:
    """A replay's listing, or with ``stepped`` the state at its ``step``, in the ``view``
    asked for; the replay is found by ``replay_of`` (a room's, or a posted record's)."""
    try:
        view = _view(request)
        replay = await replay_of(request)
        step = _step(request, replay, view) if stepped else None
    except BadRequest as error:
        return error_response(error)
    except RecordRefused as refused:
        return _refused(refused)
    if step is None:
        return JSONResponse(replay_document(replay, view))
    return JSONResponse(step_document(replay, view, step))


# --- a room's replay ---------------------------------------------------------------------


async def _room_replay(request: Request) -> Replay:
    """The room's replay, once its record may be published (``RecordRefused`` otherwise)."""
    registry: RoomRegistry = request.app.state.registry
    room_id = request.path_params["room_id"]
    key: Key = ("room", room_id)
    cache = cache_for(request.app.state)
    # A room's replay is kept only once its room passed the check below, and that verdict
    # never changes (the game stays over, the delay stays passed): a kept replay is the
    # verdict, and stepping through it reads nothing (a delayed room's check reads its
    # whole timeline). A replay forgotten is checked again with its fold, whose reads (the
    # record and the timeline) are larger than the check's.
    kept = cache.get(key)
    if kept is not None:
        return kept
    stored = await finished_room(registry, room_id)

    async def folded() -> Replay:
        # Both clipped to the version the room was loaded at (confirmed on a cluster that
        # waits for replicas: server.store.clipped_reads), as the record is.
        record = await record_of(registry, stored)
        timeline = await timeline_through(registry.store, room_id, stored.version)
        return await asyncio.to_thread(_fold_room, record, timeline)

    return await cache.get_or_fold(key, folded)


def _fold_room(record: dict[str, Any], timeline: Timeline | None) -> Replay:
    # A stored room's record that does not fold is the server's fault: BadRecord is not
    # caught for it (a 500 and a log line), never answered as the client's.
    checked = read_record(record)
    if timeline is not None and timeline.first_snapshot is not None:
        checked = with_stored_first_state(checked, timeline.first_snapshot)
    return fold(checked, from_timeline(timeline, len(checked.events)))


async def room_replay(request: Request) -> Response:
    return await _answer(request, _room_replay, stepped=False)


async def room_replay_state(request: Request) -> Response:
    return await _answer(request, _room_replay, stepped=True)


# --- a posted record's replay ------------------------------------------------------------


def record_id(document: dict[str, Any]) -> str:
    """A record's id: the start of the SHA-256 of its canonical JSON (the same record posted
    again, however it is spaced, is the same replay)."""
    try:  # (ASCII: a lone surrogate the body escaped is hashed as its escape)
        canonical = json.dumps(document, sort_keys=True, separators=(",", ":"))
    except RecursionError:  # nested about as deep as the body parser allows
        raise BadRecord("the record is nested too deep") from None
    return hashlib.sha256(canonical.encode()).hexdigest()[:REPLAY_ID_CHARS]


def _parsed(raw: bytes) -> tuple[dict[str, Any], str]:
    """The posted body as a JSON object (``BadRequest`` ``bad_json`` as any lobby body) and
    its record id (``BadRecord``), made in a worker thread: up to 4 MiB of JSON would hold
    the event loop, and every room of the node, for a fifth of a second."""
    document = json_object(raw)
    return document, record_id(document)


def _fold_posted(document: dict[str, Any]) -> Replay:
    checked = read_record(document)
    return fold(checked, unknown(len(checked.events)))


async def post_replay(request: Request) -> Response:
    try:
        raw = await read_body(request, MAX_RECORD_BYTES)
        document, replay_id = await asyncio.to_thread(_parsed, raw)
        del raw  # (the parsed document is kept; its text need not be while it folds)
        await cache_for(request.app.state).get_or_fold(
            ("record", replay_id), lambda: asyncio.to_thread(_fold_posted, document))
    except BadRequest as error:
        return error_response(error)
    except BadRecord as problem:
        return error_response(BadRequest("bad_record", f"not a record to replay: {problem}"))
    return JSONResponse({"replay": replay_id}, status_code=201)


def _posted(request: Request) -> Replay:
    replay = cache_for(request.app.state).get(("record", request.path_params["replay_id"]))
    if replay is None:
        raise BadRequest("replay_not_found", "this server does not hold that replay (any "
                         "more): post the record again", 404)
    return replay


async def _posted_replay(request: Request) -> Replay:
    return _posted(request)


async def posted_replay(request: Request) -> Response:
    return await _answer(request, _posted_replay, stepped=False)


async def posted_replay_state(request: Request) -> Response:
    return await _answer(request, _posted_replay, stepped=True)


routes = [
    Route("/api/rooms/{room_id}/replay", room_replay, methods=["GET"]),
    Route("/api/rooms/{room_id}/replay/state", room_replay_state, methods=["GET"]),
    Route("/api/replays", post_replay, methods=["POST"]),
    Route("/api/replays/{replay_id}", posted_replay, methods=["GET"]),
    Route("/api/replays/{replay_id}/state", posted_replay_state, methods=["GET"]),
]
