"""Which attribute a BS Attack rolls: BS, or PH when the weapon is thrown.

DIGEST, Attributes: PH is the attribute of Dodge and "some throws". In our words: a weapon
with the Throwing Weapon trait (``throwing_weapon``: grenades, thrown knives) is thrown, not
fired, so its BS Attack rolls the thrower's PH; everything else about the attack (range MODs,
Burst, the Face to Face Roll, MODs to a BS Attack such as cover or a Fireteam's +1) stays as
for any BS Attack (docs/rules-decisions/resolution.md, "Throwing Weapons").
"""

from __future__ import annotations

from ..armies.profiles import UnitProfile
from ..armies.weapons import Weapon


def bs_attack_attribute(profile: UnitProfile, weapon: Weapon) -> tuple[str, int]:
    """The attribute's name as the record writes it and the trooper's value of it."""
    if weapon.is_thrown:
        return "PH", profile.ph
    return "BS", profile.bs
