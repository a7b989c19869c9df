"""What an Order's resolution produced: every roll, save and effect, in order.

``rolls`` and ``saves`` are the record a client shows ("which dice cancelled which");
``effects`` are the changes ``engine.apply`` folds into the state, in the order listed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..ids import TrooperId, WeaponId
from ..plain import Tagged
from ..table.geometry import Point
from ..table.visibility_zones import VisibilityZone
from .rolls import Die, Mod
from .saves import SaveRoll
from .wounds import Condition


@dataclass(frozen=True, slots=True)
class RollRecord:
    """One side's roll: a Normal Roll, or one side of a Face to Face Roll."""

    trooper: TrooperId
    skill: str
    """"bs_attack", "cc_attack", "comms_attack", "dodge", "reset", "discover" or "guts"."""
    target: TrooperId | None
    weapon: WeaponId | None
    attribute: str
    """"BS", "CC", "PH" or "WIP"."""
    base: int
    mods: tuple[Mod, ...]
    success_value: int
    burst: int
    dice: tuple[Die, ...]
    cancelled: tuple[bool, ...]
    successes: int
    """Surviving non-critical successes."""
    criticals: int
    opposed_by: tuple[int, ...] = ()
    """Indexes in ``Outcome.rolls`` of the rolls this one was Face to Face against."""
    automatic_failure: bool = False
    """Success value under 1: fails without a roll (DIGEST 7.1)."""
    chosen_failure: bool = False
    """A Guts Roll its owner chose to fail (DIGEST 7.8): no die, no success."""
    stun_failure: bool = False
    """A Guts Roll failed without a die: its trooper failed a save against Stun ammunition in
    this Order (official N5 Stun Ammunition; ``stunned.py``)."""
    courage: bool = False
    """A Guts Roll passed without a die by Courage (``courage.py``): one success."""
    zone_at: Point | None = None
    """A Smoke or Eclipse roll (no target): where its zone is centred (``smoke.py``)."""
    discarded: tuple[bool, ...] = ()
    """With Sustained Dice (a Fireteam's "+1 SD"): for each die of ``dice``, whether it was
    the extra die discarded; a discarded die neither scores nor cancels. Empty: none."""


@dataclass(frozen=True, slots=True)
class SaveRecord:
    trooper: TrooperId
    attacker: TrooperId
    weapon: WeaponId
    ammo: str
    hits: int
    criticals: int
    partial_cover: bool
    target: int
    """The number each face is compared with (see ``saves.SaveConvention``)."""
    rolls: tuple[SaveRoll, ...]
    failed: int
    immune_to: str | None = None
    """The weapon's own ammunition when the target's Immunity made it Normal (``ammo`` is
    then "N"; ``immunity.py``), else None."""


class Effect(Tagged):
    """A change to the state made in the Effects or Conclusion step."""


@dataclass(frozen=True, slots=True)
class BecameIdle(Effect):
    """A declared skill whose Requirements failed at resolution (or an invalid ARO): the
    skill is Idle and what it cost is spent (the Order's skill, or the ARO; seed 000).
    ``target`` is the trooper the skill was aimed at (a BS Attack's first), ``aro`` whether
    it was an ARO (else the active trooper's skill)."""

    TYPE: ClassVar[str] = "became_idle"
    trooper: TrooperId
    skill: str
    reason: str
    target: TrooperId | None = None
    aro: bool = False


@dataclass(frozen=True, slots=True)
class CoupDeGrace(Effect):
    """A CC Attack on an Unconscious enemy in base contact: no roll, no save; the ``Wounded``
    effect that follows makes it Dead (DIGEST 7.7). A record: it changes nothing itself."""

    TYPE: ClassVar[str] = "coup_de_grace"
    trooper: TrooperId
    """The attacker."""
    target: TrooperId


@dataclass(frozen=True, slots=True)
class WeaponUsed(Effect):
    """A Disposable weapon use spent (even when the skill became Idle)."""

    TYPE: ClassVar[str] = "weapon_used"
    trooper: TrooperId
    weapon: WeaponId
    uses: int


@dataclass(frozen=True, slots=True)
class Revealed(Effect):
    """A Camouflage Marker replaced by its model."""

    TYPE: ClassVar[str] = "revealed"
    trooper: TrooperId
    reason: str


@dataclass(frozen=True, slots=True)
class DiscoverFailed(Effect):
    TYPE: ClassVar[str] = "discover_failed"
    trooper: TrooperId
    marker: TrooperId


@dataclass(frozen=True, slots=True)
class Wounded(Effect):
    TYPE: ClassVar[str] = "wounded"
    trooper: TrooperId
    wounds: int
    condition: Condition


@dataclass(frozen=True, slots=True)
class Moved(Effect):
    """A Dodge or Guts movement: no AROs, no Deployable triggers."""

    TYPE: ClassVar[str] = "moved"
    trooper: TrooperId
    route: tuple[Point, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class Turned(Effect):
    """Alert! (or a Dodge) turns a trooper to face the enemy."""

    TYPE: ClassVar[str] = "turned"
    trooper: TrooperId
    facing: float
    reason: str


@dataclass(frozen=True, slots=True)
class WentProne(Effect):
    TYPE: ClassVar[str] = "went_prone"
    trooper: TrooperId
    reason: str


@dataclass(frozen=True, slots=True)
class TargetedCleared(Effect):
    """A successful Reset cancels the Targeted state."""

    TYPE: ClassVar[str] = "targeted_cleared"
    trooper: TrooperId


@dataclass(frozen=True, slots=True)
class TargetedSet(Effect):
    """A failed Saving Roll against a Hacking Program that causes Targeted (hacking.py)."""

    TYPE: ClassVar[str] = "targeted_set"
    trooper: TrooperId
    program: str


@dataclass(frozen=True, slots=True)
class IsolatedSet(Effect):
    """A failed BTS Saving Roll against E/M ammunition makes its trooper Isolated (DIGEST 7.6,
    8; ``isolated.py``)."""

    TYPE: ClassVar[str] = "isolated_set"
    trooper: TrooperId
    weapon: WeaponId


@dataclass(frozen=True, slots=True)
class IsolatedCleared(Effect):
    """A successful Reset cancels the Isolated state (DIGEST 8)."""

    TYPE: ClassVar[str] = "isolated_cleared"
    trooper: TrooperId


@dataclass(frozen=True, slots=True)
class ImmobilizedBSet(Effect):
    """A failed BTS Saving Roll against E/M also makes a HI, TAG or REM trooper
    Immobilized-B (DIGEST 7.6, 8; ``immobilized.py``)."""

    TYPE: ClassVar[str] = "immobilized_b_set"
    trooper: TrooperId
    weapon: WeaponId


@dataclass(frozen=True, slots=True)
class ImmobilizedBCleared(Effect):
    """A successful Reset cancels Immobilized-B (DIGEST 6.3, 8)."""

    TYPE: ClassVar[str] = "immobilized_b_cleared"
    trooper: TrooperId


@dataclass(frozen=True, slots=True)
class Healed(Effect):
    """A Doctor, Paramedic or Engineer roll passed (``support_skills.py``): ``trooper`` has
    one Wound fewer (``wounds``, a total) and is in ``condition`` (Unconscious cancelled)."""

    TYPE: ClassVar[str] = "healed"
    trooper: TrooperId
    by: TrooperId
    skill: str
    wounds: int
    condition: Condition


@dataclass(frozen=True, slots=True)
class TreatmentFailed(Effect):
    """A Doctor, Paramedic or Engineer roll failed (``support_skills.py``). A record: the
    ``Wounded`` that follows it (if any) says what the failure cost its patient."""

    TYPE: ClassVar[str] = "treatment_failed"
    trooper: TrooperId
    by: TrooperId
    skill: str


@dataclass(frozen=True, slots=True)
class StunnedSet(Effect):
    """A failed Saving Roll against Stun ammunition makes its trooper Stunned (DIGEST 7.6, 8;
    ``stunned.py``), in the Player Turn being played."""

    TYPE: ClassVar[str] = "stunned_set"
    trooper: TrooperId
    weapon: WeaponId


@dataclass(frozen=True, slots=True)
class IncapacitationIgnored(Effect):
    """The trooper reached as many wounds as its VITA/STR and stays in the fight: No Wound
    Incapacitation (``skill`` "nwi") or Dogged ("dogged", dead in this Player Turn's States
    Phase); ``incapacitation.py``. It follows the ``Wounded`` that took it there."""

    TYPE: ClassVar[str] = "incapacitation_ignored"
    trooper: TrooperId
    skill: str


@dataclass(frozen=True, slots=True)
class ZonePlaced(Effect):
    """A Smoke or Eclipse roll that succeeded (and won every Face to Face Roll it was in)
    leaves its Zero Visibility Zone on the table until the States Phase (``smoke.py``)."""

    TYPE: ClassVar[str] = "zone_placed"
    trooper: TrooperId
    weapon: WeaponId
    zone: VisibilityZone


@dataclass(frozen=True, slots=True)
class DeployablePlaced(Effect):
    """Place Deployable (``mines.py``): ``trooper`` put the Mine ``deployable`` on the table,
    one Disposable use of ``weapon`` spent; it stands as a Camouflage Marker."""

    TYPE: ClassVar[str] = "deployable_placed"
    trooper: TrooperId
    deployable: TrooperId
    weapon: WeaponId
    position: Point
    facing: float


@dataclass(frozen=True, slots=True)
class DeployableRemoved(Effect):
    """A Deployable leaves the table (``mines.py``): a Mine that went off (``reason``
    "detonated") or that an attack destroyed ("destroyed")."""

    TYPE: ClassVar[str] = "deployable_removed"
    deployable: TrooperId
    reason: str


@dataclass(frozen=True, slots=True)
class Outcome:
    rolls: tuple[RollRecord, ...] = ()
    saves: tuple[SaveRecord, ...] = ()
    effects: tuple[Effect, ...] = ()
