"""Dodge MODs written on a profile: "Dodge (+3)", "Dodge (-3)" (infinitythewiki
"Template: Modifiers-explained", N5.2, and "Dodge", N5).

A MOD in round brackets after a skill applies only when the skill is used:

* a positive one to the user: its Dodge roll takes it (the MOD ``dodge``);
* a negative one to its enemies, and for a Dodge only in a Face to Face Roll: every enemy
  attack opposed to the user's Dodge takes it (the MOD ``enemy_dodge``).

``UnitProfile.dodge_mod`` holds the signed value (0 for none).

Judgement call (docs/rules-decisions/skills.md "Dodge MODs"): a Dodge MOD given in inches
(more movement) is not read: the catalogue lists it as not refereed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..armies.profiles import UnitProfile
from ..ids import TrooperId
from .plan import PlannedRoll
from .rolls import Mod


def own_mods(profile: UnitProfile) -> tuple[Mod, ...]:
    """The user's own Dodge MOD (a positive one), for its Dodge roll."""
    return (Mod("dodge", profile.dodge_mod),) if profile.dodge_mod > 0 else ()


def with_enemy_mods(rolls: Sequence[PlannedRoll],
                    profiles: Mapping[TrooperId, UnitProfile]) -> tuple[PlannedRoll, ...]:
    """``rolls`` with a negative Dodge MOD added to each attack Face to Face with that
    Dodge: an enemy attack (BS or CC) on the dodging trooper."""
    out: list[PlannedRoll] = []
    for roll in rolls:
        mods = [Mod("enemy_dodge", value) for dodge in rolls
                if _opposed_by_dodge(roll, dodge)
                and (value := profiles[dodge.trooper].dodge_mod) < 0]
        out.append(replace(roll, mods=roll.mods + tuple(mods[:1])) if mods else roll)
    return tuple(out)


def _opposed_by_dodge(attack: PlannedRoll, dodge: PlannedRoll) -> bool:
    return (dodge.skill == "dodge" and attack.skill in ("bs_attack", "cc_attack")
            and attack.target == dodge.trooper and attack.active != dodge.active)
