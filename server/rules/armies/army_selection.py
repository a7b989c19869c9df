"""Choosing an army: each player picks one of the sample lists for the game's format."""

from __future__ import annotations

import base64
import hashlib
import hmac

from ..combat.dice import CONTRIBUTION_BYTES, is_hex_octets
from ..commands import ChooseArmy
from ..decision import require
from ..events import ArmyChosen, Event
from ..evolve import replace
from ..ids import Side, TrooperId
from ..reasons import Reason
from ..ruleset import Ruleset
from ..state import GameState, Phase, TrooperState
from .army_catalogue import sample_armies
from .army_list import ArmyList, ListFormat


def list_format_for(ruleset: Ruleset) -> ListFormat:
    return ListFormat.CODEONE if ruleset is Ruleset.CODEONE else ListFormat.STANDARD


def decide_choose_army(state: GameState, side: Side, command: ChooseArmy) -> list[Event]:
    require(state.phase is Phase.ARMY_SELECTION, Reason.WRONG_PHASE, "Armies are already chosen.")
    require(side not in state.armies, Reason.ALREADY_CHOSEN, "You have already chosen an army.")
    army = sample_armies().get(command.army)
    require(army is not None, Reason.UNKNOWN_ARMY, f"There is no army list '{command.army}'.")
    assert army is not None
    registered = state.registered_armies.get(side)
    require(registered is None or army.id == registered, Reason.ARMY_NOT_REGISTERED,
            f"This table is for your registered army, {_army_name(registered)}.")
    wanted = list_format_for(state.ruleset)
    require(
        army.format is wanted,
        Reason.UNKNOWN_ARMY,
        f"'{army.name}' is a {army.format.value} list; this game needs a {wanted.value} list.",
    )
    require(
        is_hex_octets(command.entropy, CONTRIBUTION_BYTES),
        Reason.BAD_COMMAND,
        "entropy must be 32 random bytes written as 64 lowercase hexadecimal characters.",
    )
    return [ArmyChosen(side, army, random_ids(army, side, state.id_key), command.entropy)]


def _army_name(army_id: str | None) -> str:
    army = sample_armies().get(army_id or "")
    return army.name if army is not None else str(army_id)


ID_LETTERS = 8
"""Base32 letters of a trooper id after its side: 40 bits, so ids never repeat in a list."""


def random_ids(army: ArmyList, side: Side, id_key: str) -> tuple[tuple[str, TrooperId], ...]:
    """An opaque id per list entry, e.g. ``"B-q4xk2mzd"``: HMAC of the entry under the
    room's ``id_key`` (random per room, independent of the dice), so ids follow no order or
    numbering and the opponent cannot tell from the ids it sees which ones it does not.
    The event records them, so replays do not recompute them."""
    key = bytes.fromhex(id_key)
    taken: set[str] = set()
    ids: list[tuple[str, TrooperId]] = []
    for entry in army.entries:
        digest = hmac.new(key, f"{side.value}:{entry.id}".encode(), hashlib.sha256).digest()
        letters = base64.b32encode(digest).decode().lower()
        size = ID_LETTERS
        while letters[:size] in taken:  # 1 in 10^11 for a list of 15: still never ambiguous
            size += 1
        taken.add(letters[:size])
        ids.append((entry.id, TrooperId(f"{side.value}-{letters[:size]}")))
    return tuple(ids)


def apply_army_chosen(state: GameState, event: ArmyChosen) -> GameState:
    troopers = dict(state.troopers)
    for entry_id, trooper_id in event.trooper_ids:
        troopers[trooper_id] = TrooperState(trooper_id, event.side, event.army.entry(entry_id))
    armies = {**state.armies, event.side: event.army}
    phase = Phase.INITIATIVE if len(armies) == 2 else state.phase
    source = state.dice_source.contributed(event.side, event.entropy)
    dice = replace(state.dice, key=source.key())
    return replace(state, armies=armies, troopers=troopers, phase=phase, dice_source=source,
                   dice=dice)


def entry_trooper(state: GameState, side: Side, entry_id: str) -> TrooperState:
    return next(t for t in state.troopers_of(side) if t.entry.id == entry_id)
