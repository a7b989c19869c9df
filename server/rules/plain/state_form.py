"""The game state's plain form, as rooms store it (snapshots, a room's first state): the
generic form (``to_plain(state)``) with each trooper's army list entry written by reference.

A trooper's ``entry`` is almost always the very entry of its side's army list that it was
fielded from, and the army lists are in the state too (``armies``): written in full under
both, the entries (whole unit profiles) were half of a snapshot's bytes. So a trooper whose
entry is its side's army entry with the same id (the same object, or one written the same)
is written with that id as its ``entry`` (text); any other trooper keeps its entry in full
(a map): one changed in play (a new Lieutenant, a Combat Group moved by a Command Token, a
profile changed by a terrain choice), or one its army list does not hold.

Reading takes both: the army lists are read first, a reference is resolved to its army's
entry as read (the same object, as when the state was written) and the state is read as if
written in full, so a state written before references (entries in full, every snapshot
stored until then) and the same state written now read to the same values.

A store may also keep each army list packed by its codec (``state_to_plain`` given ``pack``,
``state_from_plain`` given ``unpack``: ``packed``): the army is then bytes in the plain
data, read once per distinct bytes and shared. Reading takes an army packed or as a map.

And a store may keep the army lists apart from the rest of the state (``state_to_plain``
with ``armies=False``, ``armies_to_plain``): they are three quarters of a state's bytes and
change only during the setup, so a store that writes the state often need not write them
every time. Reading such a form takes the army lists back (``state_from_plain``'s
``armies``).
"""

from __future__ import annotations

import dataclasses
import marshal
from collections.abc import Callable, Mapping
from typing import Any

from ..armies.army_list import ArmyList, ListEntry
from ..ids import Side
from ..state import GameState, TrooperState
from .data import FormatError, Plain
from .decoding import from_plain
from .encoders import dataclass_encoder
from .encoding import converter_of, to_plain
from .hints import hints_of
from .packed import Pack, Unpack, read_packed

__all__ = ["armies_to_plain", "prepare", "state_from_plain", "state_to_plain"]


def state_to_plain(state: GameState, pack: Pack | None = None, *, armies: bool = True
                   ) -> Plain:
    """``state`` as plain data, each trooper's entry by reference where it may be; with
    ``pack`` (a store's codec), each army list packed (``pack(to_plain(army))``, bytes);
    without ``armies``, no army list at all (the store keeps them apart: ``armies_to_plain``,
    and ``state_from_plain`` is given them back)."""
    if not armies:
        plain = _without_armies()(state)
        plain["troopers"] = _troopers_to_plain(state)
        return plain
    plain = _without_troopers()(state)
    plain["troopers"] = _troopers_to_plain(state)
    if pack is not None:
        plain["armies"] = {side: pack(army) for side, army in plain["armies"].items()}
    return plain


def armies_to_plain(state: GameState, pack: Pack | None = None) -> Plain:
    """The state's army lists alone, as ``state_to_plain`` writes them (``armies``)."""
    armies = {side: to_plain(army) for side, army in state.armies.items()}
    return armies if pack is None else {side: pack(army) for side, army in armies.items()}


def _troopers_to_plain(state: GameState) -> dict[str, Plain]:
    armies = {side: _entries_by_id(army) for side, army in state.armies.items()}
    trooper_in_full = converter_of(TrooperState)
    troopers: dict[str, Plain] = {}
    for trooper_id, trooper in state.troopers.items():
        if _is_army_entry(trooper, armies):
            written = _without_entry()(trooper)
            written["entry"] = trooper.entry.id
        else:
            written = trooper_in_full(trooper)
        troopers[str(trooper_id)] = written
    return troopers


def state_from_plain(data: Plain, unpack: Unpack | None = None,
                     armies: Plain | None = None) -> GameState:
    """The state ``data`` holds, in any of its forms (``FormatError`` if it holds none);
    ``unpack`` (a store's codec) reads army lists written packed; ``armies``: the army
    lists of a state written without them (``armies_to_plain``), taken when ``data`` has
    none of its own."""
    if armies is not None and isinstance(data, dict) and "armies" not in data:
        data = {**data, "armies": armies}
    if isinstance(data, dict):
        armies = data.get("armies")
        read = _armies_read(armies, unpack) if isinstance(armies, dict) else {}
        troopers = data.get("troopers")
        put_back = _entries_put_back(read, troopers) if isinstance(troopers, dict) else None
        if read or put_back is not None:
            data = {**data}
            if read:
                data["armies"] = read
            if put_back is not None:
                data["troopers"] = put_back
    return from_plain(GameState, data)


def prepare() -> None:
    """Make now the encoders ``state_to_plain`` makes at its first use (``engine.prepare``)."""
    _without_troopers()
    _without_armies()
    _without_entry()


# --- writing -------------------------------------------------------------------------------


def _entries_by_id(army: ArmyList) -> dict[str, ListEntry]:
    """The army's entries by id, the first of an id winning (as ``ArmyList.entry`` and the
    reader take it)."""
    entries: dict[str, ListEntry] = {}
    for entry in army.entries:
        entries.setdefault(entry.id, entry)
    return entries


def _is_army_entry(trooper: TrooperState, armies: Mapping[Side, Mapping[str, ListEntry]]
                   ) -> bool:
    army = armies.get(trooper.side)
    if army is None:
        return False
    listed = army.get(trooper.entry.id)
    if listed is None:
        return False
    if listed is trooper.entry:
        return True
    # Equal is not enough: 1 == 1.0 and 0.0 == -0.0, yet they are written (and read back)
    # differently; a reference must read back exactly what the entry in full would.
    return listed == trooper.entry and _written_alike(listed, trooper.entry)


def _written_alike(one: ListEntry, other: ListEntry) -> bool:
    return marshal.dumps(to_plain(one), 2) == marshal.dumps(to_plain(other), 2)


def _encoder_without(cls: type, *left_out: str) -> Callable[[Any], dict[str, Plain]]:
    """The generated encoder of ``cls`` (``encoders``) with fields ``left_out`` not written:
    generated from a dataclass with ``cls``'s other fields, it reads them by name from a
    ``cls`` value."""
    hints = hints_of(cls)
    others = dataclasses.make_dataclass(
        f"{cls.__name__}Without_{'_'.join(left_out)}",
        [(field.name, hints[field.name]) for field in dataclasses.fields(cls)
         if field.name not in left_out])
    return dataclass_encoder(others, None, to_plain, converter_of)


_ENCODERS: dict[str, Callable[[Any], dict[str, Plain]]] = {}


def _without_troopers() -> Callable[[GameState], dict[str, Plain]]:
    encoder = _ENCODERS.get("troopers")
    if encoder is None:
        encoder = _ENCODERS["troopers"] = _encoder_without(GameState, "troopers")
    return encoder


def _without_armies() -> Callable[[GameState], dict[str, Plain]]:
    """The state's encoder without its troopers (written by ``_troopers_to_plain``) and
    without its army lists."""
    encoder = _ENCODERS.get("armies")
    if encoder is None:
        encoder = _ENCODERS["armies"] = _encoder_without(GameState, "troopers", "armies")
    return encoder


def _without_entry() -> Callable[[TrooperState], dict[str, Plain]]:
    encoder = _ENCODERS.get("entry")
    if encoder is None:
        encoder = _ENCODERS["entry"] = _encoder_without(TrooperState, "entry")
    return encoder


# --- reading -------------------------------------------------------------------------------


def _armies_read(armies: dict[Any, Plain], unpack: Unpack | None) -> dict[Any, ArmyList]:
    """Each side's army list, read ahead of the state: the state's decoder takes them as
    they are (a value of the field's class), and the troopers written by reference take
    their entries from them, the very entry objects of the army, not their plain form read
    again per trooper."""
    return {side: _army_read(army, unpack, f"armies.{side}") for side, army in armies.items()}


def _army_read(army: Plain, unpack: Unpack | None, path: str) -> ArmyList:
    if army.__class__ is bytes:
        if unpack is None:
            raise FormatError(path, "is packed, and the reader was given no codec to unpack it")
        return read_packed(ArmyList, army, unpack, path)
    return from_plain(ArmyList, army, path)


def _entries_put_back(armies: Mapping[Any, ArmyList], troopers: dict[str, Plain]
                      ) -> dict[str, Plain] | None:
    """``troopers`` with each reference replaced by the entry it names (``armies``' own
    entry, as read); None if there is none."""
    listed: dict[Any, dict[str, ListEntry]] = {}
    out: dict[str, Plain] = {}
    referenced = False
    for key, trooper in troopers.items():
        reference = trooper.get("entry") if isinstance(trooper, dict) else None
        if not isinstance(reference, str):
            out[key] = trooper
            continue
        side = trooper.get("side")
        entries = listed.get(side)
        if entries is None:
            army = armies.get(side) if isinstance(side, str) else None
            entries = listed[side] = {} if army is None else _entries_by_id(army)
        entry = entries.get(reference)
        if entry is None:
            raise FormatError(f"troopers.{key}.entry",
                              f"names entry {reference!r}, which side {side!r}'s army does "
                              f"not hold")
        out[key] = {**trooper, "entry": entry}
        referenced = True
    return out if referenced else None
