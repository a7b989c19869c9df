"""Initiative (DIGEST 11.1): a Face to Face WIP roll between the Lieutenants; the winner
keeps Initiative or Deployment and the loser takes the other choice.

Every combination, and only those:

- the winner keeps Initiative and chooses to play first or second (``first``, no zone);
  the loser then chooses its deployment zone and whether it deploys first or second
  (``first`` and ``zone``);
- the winner keeps Deployment and chooses its zone and whether it deploys first or second
  (``first`` and ``zone``); the loser then chooses whether it plays first or second
  (``first``, no zone).

A zone sent with a choice that does not include one is refused (``bad_command``) rather
than ignored: the player would believe it had chosen the zone (docs/rules-decisions/README.md).
"""

from __future__ import annotations

from ..combat.dice import roll_d20
from ..combat.face_to_face import face_to_face
from ..commands import ChooseInitiative, ChooseRemaining
from ..decision import require
from ..events import Event, InitiativeChosen, InitiativeRolled, InitiativeSettled
from ..evolve import replace
from ..ids import Side
from ..reasons import Reason
from ..ruleset import options
from ..state import GameState, Initiative, Phase

MAX_ATTEMPTS = 100
"""A tie or double failure re-rolls; this bounds the loop (the chance of 100 ties is nil)."""


def roll_initiative(state: GameState) -> InitiativeRolled:
    a = state.armies[Side.A].lieutenant.profile.wip
    b = state.armies[Side.B].lieutenant.profile.wip
    convention = options(state.ruleset).crit_convention
    dice = state.dice
    attempts: list[tuple[int, int]] = []
    for _ in range(MAX_ATTEMPTS):
        faces, dice = roll_d20(dice, 2)
        attempts.append((faces[0], faces[1]))
        result = face_to_face(a, faces[:1], b, faces[1:], convention)
        if result.first.scored or result.second.scored:
            winner = Side.A if result.first.scored else Side.B
            return InitiativeRolled(tuple(attempts), (a, b), winner, dice)
    raise RuntimeError("initiative roll-off did not finish")


def apply_initiative_rolled(state: GameState, event: InitiativeRolled) -> GameState:
    rolls = {Side.A: tuple(a for a, _ in event.attempts), Side.B: tuple(b for _, b in event.attempts)}
    return replace(
        state, dice=event.dice.settled(), initiative=Initiative(rolls=rolls, winner=event.winner)
    )


def decide_choose_initiative(
    state: GameState, side: Side, command: ChooseInitiative
) -> list[Event]:
    initiative = state.initiative
    require(
        state.phase is Phase.INITIATIVE and initiative.winner_kept is None,
        Reason.WRONG_PHASE,
        "The Initiative choice is not open.",
    )
    require(side is initiative.winner, Reason.NOT_YOUR_TURN, "The roll-off winner chooses first.")
    if command.keep == "deployment":
        require(
            command.zone is not None,
            Reason.BAD_COMMAND,
            "Keeping Deployment, you also choose your deployment zone (north or south).",
        )
        assert command.zone is not None
        _check_zone(state, command.zone)
    else:
        require(
            command.zone is None,
            Reason.BAD_COMMAND,
            "Keeping Initiative, you choose only whether you play first; your opponent "
            "chooses the deployment zones.",
        )
    return [InitiativeChosen(side, command.keep, command.first, command.zone)]


def decide_choose_remaining(
    state: GameState, side: Side, command: ChooseRemaining
) -> list[Event]:
    initiative = state.initiative
    require(
        state.phase is Phase.INITIATIVE and initiative.winner_kept is not None,
        Reason.WRONG_PHASE,
        "The roll-off winner has not chosen yet.",
    )
    require(side is not initiative.winner, Reason.NOT_YOUR_TURN, "The roll-off loser chooses now.")
    winner = initiative.winner
    assert winner is not None
    if initiative.winner_kept == "initiative":
        require(command.zone is not None, Reason.BAD_COMMAND, "Choose your deployment zone.")
        assert command.zone is not None
        _check_zone(state, command.zone)
        first_player = winner if initiative.first_player is winner else winner.other
        deploys_first = side if command.first else winner
        zones = {side: command.zone, winner: _other_zone(command.zone)}
    else:
        require(
            command.zone is None,
            Reason.BAD_COMMAND,
            "Your opponent kept Deployment and chose the zones; you choose only whether you "
            "play first.",
        )
        first_player = side if command.first else winner
        deploys_first = initiative.deploys_first or winner
        zones = dict(initiative.zones)
    return [InitiativeSettled(first_player, deploys_first, zones)]


def _check_zone(state: GameState, zone: str) -> None:
    require(zone in state.deployment_zones, Reason.BAD_COMMAND, f"This table has no zone '{zone}'.")


def _other_zone(zone: str) -> str:
    return "north" if zone == "south" else "south"


def apply_initiative_chosen(state: GameState, event: InitiativeChosen) -> GameState:
    winner = event.side
    if event.keep == "initiative":
        chosen = replace(
            state.initiative,
            winner_kept="initiative",
            first_player=winner if event.first else winner.other,
        )
    else:
        assert event.zone is not None
        chosen = replace(
            state.initiative,
            winner_kept="deployment",
            deploys_first=winner if event.first else winner.other,
            zones={winner: event.zone, winner.other: _other_zone(event.zone)},
        )
    return replace(state, initiative=chosen)


def apply_initiative_settled(state: GameState, event: InitiativeSettled) -> GameState:
    settled = replace(
        state.initiative,
        first_player=event.first_player,
        deploys_first=event.deploys_first,
        zones=event.zones,
    )
    return replace(state, initiative=settled, phase=Phase.DEPLOYMENT)
