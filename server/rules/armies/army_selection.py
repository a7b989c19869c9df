"""Choosing an army: a shipped sample list, a list the player brings (an army document, or
an army code the server's edge expanded into one), or the list a tournament table holds the
seat to; then, when either list carries items the referee does not play, both players
accept them before the game starts (docs/armies.md, "Bringing your own list")."""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping

from ..combat.dice import CONTRIBUTION_BYTES, is_hex_octets
from ..commands import AcceptArmies, ChooseArmy
from ..decision import Rejection, require
from ..events import ArmiesAccepted, ArmyChosen, Event
from ..evolve import replace
from ..ids import Side, TrooperId
from ..reasons import Reason
from ..ruleset import Ruleset
from ..state import GameState, Phase, TrooperState
from .army_catalogue import load_weapons, sample_armies
from .army_list import ArmyList, ArmyListError, ListFormat, load_army_list

NO_ARMY_DATA_MESSAGE = (
    "This server has no army data, so it cannot read army codes. Bring the list as a list "
    "file instead, or ask the server's operator to add the army builder's data "
    "(REFEREE_ARMY_DATA, see docs/armies.md).")


def list_format_for(ruleset: Ruleset) -> ListFormat:
    return ListFormat.CODEONE if ruleset is Ruleset.CODEONE else ListFormat.STANDARD


def decide_choose_army(state: GameState, side: Side, command: ChooseArmy) -> list[Event]:
    require(state.phase is Phase.ARMY_SELECTION, Reason.WRONG_PHASE, "Armies are already chosen.")
    require(side not in state.armies, Reason.ALREADY_CHOSEN, "You have already chosen an army.")
    given = [value for value in (command.army, command.list, command.code) if value is not None]
    require(len(given) == 1, Reason.BAD_COMMAND,
            "Choose an army with exactly one of: army (a list's id), list (an army document) "
            "or code (an army code).")
    # A code reaches the rules only when the edge had no data to expand it with.
    require(command.code is None, Reason.NO_ARMY_DATA, NO_ARMY_DATA_MESSAGE)
    army = _brought(command, side, state) if command.list is not None else _named(
        command.army or "", side, state)
    wanted = list_format_for(state.ruleset)
    require(
        army.format is wanted,
        _unfit(command),
        f"'{army.name}' is a {army.format.value} list; this game needs a {wanted.value} list.",
    )
    _require_same_limit(state, side, army, command)
    require(
        is_hex_octets(command.entropy, CONTRIBUTION_BYTES),
        Reason.BAD_COMMAND,
        "entropy must be 32 random bytes written as 64 lowercase hexadecimal characters.",
    )
    army = replace(army, source=_source(command, side, state))
    return [ArmyChosen(side, army, random_ids(army, side, state.id_key), command.entropy)]


def _source(command: ChooseArmy, side: Side, state: GameState) -> str:
    if command.list is not None:
        return "code" if command.from_code else "list"
    return "registered" if side in state.registered_lists else "shipped"


def _unfit(command: ChooseArmy) -> Reason:
    """The reason a legal list unfit for this game is refused with: a shipped list the seat
    named is one the game cannot take (``unknown_army``); a brought one is a bad list."""
    return Reason.UNKNOWN_ARMY if command.army is not None else Reason.BAD_ARMY_LIST


def _require_same_limit(state: GameState, side: Side, army: ArmyList, command: ChooseArmy) -> None:
    """Both lists of a game are built to one points limit (DIGEST 3.2: the players agree the
    game's size), or Victory Points and Retreat! (25% of the limit) would compare unlike
    games. A tournament table is exempt: the tournament set the limit its lists keep under."""
    other = state.armies.get(side.other)
    if other is None or state.registered_armies:
        return
    require(
        army.points == other.points,
        _unfit(command),
        f"'{army.name}' is built to {army.points} points, your opponent's list to "
        f"{other.points}: both lists of a game are built to the same points limit.",
    )


def _named(army_id: str, side: Side, state: GameState) -> ArmyList:
    registered = state.registered_armies.get(side)
    army = state.registered_lists.get(side) if registered == army_id else None
    army = army or sample_armies().get(army_id)
    require(army is not None, Reason.UNKNOWN_ARMY, f"There is no army list '{army_id[:60]}'.")
    assert army is not None
    require(registered is None or army.id == registered, Reason.ARMY_NOT_REGISTERED,
            f"This table is for your registered army, {_army_name(state, side)}.")
    return army


def _brought(command: ChooseArmy, side: Side, state: GameState) -> ArmyList:
    require(side not in state.registered_armies, Reason.ARMY_NOT_REGISTERED,
            f"This table is for your registered army, {_army_name(state, side)}.")
    try:
        return load_army_list(command.list, load_weapons())
    except ArmyListError as error:
        raise Rejection(Reason.BAD_ARMY_LIST, _first(error)) from None


def _first(error: ArmyListError) -> str:
    more = len(error.problems) - 1
    return error.problems[0] + (f" ({more} more problem{'s' if more > 1 else ''} after it.)"
                                if more else "")


def _army_name(state: GameState, side: Side) -> str:
    army_id = state.registered_armies.get(side, "")
    army = state.registered_lists.get(side) or sample_armies().get(army_id)
    return army.name if army is not None else army_id


def needs_review(armies: Mapping[Side, ArmyList]) -> bool:
    """Whether either chosen list carries items the referee does not play, which both
    players accept before the game starts."""
    return any(entry.not_refereed for army in armies.values() for entry in army.entries)


def decide_accept_armies(state: GameState, side: Side, command: AcceptArmies) -> list[Event]:
    require(state.phase is Phase.ARMY_SELECTION, Reason.WRONG_PHASE,
            "The lists were accepted already: the game has begun.")
    require(len(state.armies) == 2, Reason.WRONG_PHASE,
            "Both armies must be chosen before you accept them.")
    require(side not in state.armies_accepted, Reason.ALREADY_CHOSEN,
            "You have already accepted the lists.")
    return [ArmiesAccepted(side)]


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
    begins = len(armies) == 2 and not needs_review(armies)
    phase = Phase.INITIATIVE if begins else state.phase
    source = state.dice_source.contributed(event.side, event.entropy)
    dice = replace(state.dice, key=source.key())
    return replace(state, armies=armies, troopers=troopers, phase=phase, dice_source=source,
                   dice=dice)


def apply_armies_accepted(state: GameState, event: ArmiesAccepted) -> GameState:
    accepted = state.armies_accepted | {event.side}
    phase = Phase.INITIATIVE if len(accepted) == 2 else state.phase
    return replace(state, armies_accepted=accepted, phase=phase)


def entry_trooper(state: GameState, side: Side, entry_id: str) -> TrooperState:
    return next(t for t in state.troopers_of(side) if t.entry.id == entry_id)
