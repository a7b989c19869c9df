"""Martial Arts (infinitythewiki "Martial Arts", N5): a CC Special Skill with five Levels, each
giving MODs to the user's CC Attacks.

The chart as the page gives it (Attack MOD to the user's CC, Opponent MOD to the enemy's roll
in the Face to Face Roll, Burst MOD to the CC weapon's B):

=====  ==========  ============  =========
Level  Attack MOD  Opponent MOD  Burst MOD
=====  ==========  ============  =========
1      0           -3            0
2      +3          -3            0
3      +3          -3            0
4      +3          -3            0
5      +3          -3            +1
=====  ==========  ============  =========

* The MODs apply when the user declares a CC Attack, in its Active or Reactive Turn.
* The Opponent MOD goes on the roll of the enemy that is Face to Face with the user's CC
  Attack (a CC Attack back at it, or a Dodge against it), listed as ``martial_arts_opponent``.
  Two Martial Artists fighting each other both apply their own chart: each takes the other's
  Opponent MOD.

Judgement calls (docs/rules-decisions/skills.md "Martial Arts"): the older chart's Damage MOD
(to PH, from the N4 page) is not applied: in N5 a CC weapon's damage is its PS and the N5
chart lists no damage column; the Burst MOD applies in ARO too (the page lets the skill's MODs
apply in both turns), so a Level 5 user's CC ARO rolls 2 dice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ..armies.profiles import UnitProfile
from ..ids import TrooperId
from .plan import PlannedRoll
from .rolls import Mod

MAX_LEVEL = 5


@dataclass(frozen=True, slots=True)
class MartialArtsLevel:
    attack: int
    opponent: int
    burst: int


CHART: dict[int, MartialArtsLevel] = {
    1: MartialArtsLevel(attack=0, opponent=-3, burst=0),
    2: MartialArtsLevel(attack=3, opponent=-3, burst=0),
    3: MartialArtsLevel(attack=3, opponent=-3, burst=0),
    4: MartialArtsLevel(attack=3, opponent=-3, burst=0),
    5: MartialArtsLevel(attack=3, opponent=-3, burst=1),
}


def chart_row(profile: UnitProfile) -> MartialArtsLevel | None:
    """The profile's row of the chart, or None without Martial Arts."""
    return CHART.get(profile.martial_arts)


def attack_mods(profile: UnitProfile) -> tuple[Mod, ...]:
    """The user's own MOD on its CC Attack (none at Level 1)."""
    row = chart_row(profile)
    return (Mod("martial_arts", row.attack),) if row is not None and row.attack else ()


def burst_bonus(profile: UnitProfile) -> int:
    row = chart_row(profile)
    return row.burst if row is not None else 0


def with_opponent_mods(rolls: Sequence[PlannedRoll],
                       profiles: Mapping[TrooperId, UnitProfile]) -> tuple[PlannedRoll, ...]:
    """``rolls`` with the Opponent MOD of every Martial Artist's CC Attack added to the rolls
    Face to Face with it. ``profiles`` gives each rolling trooper's profile (by id)."""
    out: list[PlannedRoll] = []
    for roll in rolls:
        extra = tuple(
            Mod("martial_arts_opponent", row.opponent)
            for attack in rolls
            if _opposes(roll, attack)
            and (row := chart_row(profiles[attack.trooper])) is not None and row.opponent
        )
        out.append(replace(roll, mods=roll.mods + extra[:1]) if extra else roll)
    return tuple(out)


def _opposes(roll: PlannedRoll, attack: PlannedRoll) -> bool:
    """``roll`` is Face to Face with ``attack``, a CC Attack on its trooper: a CC Attack back
    at the attacker or a Dodge (DIGEST 6.3, 7.4)."""
    if attack.skill != "cc_attack" or attack.target != roll.trooper or attack.active == roll.active:
        return False
    if roll.skill == "dodge":
        return True
    return roll.skill == "cc_attack" and roll.target == attack.trooper
