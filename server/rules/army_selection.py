"""Choosing an army: each player picks one of the sample lists for the game's format."""

from __future__ import annotations

import hashlib

from .army_catalogue import sample_armies
from .army_list import ArmyList, ListFormat
from .commands import ChooseArmy
from .decision import require
from .events import ArmyChosen, Event
from .evolve import replace
from .ids import Side, TrooperId
from .reasons import Reason
from .ruleset import Ruleset
from .state import GameState, Phase, TrooperState


def list_format_for(ruleset: Ruleset) -> ListFormat:
    return ListFormat.CODEONE if ruleset is Ruleset.CODEONE else ListFormat.STANDARD


def decide_choose_army(state: GameState, side: Side, command: ChooseArmy) -> list[Event]:
    require(state.phase is Phase.ARMY_SELECTION, Reason.WRONG_PHASE, "Armies are already chosen.")
    require(side not in state.armies, Reason.ALREADY_CHOSEN, "You have already chosen an army.")
    army = sample_armies().get(command.army)
    require(army is not None, Reason.UNKNOWN_ARMY, f"There is no army list '{command.army}'.")
    assert army is not None
    wanted = list_format_for(state.ruleset)
    require(
        army.format is wanted,
        Reason.UNKNOWN_ARMY,
        f"'{army.name}' is a {army.format.value} list; this game needs a {wanted.value} list.",
    )
    return [ArmyChosen(side, army, shuffled_ids(army, side, state.dice.seed))]


def shuffled_ids(army: ArmyList, side: Side, seed: int) -> tuple[tuple[str, TrooperId], ...]:
    """Game ids in an order unrelated to the list, so that a marker's id reveals nothing.

    The order comes from a hash of the game's seed (kept secret from clients), so it is
    reproducible; the event records the result, so replays do not recompute it.
    """

    def key(entry_id: str) -> bytes:
        return hashlib.blake2b(f"{seed}:{side.value}:{entry_id}".encode(), digest_size=8).digest()

    order = sorted((entry.id for entry in army.entries), key=key)
    return tuple((entry_id, TrooperId(f"{side.value}-{n}")) for n, entry_id in enumerate(order, 1))


def apply_army_chosen(state: GameState, event: ArmyChosen) -> GameState:
    troopers = dict(state.troopers)
    for entry_id, trooper_id in event.trooper_ids:
        troopers[trooper_id] = TrooperState(trooper_id, event.side, event.army.entry(entry_id))
    armies = {**state.armies, event.side: event.army}
    phase = Phase.INITIATIVE if len(armies) == 2 else state.phase
    return replace(state, armies=armies, troopers=troopers, phase=phase)


def entry_trooper(state: GameState, side: Side, entry_id: str) -> TrooperState:
    return next(t for t in state.troopers_of(side) if t.entry.id == entry_id)
