"""Chain of Command (N5 Special Skill, Automatic; infinitythewiki "Chain of Command").

At the start of its player's Loss of Lieutenant check (the Tactical Phase,
``game_sequence.tactical_phase``), when the Lieutenant is Isolated or in a Null State (or
gone from the table), a trooper with Chain of Command that is on the table as a Model or a
Marker (not in Hidden or Airborne Deployment), not Isolated and not in a Null State
becomes the Lieutenant, with no extra abilities, and the check passes: no Loss of
Lieutenant. It stays the Lieutenant even if the old one recovers (the old one is no longer
the Lieutenant). With several able, the one with the highest WIP (then the lowest id) takes
over (docs/rules-decisions/README.md "Chain of Command").

Private Information: who the Lieutenant is. ``chain_of_command_took_over`` is its owner's
only (``views``); the opponent sees no Loss of Lieutenant, as when the Lieutenant stands,
and the Order Count still shows only that a Lieutenant exists.
"""

from __future__ import annotations

from ..events import ChainOfCommandTookOver
from ..evolve import replace
from ..ids import Side
from ..state import GameState, TrooperState


def may_take_over(trooper: TrooperState) -> bool:
    """Has Chain of Command, stands on the table (Model or Marker), not Isolated or Null."""
    return (trooper.profile.chain_of_command and trooper.can_act and not trooper.isolated
            and not trooper.entry.lieutenant)


def successor(state: GameState, side: Side) -> TrooperState | None:
    """The trooper whose Chain of Command takes over now, or None."""
    able = [t for t in state.troopers_of(side) if may_take_over(t)]
    if not able:
        return None
    return max(able, key=lambda t: (t.profile.wip, [-ord(c) for c in t.id]))


def take_over(state: GameState, side: Side) -> ChainOfCommandTookOver | None:
    """The event replacing the Loss of Lieutenant, when a Chain of Command user takes over."""
    found = successor(state, side)
    return ChainOfCommandTookOver(side, found.id) if found is not None else None


def apply_chain_of_command_took_over(state: GameState, event: ChainOfCommandTookOver) -> GameState:
    troopers = dict(state.troopers)
    for t in state.troopers_of(event.side):
        if t.entry.lieutenant:
            troopers[t.id] = replace(t, entry=replace(t.entry, lieutenant=False))
    new = troopers[event.trooper]
    troopers[new.id] = replace(new, entry=replace(new.entry, lieutenant=True))
    return replace(state, troopers=troopers)
