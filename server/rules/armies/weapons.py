"""Weapon profiles: range bands, templates, ammunition and limited uses.

A weapon is plain reference data: it never changes during a game. What a trooper has left
of a disposable weapon is game state and lives elsewhere; ``Weapon.disposable`` only says how
many uses a trooper starts with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from server.rules.ids import WeaponId

KNOWN_AMMUNITION: tuple[str, ...] = ("N", "AP", "DA", "EXP", "Shock", "T2", "E/M", "Stun",
                                     "Smoke", "Eclipse")
"""Ammunition codes a weapon may name: the values of ``server.rules.combat.ammunition.Ammunition``,
which owns their effects (a test keeps the two in step). Kept as strings here so weapon
data can be checked without importing the damage rules."""

SAVE_ATTRIBUTES: tuple[str, ...] = ("ARM", "BTS")

ZONE_AMMUNITION: tuple[str, ...] = ("Smoke", "Eclipse")
"""Ammunition that hits no one and places a Zero Visibility Zone where it lands
(``combat/smoke.py``): a weapon firing it is a ballistic weapon aimed at a point."""

KNOWN_TRAITS: tuple[str, ...] = ("suppressive_fire", "throwing_weapon", "mines")
"""Weapon Traits the rules read: ``suppressive_fire``, the weapon may be used for the
Suppressive Fire Long Skill and in Suppressive Fire State (``combat/suppressive_fire.py``);
``throwing_weapon``, the weapon is thrown, so its BS Attack rolls PH instead of BS
(``combat/attack_attribute.py``); ``mines``, a Deployable Direct Template weapon placed on
the table as a Mine that goes off by itself (``combat/mines.py``)."""

MAX_PS = 20
"""PS is a target number on a d20, so anything above 20 could never fail a save."""


@dataclass(frozen=True, slots=True)
class RangeBand:
    """One range band: distances up to and including ``up_to`` inches get ``mod``.

    Bands are listed in ascending order; a distance beyond the last band is out of range
    (an automatic failure). The lower edge of a band is the previous band's ``up_to``,
    exclusive, which gives the rulebook's "0.01-8, 8.01-16" reading (DIGEST 10.4).
    """

    up_to: float
    mod: int


class WeaponKind(StrEnum):
    BALLISTIC = "ballistic"
    CLOSE_COMBAT = "close_combat"
    DIRECT_TEMPLATE = "direct_template"


class TemplateShape(StrEnum):
    SMALL_TEARDROP = "small_teardrop"
    LARGE_TEARDROP = "large_teardrop"


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon (or one firing mode of it) as printed on a profile.

    ``ammo`` is an Ammunition code from ``KNOWN_AMMUNITION``. ``disposable`` is the number of
    uses per game (``None`` = unlimited). ``save_attribute`` says whether targets save with
    ARM or BTS.
    """

    id: WeaponId
    name: str
    kind: WeaponKind
    burst: int
    ps: int
    ammo: str
    ranges: tuple[RangeBand, ...] = ()
    template: TemplateShape | None = None
    disposable: int | None = None
    save_attribute: str = "ARM"
    traits: tuple[str, ...] = ()
    """Traits of the weapon chart's Traits box that the rules read (``KNOWN_TRAITS``)."""

    @property
    def is_disposable(self) -> bool:
        return self.disposable is not None

    @property
    def is_thrown(self) -> bool:
        """A Throwing Weapon: its BS Attack is a throw, rolled on PH (``combat/attack_attribute.py``)."""
        return "throwing_weapon" in self.traits

    @property
    def is_mine(self) -> bool:
        """Placed on the table as a Mine (``combat/mines.py``), never fired."""
        return "mines" in self.traits


# Teardrop lengths in inches. Decision recorded in docs/rules-decisions/armies.md.
_TEMPLATE_LENGTHS: dict[TemplateShape, float] = {
    TemplateShape.SMALL_TEARDROP: 8.0,
    TemplateShape.LARGE_TEARDROP: 10.0,
}


def template_length(shape: TemplateShape) -> float:
    """Length in inches of a teardrop template, from its narrow end to the far edge."""
    return _TEMPLATE_LENGTHS[shape]


def range_mod(weapon: Weapon, distance: float) -> int | None:
    """The range MOD for an attack at ``distance`` inches, or ``None`` if out of range.

    * Ballistic weapons: the MOD of the first band whose ``up_to`` is >= distance.
    * Close combat weapons: 0 in base contact (distance 0), otherwise ``None``.
    * Direct Template weapons make no attack roll, so they have no range MOD: 0 while the
      target is within the template's length, otherwise ``None``. Whether the template
      really covers a target is a geometry question decided elsewhere.

    Raises ``ValueError`` for a negative or non-finite distance.
    """
    if not math.isfinite(distance) or distance < 0:
        raise ValueError(f"distance must be a finite number >= 0, got {distance!r}")
    if weapon.kind is WeaponKind.CLOSE_COMBAT:
        return 0 if distance == 0 else None
    if weapon.kind is WeaponKind.DIRECT_TEMPLATE:
        if weapon.template is None:
            return None
        return 0 if distance <= template_length(weapon.template) else None
    for band in weapon.ranges:
        if distance <= band.up_to:
            return band.mod
    return None


def weapon_problems(weapon: Weapon) -> tuple[str, ...]:
    """Everything wrong with a weapon profile, as sentences; empty if it is sound."""
    label = f"Weapon '{weapon.id}' ({weapon.name})"
    problems: list[str] = []
    if not weapon.id:
        problems.append(f"{label} has an empty id.")
    if weapon.burst < 1:
        problems.append(f"{label} has Burst {weapon.burst}; Burst is at least 1.")
    if not 0 <= weapon.ps <= MAX_PS:
        problems.append(f"{label} has PS {weapon.ps}; PS is between 0 and {MAX_PS}.")
    if weapon.ammo not in KNOWN_AMMUNITION:
        known = ", ".join(KNOWN_AMMUNITION)
        problems.append(f"{label} uses unknown ammunition '{weapon.ammo}' (known: {known}).")
    if weapon.save_attribute not in SAVE_ATTRIBUTES:
        problems.append(
            f"{label} is saved with '{weapon.save_attribute}'; it must be ARM or BTS."
        )
    unknown = [trait for trait in weapon.traits if trait not in KNOWN_TRAITS]
    if unknown:
        problems.append(f"{label} has unknown traits {unknown} (known: {', '.join(KNOWN_TRAITS)}).")
    if weapon.disposable is not None and weapon.disposable < 1:
        problems.append(f"{label} has {weapon.disposable} disposable uses; it needs at least 1.")
    problems.extend(_kind_problems(weapon, label))
    return tuple(problems)


def _kind_problems(weapon: Weapon, label: str) -> list[str]:
    problems: list[str] = []
    if weapon.kind is WeaponKind.BALLISTIC:
        if not weapon.ranges:
            problems.append(f"{label} is a ballistic weapon without range bands.")
        edges = [band.up_to for band in weapon.ranges]
        if any(edge <= 0 for edge in edges) or edges != sorted(set(edges)):
            problems.append(f"{label} has range bands that are not positive and ascending.")
    elif weapon.ranges:
        problems.append(f"{label} is a {weapon.kind.value} weapon and cannot have range bands.")
    if weapon.kind is WeaponKind.DIRECT_TEMPLATE and weapon.template is None:
        problems.append(f"{label} is a Direct Template weapon without a template shape.")
    if weapon.kind is not WeaponKind.DIRECT_TEMPLATE and weapon.template is not None:
        problems.append(f"{label} has a template but is not a Direct Template weapon.")
    if weapon.ammo in ZONE_AMMUNITION and weapon.kind is not WeaponKind.BALLISTIC:
        problems.append(f"{label} fires {weapon.ammo}: it must be a ballistic weapon (thrown "
                        "or launched at a point).")
    return problems
