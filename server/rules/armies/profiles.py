"""Unit profiles: the printed characteristics of a trooper (DIGEST 2, 12).

A profile is what an army book prints for one option of a unit: attributes, Training, Troop
Type, the special skills the rules core acts on, weapons, and cost. It is reference data;
wounds taken, states and remaining ammunition are game state and live elsewhere.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from server.rules.ids import WeaponId
from server.rules.plain import FormatError, from_plain
from server.rules.plain.hints import hints_of
from server.rules.table.special_terrain import TerrainType


class Training(StrEnum):
    REGULAR = "regular"
    IRREGULAR = "irregular"


class TroopType(StrEnum):
    LI = "li"
    MI = "mi"
    HI = "hi"
    REM = "rem"
    TAG = "tag"
    SK = "sk"
    WB = "wb"
    PERIPHERAL = "peripheral"


# Troop types whose durability is Structure (STR), and those whose is VITA. Peripherals
# can be either (a remote drone or a living beast), so they are in neither set.
STRUCTURE_TYPES = frozenset({TroopType.REM, TroopType.TAG})
VITA_TYPES = frozenset({TroopType.LI, TroopType.MI, TroopType.HI, TroopType.SK, TroopType.WB})

SILHOUETTES = frozenset(range(9))
MIMETISM_VALUES = (3, 6)
MULTISPECTRAL_VISOR_LEVELS = (0, 1, 2, 3)
ECM_VALUES = (3, 6)
ATTRIBUTE_MAX = 30
"""Upper bound for CC/BS/PH/WIP: well above any printed value, low enough to catch typos."""
ARMOUR_MAX = 15
MOV_MAX = 12
VITA_MAX = 10


@dataclass(frozen=True, slots=True)
class UnitProfile:
    """One profile option of a unit.

    ``vita`` holds STR when ``structure`` is true (remotes, TAGs), else VITA (wounds).
    ``camouflage`` is 0 for none, else the Mimetism MOD shown on the trooper's Camouflage
    Marker as a positive number (3 or 6); such troopers deploy as markers. ``mimetism`` is
    the MOD magnitude (3 or 6) applied to BS Attacks and Discover against the trooper.
    ``cost`` and ``swc`` are Private Information (DIGEST 11.2).
    """

    id: str
    name: str
    mov: tuple[int, int]
    cc: int
    bs: int
    ph: int
    wip: int
    arm: int
    bts: int
    vita: int
    structure: bool
    silhouette: int
    training: Training
    troop_type: TroopType
    tactical_awareness: bool = False
    # --- Fireteams (issue 36 part 1; orders/fireteams.py) ---
    fireteam_core: bool = False
    """May be a member of a Fireteam: Core (its army's Fireteams Chart lists its unit)."""
    fireteam_haris: bool = False
    """May be a member of a Fireteam: Haris."""
    fireteam_duo: bool = False
    """May be a member of a Fireteam: Duo."""
    fireteam_unit: str = ""
    """The unit a Fireteam counts it as for its Level (the Chart's term in brackets); empty:
    its own unit name (``name``)."""
    # --- end Fireteams ---
    impetuous: bool = False
    # -- issue 36, fighting skills: how a trooper fights and takes damage --
    nwi: bool = False
    """No Wound Incapacitation: at wounds equal to VITA/STR it keeps acting as if Normal; any
    further wound kills it (``combat/incapacitation.py``)."""
    dogged: bool = False
    """Dogged: like NWI, but only until the States Phase of that Player Turn, when it dies
    (``combat/incapacitation.py``)."""
    courage: bool = False
    """Courage: passes its Guts Rolls without a die and never enters Retreat!
    (``combat/courage.py``)."""
    immunities: tuple[str, ...] = ()
    """Immunity categories (``combat/immunity.py``): ammunition names ("Shock", "AP"...) it
    treats as Normal, State names ("isolated", "stunned", "immobilized_b") it cannot enter,
    or "total"."""
    martial_arts: int = 0
    """Martial Arts Level (0 for none, 1-5): MODs to its CC Attacks (``combat/martial_arts.py``)."""
    total_reaction: bool = False
    """Total Reaction: its ARO BS Attacks use the weapon's full Burst (``combat/total_reaction.py``)."""
    # -- issue 36, Berserk (orders/berserk.py) and Warhorse (orders/warhorse.py) --
    berserk: bool = False
    """Berserk: an Entire Order of Move (both MOV values) into Silhouette contact + CC Attack."""
    berserk_mod: int = 0
    """The MOD written in brackets after it ("Berserk (+3)"), applied to that CC Attack."""
    warhorse: bool = False
    """Warhorse: Loss of Lieutenant and Retreat! leave it Regular; it is never Isolated."""
    # -- end Berserk, Warhorse --
    nanoscreen: bool = False
    """Nanoscreen: counts as in Partial Cover against BS Attacks (``combat/nanoscreen.py``)."""
    dodge_mod: int = 0
    """The MOD written after its Dodge ("Dodge (+3)"): positive on its own Dodge roll,
    negative on the enemy attacks Face to Face with it (``combat/dodge_skill_mods.py``)."""
    camouflage: int = 0
    mimetism: int = 0
    # issue 36, what changes what a trooper sees (combat/multispectral_visor.py):
    multispectral_visor: int = 0
    """Multispectral Visor level (1-3; 0 for none): cuts the Mimetism MOD of the enemies it
    shoots at or Discovers (``multispectral_visor.visor_mods``)."""
    ecm_hacker: int = 0
    """ECM (Hacker -3 / -6): the MOD, as a positive number, that enemy Comms Attacks on the
    trooper take (``combat/ecm.py``); 0 for none."""
    hidden_deployment: bool = False
    combat_jump: bool = False
    """Combat Jump (Airborne Deployment): may stay off the table at deployment and enter
    later on its own Order (``orders/airborne.py``). Its presence is Private Information."""
    # Deployment and movement skills (issue 36: Infiltration, Forward Deployment, Chain of
    # Command, Climbing Plus, Super-Jump).
    infiltration: bool = False
    """Infiltration: may deploy outside its Deployment Zone in its own half of the table, or
    in the enemy half (never the enemy zone) on a PH-3 Roll (``orders/infiltration.py``)."""
    forward_deployment: int = 0
    """Forward Deployment: how many inches beyond its Deployment Zone it may deploy (4 or 8;
    0 without the skill; ``orders/forward_deployment.py``)."""
    chain_of_command: bool = False
    """Chain of Command: becomes the Lieutenant, with no Loss of Lieutenant, when the
    Lieutenant is lost (``orders/chain_of_command.py``)."""
    climbing_plus: bool = False
    """Climbing Plus: its Move and Cautious Movement go up, down and over scenery as a
    Climb does (``orders/climbing_plus.py``)."""
    super_jump: bool = False
    """Super-Jump: its Jump is a Short Movement Skill of a MOV value, clearing scenery up to
    that height (``orders/super_jump.py``)."""
    # issue 36, Terrain (the skill) and Special Terrain areas
    terrain: tuple[TerrainType, ...] = ()
    """Terrain: the Types of Terrain whose Special Terrain areas do not hinder it, where it
    gains +1 inch to its first MOV value (all five for Terrain (Total);
    ``orders/terrain_skill.py``)."""
    # issue 36, Terrain with a choice of Types (orders/terrain_skill.py)
    terrain_choice: tuple[TerrainType, ...] = ()
    """Terrain (Jungle, Mountain): the Types its player chooses one from as it deploys
    (``deploy.terrain``); the chosen one becomes ``terrain``."""
    sixth_sense: bool = False
    hacker: bool = False
    """Hacker: may declare Comms Attacks with the programs of ``hacking.PROGRAMS``."""
    repeater: bool = False
    """Repeater: its Zone of Control extends the Hacking Area of its army's Hackers."""
    # --- issue 36, Specialist troopers (combat/support_skills.py, combat/specialists.py) ---
    doctor: bool = False
    """Doctor: a Short Skill that brings an Unconscious VITA trooper in Silhouette contact
    back with a WIP Roll (a failure kills it)."""
    paramedic: bool = False
    """Paramedic: a Short Skill in Silhouette contact; the Unconscious VITA trooper makes a
    PH Roll to come back (a failure kills it)."""
    engineer: bool = False
    """Engineer: a Short Skill that removes a Wound from a STR trooper in Silhouette contact,
    or cancels its States, with a WIP Roll."""
    forward_observer: bool = False
    """Forward Observer: a WIP BS Attack (Short Skill or ARO) that makes its target Targeted."""
    specialist_operative: bool = False
    """Specialist Operative: counts as a Specialist Troop in missions (``is_specialist``)."""
    # issue 36, Mines and Minelayer (combat/mines.py)
    minelayer: int = 0
    """Minelayer: how many of its Mines it may place in its Zone of Control as it deploys
    (0: no Minelayer; "Minelayer (2)" gives 2)."""
    weapons: tuple[WeaponId, ...] = ()
    cost: int = 0
    swc: float = 0.0

    @property
    def is_specialist(self) -> bool:
        """A Specialist Troop for missions: Doctor, Paramedic, Engineer, Forward Observer,
        Hacker or Specialist Operative (the wiki's "Specialist Troops", N5)."""
        return (self.doctor or self.paramedic or self.engineer or self.forward_observer
                or self.hacker or self.specialist_operative)

    @property
    def is_peripheral(self) -> bool:
        return self.troop_type is TroopType.PERIPHERAL

    @property
    def deploys_as_marker(self) -> bool:
        return self.camouflage > 0


_LABELS = {
    "mov": "MOV",
    "cc": "CC",
    "bs": "BS",
    "ph": "PH",
    "wip": "WIP",
    "arm": "ARM",
    "bts": "BTS",
    "vita": "VITA/STR",
    "swc": "SWC",
    "silhouette": "Silhouette",
    "troop_type": "Troop Type",
}


def field_label(name: str) -> str:
    """How a profile field is named to a player ("bs" -> "BS")."""
    return _LABELS.get(name, name)


def profile_from_plain(data: Any) -> tuple[UnitProfile | None, tuple[str, ...]]:
    """Read a profile from plain data (a JSON object).

    Returns the profile and no problems, or ``None`` and every problem found (wrong types,
    missing or unknown fields, values out of range), each a sentence without a subject:
    the caller prefixes which unit it is about.
    """
    if not isinstance(data, Mapping):
        return None, ("must be an object with the profile's fields.",)
    hints = hints_of(UnitProfile)
    kwargs: dict[str, Any] = {}
    problems: list[str] = []
    for field in dataclasses.fields(UnitProfile):
        if field.name not in data:
            if field.default is dataclasses.MISSING:
                problems.append(f"{field_label(field.name)} is missing.")
            continue
        try:
            kwargs[field.name] = from_plain(hints[field.name], data[field.name], field.name)
        except FormatError as error:
            problems.append(f"{field_label(field.name)} {error.problem}.")
    known = {field.name for field in dataclasses.fields(UnitProfile)}
    unknown = sorted(str(key) for key in data if key not in known)
    if unknown:
        problems.append(f"has unknown fields {', '.join(unknown)}.")
    if problems:
        return None, tuple(problems)
    profile = UnitProfile(**kwargs)
    value_problems = profile_problems(profile)
    return (None, value_problems) if value_problems else (profile, ())


def profile_problems(profile: UnitProfile) -> tuple[str, ...]:
    """Values out of their legal ranges, as sentences without a subject."""
    problems: list[str] = []
    if not profile.id:
        problems.append("has an empty id.")
    if any(not 0 <= value <= MOV_MAX for value in profile.mov):
        problems.append(f"MOV values must be between 0 and {MOV_MAX} inches.")
    for name in ("cc", "bs", "ph", "wip"):
        value = getattr(profile, name)
        if not 0 <= value <= ATTRIBUTE_MAX:
            problems.append(f"{field_label(name)} {value} is outside 0-{ATTRIBUTE_MAX}.")
    for name in ("arm", "bts"):
        value = getattr(profile, name)
        if not 0 <= value <= ARMOUR_MAX:
            problems.append(f"{field_label(name)} {value} is outside 0-{ARMOUR_MAX}.")
    if not 1 <= profile.vita <= VITA_MAX:
        problems.append(f"VITA/STR {profile.vita} is outside 1-{VITA_MAX}.")
    if profile.silhouette not in SILHOUETTES:
        problems.append(f"Silhouette {profile.silhouette} is not one of 0-8.")
    if profile.cost < 0 or profile.swc < 0 or (profile.swc * 2) % 1:
        problems.append("cost and SWC must be non-negative, SWC in steps of 0.5.")
    problems.extend(_durability_problems(profile))
    problems.extend(_concealment_problems(profile))
    if profile.forward_deployment not in (0, *FORWARD_DEPLOYMENT_REACHES):
        # Deployment skills (issue 36): the N5 reaches.
        problems.append(f"Forward Deployment {profile.forward_deployment} must be 0 (none), 4 or 8.")
    return tuple(problems)


FORWARD_DEPLOYMENT_REACHES = (4, 8)
"""Forward Deployment's reaches in inches (N5: +4" and +8")."""


def _durability_problems(profile: UnitProfile) -> list[str]:
    if profile.troop_type in STRUCTURE_TYPES and not profile.structure:
        return [f"a {profile.troop_type.name} has Structure (STR), so structure must be true."]
    if profile.troop_type in VITA_TYPES and profile.structure:
        return [f"a {profile.troop_type.name} has VITA, not Structure; structure must be false."]
    return []


def _concealment_problems(profile: UnitProfile) -> list[str]:
    problems: list[str] = []
    if profile.mimetism not in (0, *MIMETISM_VALUES):
        problems.append(f"Mimetism {profile.mimetism} must be 0, 3 or 6.")
    if profile.camouflage not in (0, *MIMETISM_VALUES):
        problems.append(f"Camouflage {profile.camouflage} must be 0 (none), 3 or 6.")
    elif profile.camouflage and profile.mimetism != profile.camouflage:
        # The CAMO marker shows the trooper's own Mimetism MOD (DIGEST 12), so they agree.
        problems.append(
            f"Camouflage {profile.camouflage} must equal its Mimetism ({profile.mimetism}): "
            "the marker shows the trooper's Mimetism MOD."
        )
    if profile.ecm_hacker not in (0, *ECM_VALUES):
        problems.append(f"ECM (Hacker) {profile.ecm_hacker} must be 0 (none), 3 or 6.")
    if profile.multispectral_visor not in MULTISPECTRAL_VISOR_LEVELS:
        problems.append(f"Multispectral Visor level {profile.multispectral_visor} must be 0 "
                        "(none), 1, 2 or 3.")
    return problems
