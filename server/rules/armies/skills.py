"""The skill catalogue and the declarations a player makes with them.

Categories follow the seeds (Trooper Activation, "Structure of an Order"): Short Movement
Skills, Short Skills and Entire Order Skills; ARO use follows DIGEST 4.2 and 9. A
declaration carries every detail fixed at declaration time (route, weapon, targets, firing
point, Burst split), as the seeds require.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from ..ids import TrooperId, WeaponId
from ..plain import Tagged
from ..table.geometry import Point


class SkillCategory(StrEnum):
    SHORT_MOVEMENT = "short_movement"
    SHORT = "short"
    ENTIRE_ORDER = "entire_order"
    AUTOMATIC = "automatic"


@dataclass(frozen=True, slots=True)
class SkillInfo:
    """What the rules say about a skill, independent of any declaration."""

    name: str
    category: SkillCategory
    usable_in_aro: bool
    usable_in_active_turn: bool
    moves_trooper: bool
    is_attack: bool


SKILLS: dict[str, SkillInfo] = {
    info.name: info
    for info in (
        SkillInfo("move", SkillCategory.SHORT_MOVEMENT, False, True, True, False),
        SkillInfo("discover", SkillCategory.SHORT_MOVEMENT, True, True, False, False),
        SkillInfo("idle", SkillCategory.SHORT_MOVEMENT, False, True, False, False),
        SkillInfo("bs_attack", SkillCategory.SHORT, True, True, False, True),
        SkillInfo("cc_attack", SkillCategory.SHORT, True, True, False, True),
        SkillInfo("dodge", SkillCategory.SHORT, True, True, False, False),
        SkillInfo("reset", SkillCategory.SHORT, True, True, False, False),
        SkillInfo("comms_attack", SkillCategory.SHORT, True, True, False, True),
        # Specialist troopers (combat/support_skills.py): Short Skills, not AROs (DIGEST 4.2).
        SkillInfo("doctor", SkillCategory.SHORT, False, True, False, False),
        SkillInfo("paramedic", SkillCategory.SHORT, False, True, False, False),
        SkillInfo("engineer", SkillCategory.SHORT, False, True, False, False),
        # Forward Observer (combat/forward_observer.py): a Short Skill or ARO, an Attack.
        SkillInfo("forward_observer", SkillCategory.SHORT, True, True, False, True),
        # Place Deployable (combat/mines.py): a Short Skill or ARO (the wiki's "Place
        # Deployable"; in ARO in Silhouette contact where the trooper stands, LoF needed).
        SkillInfo("place_deployable", SkillCategory.SHORT, True, True, False, False),
        # Activate (missions/consoles.py): a mission marker in base contact, a WIP Roll; a
        # Short Skill, not an ARO.
        SkillInfo("activate", SkillCategory.SHORT, False, True, False, False),
        SkillInfo("jump", SkillCategory.ENTIRE_ORDER, False, True, True, False),
        SkillInfo("climb", SkillCategory.ENTIRE_ORDER, False, True, True, False),
        SkillInfo("cautious_move", SkillCategory.ENTIRE_ORDER, False, True, True, False),
        SkillInfo("suppressive_fire", SkillCategory.ENTIRE_ORDER, False, True, False, False),
        # Berserk (orders/berserk.py): a Long Skill (an Entire Order here), Move + CC Attack.
        SkillInfo("berserk", SkillCategory.ENTIRE_ORDER, False, True, True, True),
        # Declared only by the ``combat_jump`` command (``orders/airborne.py``), never by
        # ``declare_skill``: hence not "usable in the active turn" as a declaration.
        SkillInfo("combat_jump", SkillCategory.ENTIRE_ORDER, False, False, True, False),
        SkillInfo("alert", SkillCategory.AUTOMATIC, False, False, False, False),
        # Classified Objectives (missions/classified.py): a card's Short Skill, not an ARO.
        SkillInfo("classified_action", SkillCategory.SHORT, False, True, False, False),
    )
}


@dataclass(frozen=True, slots=True)
class BurstAssignment:
    """Part of a BS Attack's Burst given to one target."""

    trooper: TrooperId
    burst: int


class Skill(Tagged):
    """A declared skill with all its details. Subclasses are the catalogue's skills."""

    @property
    def info(self) -> SkillInfo:
        return SKILLS[self.TYPE]


@dataclass(frozen=True, slots=True)
class Move(Skill):
    TYPE: ClassVar[str] = "move"
    route: tuple[Point, ...]
    facing: float | None = None
    """Facing at the end of the route (default: the direction of its last segment)."""


@dataclass(frozen=True, slots=True)
class CautiousMove(Skill):
    TYPE: ClassVar[str] = "cautious_move"
    route: tuple[Point, ...]
    facing: float | None = None
    """Facing at the end of the route (default: the direction of its last segment)."""


@dataclass(frozen=True, slots=True)
class Jump(Skill):
    TYPE: ClassVar[str] = "jump"
    route: tuple[Point, ...]
    facing: float | None = None
    """Facing at the end of the route (default: the direction of its last segment)."""


@dataclass(frozen=True, slots=True)
class Climb(Skill):
    TYPE: ClassVar[str] = "climb"
    route: tuple[Point, ...]
    facing: float | None = None
    """Facing at the end of the route (default: the direction of its last segment)."""


@dataclass(frozen=True, slots=True)
class Discover(Skill):
    TYPE: ClassVar[str] = "discover"
    target: TrooperId
    target_point: Point | None = None
    """In ARO: the point of the active trooper's path it is taken against (default: last
    point of the path where the reacting trooper sees it)."""


@dataclass(frozen=True, slots=True)
class PlaceDeployable(Skill):
    """Place Deployable (``combat/mines.py``): one of the trooper's Mines at ``position``,
    in Silhouette contact with the trooper at some point of its path this Order."""

    TYPE: ClassVar[str] = "place_deployable"
    weapon: WeaponId
    position: Point


@dataclass(frozen=True, slots=True)
class Idle(Skill):
    TYPE: ClassVar[str] = "idle"


@dataclass(frozen=True, slots=True)
class BsAttack(Skill):
    TYPE: ClassVar[str] = "bs_attack"
    weapon: WeaponId
    targets: tuple[BurstAssignment, ...]
    firing_point: Point | None = None
    """Active turn: a point of the path already fixed in this order (default: where the
    trooper stands at declaration). In ARO: ignored; see ``target_point``."""
    target_point: Point | None = None
    """In ARO: the point of the active trooper's path the shot is taken at (default: the
    last point of the path where the reacting trooper has Line of Fire)."""
    zone_at: Point | None = None
    """A Smoke or Eclipse weapon (no ``targets``): the point of the table where the zone it
    places is centred (``combat/smoke.py``)."""


@dataclass(frozen=True, slots=True)
class CcAttack(Skill):
    TYPE: ClassVar[str] = "cc_attack"
    weapon: WeaponId
    target: TrooperId


@dataclass(frozen=True, slots=True)
class Dodge(Skill):
    TYPE: ClassVar[str] = "dodge"
    route: tuple[Point, ...] = ()
    """The dodge movement (up to 2 inches) made in the Effects step if the Dodge succeeds."""


@dataclass(frozen=True, slots=True)
class Reset(Skill):
    TYPE: ClassVar[str] = "reset"


@dataclass(frozen=True, slots=True)
class CommsAttack(Skill):
    """A Hacker runs a Hacking Program on one enemy trooper in its Hacking Area, no LoF
    needed (hacking.py; DIGEST 13). Short Skill, usable in ARO (DIGEST 4.2)."""

    TYPE: ClassVar[str] = "comms_attack"
    program: str
    target: TrooperId


@dataclass(frozen=True, slots=True)
class Doctor(Skill):
    """A Doctor brings an allied Unconscious VITA trooper in Silhouette contact back with a
    Normal WIP Roll; a failure kills it (combat/support_skills.py). Short Skill, no ARO."""

    TYPE: ClassVar[str] = "doctor"
    target: TrooperId


@dataclass(frozen=True, slots=True)
class Paramedic(Skill):
    """A Paramedic treats an allied Unconscious VITA trooper in Silhouette contact: the
    patient makes a PH Roll to come back; a failure kills it (combat/support_skills.py)."""

    TYPE: ClassVar[str] = "paramedic"
    target: TrooperId


@dataclass(frozen=True, slots=True)
class Engineer(Skill):
    """An Engineer repairs an allied STR trooper in Silhouette contact with a Normal WIP Roll:
    removes one Wound (a failure adds one), or with ``cancel_states`` cancels the States an
    Engineer cancels (a failure changes nothing) (combat/support_skills.py)."""

    TYPE: ClassVar[str] = "engineer"
    target: TrooperId
    cancel_states: bool = False


@dataclass(frozen=True, slots=True)
class ForwardObserver(Skill):
    """A Forward Observer marks an enemy in its LoF: a WIP BS Attack with the Forward
    Observer's range MODs whose hits make the target Targeted, no save
    (combat/forward_observer.py). Short Skill or ARO."""

    TYPE: ClassVar[str] = "forward_observer"
    target: TrooperId
    target_point: Point | None = None
    """In ARO: the point of the active trooper's path it is taken against (default: the last
    point of the path where the reacting trooper has Line of Fire)."""


SUPPORT_SKILLS = (Doctor, Paramedic, Engineer)


# --- Classified Objectives (missions/classified.py) ---
@dataclass(frozen=True, slots=True)
class ClassifiedAction(Skill):
    """The Short Skill a Classified Objective card names: a Normal WIP Roll by a trooper
    that meets the card's Requirements (``target``: the trooper in base contact it needs,
    None for a card without one); passed, the card is achieved. Declared with
    ``declare_skill`` or the ``classified_action`` command."""

    TYPE: ClassVar[str] = "classified_action"
    card: str
    target: TrooperId | None = None
# --- end of Classified Objectives ---


@dataclass(frozen=True, slots=True)
class ActivateObjective(Skill):
    """Activate a mission marker (a console, an antenna) in base contact with a Normal WIP
    Roll (``missions/consoles.py``). Short Skill, no ARO."""

    TYPE: ClassVar[str] = "activate"
    marker: str


@dataclass(frozen=True, slots=True)
class CombatJump(Skill):
    """The Combat Jump (Airborne Deployment; ``orders/airborne.py``): the first and only
    skill of the Order it enters the table on (a Long Skill, DIGEST 4). The trooper was
    placed before its declaration, so nothing is left to carry out at resolution."""

    TYPE: ClassVar[str] = "combat_jump"
    position: Point
    """Where the trooper stands after the jump (the landing spot, or the fallback)."""


@dataclass(frozen=True, slots=True)
class SuppressiveFire(Skill):
    """[N5] The Long Skill (an Entire Order here) that puts the trooper into Suppressive Fire
    State (``combat/suppressive_fire.py``; DIGEST 9). No roll, no target."""

    TYPE: ClassVar[str] = "suppressive_fire"


@dataclass(frozen=True, slots=True)
class Berserk(CcAttack):
    """[N5] Berserk (``orders/berserk.py``): one Entire Order that moves the trooper along
    ``route``, up to both MOV values added, into Silhouette contact with ``target``, then
    attacks it in CC with ``weapon`` and the skill's MOD. A CC Attack (so every rule of one
    applies to it) that is also a movement (``MOVEMENT_SKILLS``). If it cannot reach contact
    it is Idle: the trooper neither moves nor attacks."""

    TYPE: ClassVar[str] = "berserk"
    route: tuple[Point, ...]
    facing: float | None = None
    """Facing at the end of the route (default: the direction of its last segment)."""


MOVEMENT_SKILLS = (Move, CautiousMove, Jump, Climb, Berserk)
DODGE_MOVE_LIMIT = 2.0


@dataclass(frozen=True, slots=True)
class PeripheralSkill:
    """The skill one Peripheral performs alongside its Controller's (DIGEST 2: the same
    skills, targets may differ)."""

    trooper: TrooperId
    skill: Skill
