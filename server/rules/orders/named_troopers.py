"""Which trooper ids a command names, and whether its sender may know each of them.

A trooper in Hidden Deployment is Private Information (DIGEST 12): its owner's opponent
must get the same answer for its id as for an id that names nobody, and so must an enemy
not deployed yet (otherwise "not on the table" would tell the two apart). ``decide`` checks
every id a command names before any handler runs, so no handler's own order of checks
can answer "not your trooper", or anything else, for a hidden enemy trooper.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from ..decision import require
from ..ids import Side, TrooperId
from ..reasons import Reason
from ..state import GameState, TrooperState

_ID_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}


def _fields(cls: type) -> tuple[tuple[str, bool], ...]:
    """(name, whether its annotation mentions TrooperId) of each field of a dataclass."""
    found = _ID_FIELDS.get(cls)
    if found is None:
        found = tuple((f.name, "TrooperId" in str(f.type)) for f in dataclasses.fields(cls))
        _ID_FIELDS[cls] = found
    return found


def named_troopers(value: object, is_id: bool = False) -> Iterator[TrooperId]:
    """Every trooper id inside ``value`` (a command, or any dataclass, tuple or list in
    it), found by the fields' annotations."""
    if isinstance(value, str):
        if is_id:
            yield TrooperId(value)
    elif isinstance(value, tuple | list):
        for item in value:
            yield from named_troopers(item, is_id)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for name, mentions in _fields(type(value)):
            yield from named_troopers(getattr(value, name), mentions)


def unknown_to(state: GameState, side: Side, command: object) -> TrooperId | None:
    """The first id the command names that is no trooper ``side`` may know of: none at
    all, or an enemy not on the table (in Hidden Deployment, or not deployed yet)."""
    for trooper_id in named_troopers(command):
        trooper = state.troopers.get(trooper_id)
        if trooper is None or (trooper.side is not side and not trooper.on_table):
            return trooper_id
    return None


def own_trooper(state: GameState, side: Side | None, trooper_id: TrooperId) -> TrooperState:
    """The trooper ``trooper_id`` of ``side``, or the command is refused: ``unknown_trooper``
    when there is none, ``not_your_trooper`` when it is the other side's."""
    trooper = state.troopers.get(trooper_id)
    require(trooper is not None, Reason.UNKNOWN_TROOPER, f"There is no trooper {trooper_id}.")
    assert trooper is not None
    require(trooper.side is side, Reason.NOT_YOUR_TROOPER, "That trooper is not yours.")
    return trooper
