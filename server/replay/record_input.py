"""A game's record read and checked into what a fold needs: the game's first state and its
events, decoded.

The first state is the one the room made (``RoomRegistry.create``): a new game with the
record's ruleset, table, mission and dice secret, on chess clocks when the record names
them (``settings.clock_s``). What else the room's first state held only ever served
decisions, never the fold of events (``apply``): the id key that draws trooper ids (the
ids are in the events), a tournament's registered armies (the chosen army is in
``army_chosen``). A record made before ``clock_s`` was written has no clocks: its replay
shows none.

A room's own replay starts from the state the room stored when it was made
(``with_stored_first_state``), which is the same game but exact to the millisecond of its
clocks' start, and also right for a room that began from a state of its own (the browser
tests' scenarios start in the Orders Phase: their records alone cannot be replayed). The
record's settings serve rooms stored before their first state was kept, and posted records.

A record that is not one (posted to ``/api/replays``) is refused with ``BadRecord``,
naming its first problem.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from protocol import codec
from server.lobby.record import GAME_ENDED, RECORD_FORMAT
from server.rooms.numbering import unpack_room_snapshot
from server.rules import engine
from server.rules.events import Event, event_from_plain
from server.rules.ruleset import Ruleset
from server.rules.state import GameState

HEX_SECRET = re.compile(r"[0-9a-f]{64}")


class BadRecord(ValueError):
    """The document is not a record that can be replayed: the message says why."""


@dataclass(frozen=True, slots=True)
class CheckedRecord:
    """A record whose fields a replay reads are there and of the right shape, with its
    first state made and its events decoded (not yet folded: ``fold``)."""

    room: str
    created_ms: int
    settings: dict[str, Any]
    armies: dict[str, Any]
    result: dict[str, Any]
    dice: dict[str, Any]
    first_state: GameState
    events: tuple[Event, ...]
    plains: tuple[dict[str, Any], ...]
    """Each event's plain form as the record holds it (unredacted)."""


def read_record(document: Any) -> CheckedRecord:
    """``document`` (a parsed record) checked; ``BadRecord`` naming the first problem."""
    if not isinstance(document, dict):
        raise BadRecord("a record is a JSON object")
    if document.get("format") != RECORD_FORMAT:
        raise BadRecord(f"format must be {RECORD_FORMAT!r}")
    room = _field(document, "room", str)
    created_ms = _field(document, "created_ms", int)
    settings = _field(document, "settings", dict)
    dice = _field(document, "dice", dict)
    armies = _field(document, "armies", dict)
    result = _field(document, "result", dict)
    secret = dice.get("secret")
    if not isinstance(secret, str) or not HEX_SECRET.fullmatch(secret):
        raise BadRecord("dice.secret must be 64 lowercase hexadecimal characters")
    plains = _events(_field(document, "events", list))
    events = tuple(_decoded(n, plain) for n, plain in enumerate(plains, 1))
    return CheckedRecord(room, created_ms, settings, armies, result, dice,
                         first_state(settings, secret, created_ms), events, plains)


def first_state(settings: dict[str, Any], secret: str, created_ms: int) -> GameState:
    """The game as the room started it (see the module's docstring)."""
    ruleset = settings.get("ruleset")
    if ruleset not in {r.value for r in Ruleset}:
        raise BadRecord(f"settings.ruleset must be one of {sorted(r.value for r in Ruleset)}")
    table = settings.get("table")
    if not isinstance(table, (str, dict)):
        raise BadRecord("settings.table must be a table's id or a table document")
    mission = settings.get("mission")
    if mission is not None and not isinstance(mission, str):
        raise BadRecord("settings.mission must be a mission's id or null")
    clock_s = settings.get("clock_s", 0)
    if isinstance(clock_s, bool) or not isinstance(clock_s, int) or clock_s < 0:
        raise BadRecord("settings.clock_s must be a whole number of seconds, 0 or more")
    try:
        state = engine.new_game(engine.GameSetup(ruleset=str(ruleset), dice_secret=secret,
                                                 table=table, mission=mission or ""))
    except ValueError as error:  # TableError, MissionError: the table or mission named
        raise BadRecord(f"settings: {error}") from None
    if clock_s:
        # No clock runs at army selection: the first ``clock_switched`` sets the time.
        state = engine.start_clocks(state, clock_s * 1000, created_ms)
    return state


def with_stored_first_state(record: CheckedRecord, snapshot: bytes) -> CheckedRecord:
    """``record`` folded from its room's stored first state (``RoomStore.timeline``)."""
    state, _ = unpack_room_snapshot(snapshot)
    return replace(record, first_state=engine.state_from_plain(state, codec.unpack_plain))


def _field(document: dict[str, Any], name: str, kind: type) -> Any:
    value = document.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise BadRecord(f"{name} is missing or not a {_KIND_NAMES[kind]}")
    return value


_KIND_NAMES = {str: "text", int: "whole number", dict: "JSON object", list: "JSON array"}


def _events(entries: list[Any]) -> tuple[dict[str, Any], ...]:
    """Each entry's event, checked to be numbered 1, 2, ... and to end with ``game_ended``
    (a record is published only once the game is over)."""
    if not entries:
        raise BadRecord("events is empty: a record holds the whole game")
    plains = []
    for n, entry in enumerate(entries, 1):
        if not isinstance(entry, dict) or entry.get("index") != n:
            raise BadRecord(f"events[{n - 1}] must be {{\"index\": {n}, \"event\": …}}")
        plain = entry.get("event")
        if not isinstance(plain, dict) or not isinstance(plain.get("type"), str):
            raise BadRecord(f"event {n} has no type")
        plains.append(plain)
    if plains[-1]["type"] != GAME_ENDED:
        raise BadRecord(f"the last event is {plains[-1]['type']}, not {GAME_ENDED}: "
                        "a record ends with the game's end")
    return tuple(plains)


def _decoded(index: int, plain: dict[str, Any]) -> Event:
    try:
        return event_from_plain(plain)
    except (ValueError, TypeError, KeyError) as error:  # the plain format's FormatError...
        raise BadRecord(f"event {index} ({plain['type']}): {error}") from None
