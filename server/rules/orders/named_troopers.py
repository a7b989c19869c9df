"""Which trooper ids a command names, and whether its sender may know each of them.

A trooper in Hidden Deployment is Private Information (DIGEST 12): its owner's opponent
must get the same answer for its id as for an id that names nobody, and so must an enemy
not deployed yet (otherwise "not on the table" would tell the two apart). ``decide`` checks
every id a command names before any handler runs, so no handler's own order of checks
can answer "not your trooper", or anything else, for a hidden enemy trooper.
"""

from __future__ import annotations

import dataclasses

from ..decision import require
from ..ids import Side, TrooperId
from ..reasons import Reason
from ..state import GameState, TrooperState

_ID_FIELDS: dict[type, tuple[tuple[str, bool], ...] | None] = {}
_LEAVES = (int, float, type(None))
"""Values that hold no trooper id (bool is an int; enums of ids are str)."""
_NO_IDS = frozenset({"int", "float", "bool", "str", "int | None", "float | None",
                     "bool | None", "str | None"})
"""Annotations of fields that hold no trooper id: they are not looked into."""


def _fields(cls: type) -> tuple[tuple[str, bool], ...] | None:
    """(name, whether its annotation mentions TrooperId) of each field of a dataclass that
    may hold one; None for a class that is no dataclass."""
    try:
        return _ID_FIELDS[cls]
    except KeyError:
        found = (tuple((f.name, "TrooperId" in str(f.type)) for f in dataclasses.fields(cls)
                       if str(f.type) not in _NO_IDS)
                 if dataclasses.is_dataclass(cls) else None)
        _ID_FIELDS[cls] = found
        return found


def named_troopers(value: object, is_id: bool = False) -> list[TrooperId]:
    """Every trooper id inside ``value`` (a command, or any dataclass, tuple or list in
    it), found by the fields' annotations, in the order they appear."""
    found: list[TrooperId] = []
    _collect(value, is_id, found)
    return found


def _collect(value: object, is_id: bool, found: list[TrooperId]) -> None:
    # Asked of every command a player sends (``unknown_to``): one pass, no generators.
    if isinstance(value, str):
        if is_id:
            found.append(TrooperId(value))
    elif isinstance(value, tuple | list):
        for item in value:
            if not isinstance(item, _LEAVES):  # (a route's coordinates)
                _collect(item, is_id, found)
    elif not isinstance(value, _LEAVES) and not isinstance(value, type):
        fields = _fields(type(value))
        if fields is not None:
            for name, mentions in fields:
                _collect(getattr(value, name), mentions, found)


def unknown_to(state: GameState, side: Side, command: object) -> TrooperId | None:
    """The first id the command names that is no trooper ``side`` may know of: none at
    all, or an enemy not on the table (in Hidden Deployment, or not deployed yet)."""
    troopers = state.troopers
    for trooper_id in named_troopers(command):
        if trooper_id in state.deployables:
            continue  # a Mine on the table: known as a marker is (combat/mines.py)
        trooper = troopers.get(trooper_id)
        if trooper is None or (trooper.side is not side and not trooper.on_table):
            return trooper_id
    return None


def own_trooper(state: GameState, side: Side | None, trooper_id: TrooperId) -> TrooperState:
    """The trooper ``trooper_id`` of ``side``, or the command is refused: ``unknown_trooper``
    when there is none, ``not_your_trooper`` when it is the other side's."""
    trooper = state.troopers.get(trooper_id)
    mine = state.deployables.get(trooper_id)
    # An enemy Mine's marker is answered as an enemy trooper's (combat/mines.py).
    require(mine is None or mine.side is side, Reason.NOT_YOUR_TROOPER, "That trooper is not yours.")
    require(mine is None, Reason.UNKNOWN_TROOPER, "That is one of your Mines, not a trooper.")
    require(trooper is not None, Reason.UNKNOWN_TROOPER, f"There is no trooper {trooper_id}.")
    assert trooper is not None
    require(trooper.side is side, Reason.NOT_YOUR_TROOPER, "That trooper is not yours.")
    return trooper
