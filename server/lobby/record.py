"""``GET /api/rooms/{room}/record``: a finished game's record, for anyone to check its dice.

Once the game is over (its last event is ``game_ended``) the record is every stored event
of the room, in order and unredacted -- the end of the game made all hidden information
open, and ``game_ended`` reveals the dice secret and both players' contributions -- with
the room's settings and a summary (armies, result, dice) in front. ``python -m
server.verify`` (or any independent implementation of docs/record-format.md) recomputes
every die from it. Before the end -- and, in a room with a spectator delay, until the end
is that old, so that its delayed spectators see the end first -- the answer is 409 and says
nothing else: the events hold hidden information (Hidden Deployment, Lieutenants, each
player's entropy) and the dice key, which would let a reader predict every die still to
come.

The store keeps every event of a room for this (``server.store.interface``). Every read
after the room's load is clipped to the version that load returned
(``server.store.clipped_reads``): on a Redis Cluster that waits for replicas the load is
confirmed on a replica, so nothing a record shows can be taken back by a failover.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from protocol.codec import unpack_plain
from server.fanout import Audience
from server.rooms.registry import RoomRegistry
from server.rooms.spectator_delay import delay_ms
from server.rules.ruleset import Ruleset
from server.rules.table import table_catalogue
from server.store import RoomMeta, StoredRoom
from server.store.clipped_reads import events_through, timeline_through

RECORD_FORMAT = "infinity-referee-record/1"
"""Bumped whenever a field changes meaning or goes away (docs/record-format.md)."""
DICE_ALGORITHM = "hmac-sha256-d20/v1"
"""How every die was made from the revealed values (server/rules/combat/dice.py)."""
GAME_ENDED = "game_ended"


class RecordRefused(Exception):
    """The record cannot be published now: ``{"error": code, "message": message}`` with
    ``status`` (the replays of a room refuse alike: ``server.replay.routes``)."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def _error(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def build_record(meta: RoomMeta, events: list[dict[str, Any]]) -> dict[str, Any]:
    """The record of a finished game from its meta and every event's plain form, in order
    (``events[-1]`` is ``game_ended``)."""
    ended = events[-1]
    revealed = ended["dice_revealed"]
    settings = meta.settings
    armies = {event["side"]: event["army"] for event in events if event["type"] == "army_chosen"}
    return {
        "format": RECORD_FORMAT,
        "room": meta.room_id,
        "created_ms": meta.created_ms,
        "settings": {"ruleset": settings.ruleset, "aro_window_s": settings.aro_window_s,
                     "visibility": settings.visibility,
                     "spectator_delay_s": settings.spectator_delay_s,
                     # Each player's chess clock (0: none), which a replay's clocks start from.
                     "clock_s": settings.clock_s,
                     # The whole choice (an id, or the document sent), so the record names
                     # the table the events were played on; rooms stored before: the sample.
                     "table": settings.table or table_catalogue.sample_table(
                         Ruleset(settings.ruleset)),
                     "mission": settings.mission or None},
        "fixed_dice": settings.fixed_dice,
        "dice": {"algorithm": DICE_ALGORITHM, "commitment": revealed["commitment"],
                 "secret": revealed["secret"], "contributions": revealed["contributions"]},
        "armies": armies,
        "not_refereed": {side: not_refereed_of(army) for side, army in armies.items()},
        "result": ended["result"],
        "events": [{"index": n, "event": event} for n, event in enumerate(events, 1)],
    }


def not_refereed_of(army: dict[str, Any]) -> list[dict[str, Any]]:
    """What the referee did not play in this list, trooper by trooper (both players
    accepted it before the game: ``armies_accepted``)."""
    return [{"entry": entry["id"], "unit": entry["profile"]["name"],
             "items": entry["not_refereed"]}
            for entry in army["entries"] if entry.get("not_refereed")]


async def game_record(request: Request) -> Response:
    registry: RoomRegistry = request.app.state.registry
    try:
        stored = await finished_room(registry, request.path_params["room_id"])
        record = await record_of(registry, stored)
    except RecordRefused as refused:
        return _error(refused.code, refused.message, refused.status)
    return JSONResponse(record)


async def finished_room(registry: RoomRegistry, room_id: str) -> StoredRoom:
    """The room, once its record may be published; else ``RecordRefused`` (404 no such
    room, 409 the game is not over, or its end is younger than the spectator delay)."""
    store = registry.store
    stored = await store.load_room(room_id)
    if stored is None:
        raise RecordRefused("room_not_found", "no such room", 404)
    # Only the last event first: a game in progress costs one event's read, never the log.
    last = await events_through(store, room_id, stored.version - 1,
                                stored.version) if stored.version else []
    if not last or unpack_plain(last[-1]).get("type") != GAME_ENDED:
        raise RecordRefused("game_not_over", "the record is published when the game is over", 409)
    if stored.meta.settings.spectator_delay_s > 0 and not await _delay_passed(registry, stored):
        # Its delayed spectators have not seen the end yet: the record would show it early.
        raise RecordRefused("game_not_over", "the record is published when the game is over", 409)
    return stored


async def record_of(registry: RoomRegistry, stored: StoredRoom) -> dict[str, Any]:
    """The record of a room ``finished_room`` answered: its events up to the version it was
    loaded at; ``RecordRefused`` 410 when its first events are not stored."""
    meta = stored.meta
    payloads = await events_through(registry.store, meta.room_id, 0, stored.version)
    if payloads is None:
        raise RecordRefused("record_unavailable",
                            "this room's early events were not kept (stored before records were)",
                            410)
    return build_record(meta, [unpack_plain(payload) for payload in payloads])


async def _delay_passed(registry: RoomRegistry, stored: StoredRoom) -> bool:
    """Whether the game's end (the loaded room's last event) is older than the room's
    spectator delay (``server.rooms.spectator_delay``): until then delayed spectators have
    not seen it."""
    timeline = await timeline_through(registry.store, stored.meta.room_id, stored.version)
    if timeline is None or not timeline.committed_ms:
        return False
    ended_ms = timeline.committed_ms[-1]
    return registry.clock() >= ended_ms + delay_ms(Audience.SPECTATOR, stored.meta.settings)


routes = [Route("/api/rooms/{room_id}/record", game_record, methods=["GET"])]
