"""Activating a mission marker (a console, an antenna) and the OP it scores (``ActivateMarker``).

* **Declaration** (a Short Skill, ``declare_skill`` with ``{"type": "activate", "marker":
  ...}``; not an ARO): the trooper is on the table, in base contact with the marker where
  it stands when it declares (after a movement declared first in the same Order), the
  marker is one an objective of the mission activates, the trooper is a Specialist
  (``UnitProfile.is_specialist``) when the objective asks for one, and its side has not
  activated that marker yet (in the game, or in this Game Round when the objective allows
  one activation per round). Each refusal has its reason code (``check_activation``): all
  of it is open information (the markers' places are public), so nothing is left to a
  Requirement found at Resolution.
* **Resolution**: a Normal WIP Roll (the trooper's state MODs, e.g. Stunned, apply as to
  any roll). Passed: ``ObjectiveActivated`` follows the Order's ``order_resolved``. Failed:
  nothing, and the trooper may try again with another Short Skill.
* **Scoring** (``awards``): ``op`` per activation, at the end of the Game Round it was made
  in (``when`` "round_end") or at the end of the game, every activation of the game.

A marker is a game element that blocks nothing: no Line of Fire, no movement, no cover (it
is never among the table's terrain or bodies). Base contact is judged against a marker the
size of a Silhouette 2 base, the size of the other markers this engine places
(``state.MARKER_SILHOUETTE``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..armies.skills import ActivateObjective
from ..combat.outcome import Outcome
from ..combat.plan import Plan, PlannedRoll
from ..combat.skill_plans import idle
from ..decision import require
from ..events import ObjectiveActivated
from ..evolve import replace
from ..ids import Side
from ..reasons import Reason
from ..state import MARKER_SILHOUETTE, ActiveOrder, GameState, ObjectiveActivation, TrooperState
from ..table.geometry import Body, in_base_contact
from .mission import ROUND_END, ActivateMarker, Mission, MissionMarker


def objective_for(mission: Mission | None, marker_id: str) -> ActivateMarker | None:
    """The objective under whose terms ``marker_id`` is activated, or None."""
    if mission is None:
        return None
    return next((o for o in mission.objectives
                 if isinstance(o, ActivateMarker) and marker_id in o.markers), None)


def marker_body(marker: MissionMarker) -> Body:
    return Body(marker.position, 0.0, MARKER_SILHOUETTE, True)


def activated(state: GameState, side: Side, marker_id: str, round_only: bool) -> bool:
    """Whether ``side`` activated ``marker_id`` already (in this Game Round only, when
    ``round_only``)."""
    return any(a.side is side and a.marker == marker_id
               and (not round_only or a.round == state.round)
               for a in state.objective_activations)


def check_activation(state: GameState, trooper: TrooperState, skill: ActivateObjective) -> None:
    """The declaration's checks (rejections with their reason codes)."""
    mission = state.mission
    marker = mission.marker(skill.marker) if mission is not None else None
    objective = objective_for(mission, skill.marker)
    require(marker is not None and objective is not None, Reason.NO_SUCH_MARKER,
            "There is no mission marker to activate by that name."
            if mission is not None else "This game is played without a mission: there is "
            "nothing to activate.")
    assert marker is not None and objective is not None
    require(trooper.on_table, Reason.TROOPER_NOT_ON_TABLE,
            f"{trooper.profile.name} is not on the table.")
    require(not objective.specialists_only or trooper.profile.is_specialist,
            Reason.NOT_A_SPECIALIST,
            f"Only a Specialist trooper may activate the {marker.name}; "
            f"{trooper.profile.name} is not one.")
    require(not activated(state, trooper.side, marker.id, objective.per_round),
            Reason.ALREADY_ACTIVATED,
            f"Your side already activated the {marker.name} "
            + ("this Game Round." if objective.per_round else "in this game."))
    require(in_base_contact(trooper.body(), marker_body(marker)), Reason.NOT_IN_BASE_CONTACT,
            f"{trooper.profile.name} is not in base contact with the {marker.name}.")


def planned_activation(state: GameState, trooper: TrooperState, skill: ActivateObjective) -> Plan:
    """The WIP Roll the declaration makes at Resolution, or the Idle it becomes if the
    marker is no longer one its side may activate (another trooper of the same Order
    activated it first)."""
    mission = state.mission
    marker = mission.marker(skill.marker) if mission is not None else None
    objective = objective_for(mission, skill.marker)
    if marker is None or objective is None or not trooper.on_table:
        return idle(trooper, skill, "no_such_marker")
    if activated(state, trooper.side, marker.id, objective.per_round):
        return idle(trooper, skill, "already_activated")
    if not in_base_contact(trooper.body(), marker_body(marker)):
        return idle(trooper, skill, "not_in_base_contact")
    return Plan(rolls=(PlannedRoll(trooper=trooper.id, active=True, skill="activate",
                                   target=None, weapon=None, attribute="WIP",
                                   base=trooper.profile.wip, mods=(), burst=1),))


def activations_resolved(state: GameState, order: ActiveOrder,
                         outcome: Outcome) -> list[ObjectiveActivated]:
    """The markers the Order's passed Activate rolls activated (``state``: before the
    Order's Resolution), each once per side."""
    found: list[ObjectiveActivated] = []
    for record in outcome.rolls:
        if record.skill != "activate" or record.successes + record.criticals == 0:
            continue
        skill = next((s for s in order.for_trooper(record.trooper).skills
                      if isinstance(s, ActivateObjective)), None)
        if skill is None:
            continue
        side = state.trooper(record.trooper).side
        if any(e.side is side and e.marker == skill.marker for e in found):
            continue
        found.append(ObjectiveActivated(side, record.trooper, skill.marker, state.round))
    return found


def apply_objective_activated(state: GameState, event: ObjectiveActivated) -> GameState:
    done = ObjectiveActivation(event.side, event.marker, event.round, event.trooper)
    return replace(state, objective_activations=(*state.objective_activations, done))


def awards(state: GameState, objective: ActivateMarker,
           when: str) -> Sequence[tuple[Side, int, str]]:
    """(side, OP, reason) for each side that scores ``objective`` now."""
    if objective.when != when:
        return ()
    mission = state.mission
    assert mission is not None
    out = []
    for side in (Side.A, Side.B):
        done = [a for a in state.objective_activations
                if a.side is side and a.marker in objective.markers
                and (when != ROUND_END or a.round == state.round)]
        if not done:
            continue
        names = [m.name if (m := mission.marker(a.marker)) is not None else a.marker
                 for a in done]
        count = len(done)
        what = f"{count} activation{'s' if count > 1 else ''}"
        span = " this Game Round" if when == ROUND_END else ""
        out.append((side, objective.op * count,
                    f"{what}{span} ({', '.join(names)})"))
    return out
