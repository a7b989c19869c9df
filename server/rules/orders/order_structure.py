"""Which skill combinations one Order allows (seed: "Structure of an Order").

- any one Entire Order Skill;
- any one Short Movement Skill plus any one Short Movement Skill;
- any one Short Movement Skill plus any one Short Skill, in either order;
- never two Short Skills.
A skill left undeclared counts as Idle (DIGEST 4.1), so a lone first skill is legal.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..armies.skills import SKILLS, SkillCategory


def may_follow(first: str, second: str) -> bool:
    """Whether ``second`` may be declared after ``first`` in the same Order."""
    a, b = SKILLS[first].category, SKILLS[second].category
    if SkillCategory.ENTIRE_ORDER in (a, b) or SkillCategory.AUTOMATIC in (a, b):
        return False
    return not (a is SkillCategory.SHORT and b is SkillCategory.SHORT)


def is_legal_order(skills: Sequence[str]) -> bool:
    """Whether a complete list of declared skill names is a legal Order."""
    if len(skills) == 1:
        return SKILLS[skills[0]].category is not SkillCategory.AUTOMATIC
    if len(skills) == 2:
        return may_follow(skills[0], skills[1])
    return False


def ends_order(skill: str) -> bool:
    """An Entire Order Skill takes the whole Order: no second skill follows it."""
    return SKILLS[skill].category is SkillCategory.ENTIRE_ORDER


def legal_second_skills(first: str) -> tuple[str, ...]:
    """The skills the active player may still declare after ``first``."""
    return tuple(
        name
        for name, info in SKILLS.items()
        if info.usable_in_active_turn and may_follow(first, name)
    )
