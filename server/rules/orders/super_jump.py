"""Super-Jump (Special Skill; infinitythewiki "Super-Jump", DIGEST 9 Jump: "Super-Jump
makes it Short Movement").

* The user's Jump is a Short Movement Skill, not an Entire Order one: the Order's
  structure judges it as a Move (``structure_name``), so Jump + BS Attack, Move + Jump or
  Jump + Jump are legal Orders for it.
* Its length is the MOV value of that movement (the first value, the second for a second
  movement in the Order), as a Move's (``allowance``).
* It may jump vertically or diagonally as far: its route passes over scenery up to that
  height in inches (``clears``), where a common Jump clears 2 inches.
* In a joint activation (Peripherals, a Coordinated Order, a Fireteam) with a Super-Jumping
  leader, a participant without the skill judges the same Jump as its Entire Order: it then
  declares nothing more, i.e. Idle in place of the leader's second skill
  (``follows_in_own_order``; the wiki page's example with several troopers).
* Not modelled: falling damage (the table has no heights to fall from), and the LoF of 360
  degrees while jumping (Line of Fire is judged where the trooper stands and on its path as
  for every movement).
docs/rules-decisions/deployment-skills.md "Super-Jump".
"""

from __future__ import annotations

from collections.abc import Sequence

from ..armies.profiles import UnitProfile
from .order_structure import may_follow


def jumps_as_short_movement(profile: UnitProfile, skill_type: str) -> bool:
    return skill_type == "jump" and profile.super_jump


def structure_name(profile: UnitProfile, skill_type: str) -> str:
    """The skill the Order's structure judges ``skill_type`` as, for this trooper."""
    return "move" if jumps_as_short_movement(profile, skill_type) else skill_type


def allowance(mov: tuple[int, int], moved_before: bool) -> float:
    """A Super-Jump's length: the MOV value of that movement."""
    return float(mov[1] if moved_before else mov[0])


def follows_in_own_order(profile: UnitProfile, own_skills: Sequence[str], skill_type: str) -> bool:
    """Whether ``skill_type`` may follow the skills this trooper declared so far in the
    Order, judged on its own profile. In a joint activation the leader's structure is not
    every participant's: after a leader's Jump made short by Super-Jump, a participant
    without it has spent its whole Order on that Jump, so it performs Idle for the rest."""
    return not own_skills or may_follow(structure_name(profile, own_skills[0]),
                                        structure_name(profile, skill_type))
