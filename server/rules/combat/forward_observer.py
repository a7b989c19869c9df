"""Forward Observer (the Infinity wiki's N5 page "Forward Observer"; DIGEST 8, 13).

A Forward Observer (``UnitProfile.forward_observer``) marks one enemy it has Line of Fire
to: an Attack with a BS Weapon that uses WIP (Short Skill, or ARO), Burst 2 in the Active
Turn and 1 in ARO, with its own range MODs (0 up to 24", -3 up to 48", -6 up to 96"). It is
planned as a BS Attack on one target (range band, Partial Cover, Mimetism and the target's
Targeted +3 read as for any BS Attack; Face to Face with the target's Dodge or attack back);
each surviving success makes the target Targeted instead of forcing a Saving Roll
(``TargetedSet`` with ``program`` ``"forward_observer"``). It needs no Hacker, no Comms:
being Isolated does not stop it (the page names no such restriction).
"""

from __future__ import annotations

from ..armies.skills import ForwardObserver
from ..armies.weapons import RangeBand, Weapon, WeaponKind
from ..decision import require
from ..ids import TrooperId, WeaponId
from ..reasons import Reason
from ..state import GameState, TrooperState
from ..table.geometry import Body
from .camouflage import camouflaged
from .mods import bs_attack_mods, sees
from .outcome import Effect, RollRecord, TargetedSet
from .plan import Plan, PlannedRoll
from .skill_plans import idle

SKILL = "forward_observer"
FORWARD_OBSERVER = Weapon(
    id=WeaponId(SKILL), name="Forward Observer", kind=WeaponKind.BALLISTIC, burst=2, ps=0,
    ammo="N", ranges=(RangeBand(24.0, 0), RangeBand(48.0, -3), RangeBand(96.0, -6)),
)
"""The skill as its weapon chart line: only its Burst and range bands are read (no save)."""


def check_forward_observer(trooper: TrooperState) -> None:
    require(trooper.profile.forward_observer, Reason.SKILL_NOT_ALLOWED,
            f"{trooper.profile.name} is not a Forward Observer.")


def planned_forward_observer(state: GameState, observer: TrooperState, skill: ForwardObserver,
                             shooter: Body, victim: Body, burst: int, active: bool) -> Plan:
    """The WIP roll marking ``skill.target`` seen at ``victim``, or the Idle it becomes."""
    target = state.troopers.get(skill.target)
    if target is None or not target.on_table or target.side is observer.side:
        return idle(observer, skill, "target_not_enemy")
    if target.is_null:
        return idle(observer, skill, "target_null")
    if not sees(state, observer, shooter, target, victim):
        return idle(observer, skill, "no_line_of_fire")
    shot = bs_attack_mods(FORWARD_OBSERVER, target, shooter, victim, state.table)
    roll = PlannedRoll(
        trooper=observer.id, active=active, skill=SKILL, target=target.id, weapon=None,
        attribute="WIP", base=observer.profile.wip, mods=shot.mods, burst=burst,
        out_of_range=shot.out_of_range, partial_cover=shot.partial_cover,
        against_marker=camouflaged(state, target.id), range=shot.range,
    )
    return Plan(rolls=(roll,))


def marks(state: GameState, rolls: list[tuple[PlannedRoll, RollRecord]]) -> tuple[Effect, ...]:
    """Targeted for every trooper a Forward Observer roll scored on (no save), unless it is
    already Targeted or Null by then."""
    marked: set[TrooperId] = {t.id for t in state.troopers.values() if t.targeted}
    effects: list[Effect] = []
    for planned, record in rolls:
        if planned.skill != SKILL or planned.target is None:
            continue
        if record.successes + record.criticals == 0 or planned.target in marked:
            continue
        if state.trooper(planned.target).is_null:
            continue
        marked.add(planned.target)
        effects.append(TargetedSet(planned.target, SKILL))
    return tuple(effects)
