"""What Resolution will do with an Order: the rolls to make, the Direct Template hits, and
the effects of the declarations themselves (DIGEST 5-7, 13).

``attacks.plan_order`` builds a ``Plan`` from the Order's declarations; ``resolution`` rolls
it; ``suppressive_fire`` and ``face_to_face`` read its rolls.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ids import TrooperId, WeaponId
from ..state import ActiveOrder, GameState
from ..table.geometry import Body, Point
from .mods import RangeReading
from .outcome import Effect
from .rolls import Mod, needs_no_roll, success_value

ARO_BURST = 1
"""Burst in ARO (DIGEST 6.1)."""


ROLLED_ATTACKS = ("bs_attack", "cc_attack", "comms_attack", "forward_observer")


@dataclass(frozen=True, slots=True)
class PlannedRoll:
    """One roll to make at resolution, with everything but the dice.

    ``against_marker`` is set for an attack on a Camouflaged trooper: it resolves only if
    the attacker Discovered that marker in this Order. ``partial_cover`` is the target's
    Partial Cover against this shot (it adds +3 to its saves against a BS Attack).
    ``range`` is the distance and range band of a BS Attack or Discover (None for others).
    """

    trooper: TrooperId
    active: bool
    skill: str
    target: TrooperId | None
    weapon: WeaponId | None
    attribute: str
    base: int
    mods: tuple[Mod, ...]
    burst: int
    out_of_range: bool = False
    partial_cover: bool = False
    against_marker: bool = False
    range: RangeReading | None = None
    sight: tuple[Body, Body] | None = None
    """A BS Attack's shooter and target bodies, where the shot is taken (a Smoke zone in
    the same Order may screen it: ``smoke.with_screens``)."""
    zone_at: Point | None = None
    """A Smoke or Eclipse roll (no target): the centre of the zone it places."""
    screens: tuple[tuple[TrooperId, TrooperId], ...] = ()
    """A Smoke or Eclipse roll: the (attacker, target) enemy BS Attacks whose Line of Fire
    its zone would block; it is Face to Face with each (``attacks.face_to_face_opponents``)."""
    sustained_dice: int = 0
    """Extra dice rolled then discarded, as many as this (``sustained_dice.py``): a Level 2+
    Fireteam member's BS Attack rolls one ("+1 SD", ``fireteam_bonuses.py``)."""

    @property
    def success_value(self) -> int:
        return success_value(self.base, self.mods)

    @property
    def is_attack(self) -> bool:
        return self.skill in ROLLED_ATTACKS

    @property
    def automatic_failure(self) -> bool:
        """No dice are rolled: out of range, or SV below 1 (DIGEST 7.1, 5.2)."""
        return self.out_of_range or needs_no_roll(self.success_value)

    @property
    def dice_count(self) -> int:
        return 0 if self.automatic_failure else self.burst + self.sustained_dice


@dataclass(frozen=True, slots=True)
class TemplateHit:
    """A Direct Template weapon hitting one trooper: no attack roll (DIGEST 13).
    ``distance`` is measured between the shooter and the target's body hit."""

    attacker: TrooperId
    target: TrooperId
    weapon: WeaponId
    against_marker: bool = False
    distance: float | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    rolls: tuple[PlannedRoll, ...] = ()
    templates: tuple[TemplateHit, ...] = ()
    effects: tuple[Effect, ...] = ()

    def __add__(self, other: Plan) -> Plan:
        return Plan(self.rolls + other.rolls, self.templates + other.templates,
                    self.effects + other.effects)


def order_to_resolve(state: GameState) -> ActiveOrder:
    if state.order is None:
        raise ValueError("there is no Order to resolve")
    return state.order
