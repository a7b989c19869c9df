"""The records the operator's army data is read into: limits against huge documents, the
problem raised on a bad document (``ArmyDataError``), and the frozen records of factions,
weapons, units, profile groups, profiles, options and a resolved trooper (``DataTrooper``),
with MOV in inches (``mov_inches``, docs/rules-decisions/armies.md, "MOV from centimetres").
``army_data_reading`` fills them from the documents; ``army_data`` indexes them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from server.rules.armies.profiles import Training, TroopType

# Limits against huge documents: far above any real army book, low enough that a hostile or
# broken folder cannot make the index unbounded.
MAX_FACTIONS = 500
MAX_METADATA_ITEMS = 20_000
MAX_UNITS = 2_000
MAX_GROUPS_PER_UNIT = 100
MAX_PROFILES_PER_GROUP = 50
MAX_OPTIONS_PER_GROUP = 500
MAX_REFS = 200
MAX_EXTRAS = 50
MAX_TEXT = 500
MAX_ID = 1_000_000
MAX_CM = 100
NO_VALUE = 255
"""What the data writes for a characteristic a profile has none of (a dash on the printed
profile). Read as a value; a trooper needing it is refused (``ArmyData.trooper``)."""

TROOP_TYPES: Mapping[int, TroopType] = {
    1: TroopType.LI,
    2: TroopType.MI,
    3: TroopType.HI,
    4: TroopType.TAG,
    5: TroopType.REM,
    6: TroopType.SK,
    7: TroopType.WB,
}
"""The data's ``type`` 1-7, in the army builder's order."""

DISTANCE_BANDS = ("short", "med", "long", "max")
CM_PER_INCH = Decimal("2.5")
MOD_TEXT = re.compile(r"[+-]?[0-9]{1,3}")


class ArmyDataError(ValueError):
    """The operator's army data is malformed, or an id is not in it.

    ``problem`` is one sentence naming the document, the path to the field and what is wrong
    (or the id that was not found).
    """

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(problem)


@dataclass(frozen=True, slots=True)
class ItemRef:
    """A reference from a profile or option to a skill, piece of equipment or weapon:
    the data's id, its name from the metadata, the quantity ``q`` and the ``extra`` ids
    (e.g. the level of a skill or a weapon's variant)."""

    id: int
    name: str
    quantity: int
    extras: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DistanceBand:
    name: str
    max_cm: int
    mod: int


@dataclass(frozen=True, slots=True)
class WeaponMode:
    """One mode of a weapon as the metadata gives it. ``burst``, ``damage`` and ``saving``
    stay text: the data writes attributes ("PH") and dashes there as well as numbers."""

    mode: str
    burst: str
    damage: str
    saving: str
    ammunition: int | None
    distance: tuple[DistanceBand, ...]
    properties: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DataWeapon:
    id: int
    name: str
    modes: tuple[WeaponMode, ...]


@dataclass(frozen=True, slots=True)
class Faction:
    id: int
    name: str
    slug: str


@dataclass(frozen=True, slots=True)
class Order:
    """An entry of an option's ``orders``: its type as the data writes it (REGULAR,
    IRREGULAR, IMPETUOUS, LIEUTENANT, TACTICAL...) and how many."""

    type: str
    total: int


@dataclass(frozen=True, slots=True)
class Profile:
    id: int
    name: str
    move_cm: tuple[int, int]
    cc: int
    bs: int
    ph: int
    wip: int
    arm: int
    bts: int
    w: int
    s: int
    structure: bool
    type: int
    skills: tuple[ItemRef, ...]
    equips: tuple[ItemRef, ...]
    weapons: tuple[ItemRef, ...]


@dataclass(frozen=True, slots=True)
class Option:
    id: int
    name: str
    points: int
    swc: Decimal
    orders: tuple[Order, ...]
    skills: tuple[ItemRef, ...]
    equips: tuple[ItemRef, ...]
    weapons: tuple[ItemRef, ...]


@dataclass(frozen=True, slots=True)
class ProfileGroup:
    id: int
    name: str
    profiles: tuple[Profile, ...]
    options: tuple[Option, ...]


@dataclass(frozen=True, slots=True)
class Unit:
    id: int
    name: str
    groups: tuple[ProfileGroup, ...]


@dataclass(frozen=True, slots=True)
class DataTrooper:
    """One trooper resolved from the data: a unit's profile group and one of its options,
    converted to the engine's figures.

    ``mov`` is in inches (``mov_inches``). ``vita`` is W, or STR when ``structure`` is true.
    ``training`` comes from the option's orders (a REGULAR order: regular; an IRREGULAR one:
    irregular); None when the option brings no order (a peripheral). The skills, equipment
    and weapons are the profile's followed by the option's own.
    """

    faction_id: int
    unit_id: int
    group_id: int
    option_id: int
    profile_id: int
    name: str
    option_name: str
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
    troop_type: TroopType
    training: Training | None
    orders: tuple[Order, ...]
    cost: int
    swc: float
    skills: tuple[ItemRef, ...]
    equips: tuple[ItemRef, ...]
    weapons: tuple[ItemRef, ...]


def mov_inches(cm: int) -> int:
    """A MOV value from centimetres to whole inches: 2.5 cm to the inch, to the nearest inch
    and halves up (10 -> 4, 15 -> 6, 5 -> 2, 12 -> 5, 11 -> 4)."""
    quotient = Decimal(cm) / CM_PER_INCH
    return int(quotient.to_integral_value(rounding="ROUND_HALF_UP"))


