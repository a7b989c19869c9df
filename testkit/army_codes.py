"""Army codes built from army data (the invented ``testkit/army_data/`` by default), for tests
and whole games with a code.

``army_code_text`` writes a code for the troopers you name; ``trooper_choices`` lists what a
faction offers (with what the conversion makes of it: cost, SWC, Lieutenant, Peripheral,
flags); ``legal_army_code`` picks, from a seed, a list ``load_army_list`` accepts once
converted: exactly one Lieutenant, every Peripheral right after a trooper of its group,
within the group and list sizes and a points limit that covers its cost and SWC.

    from testkit.army_codes import legal_army_code
    code = legal_army_code(seed=7)                      # a Lantern Accord list, N5 layout
    code = legal_army_code(seed=7, faction_id=902, layout="n4",
                           exclude_flags={"hidden_deployment", "combat_jump"})
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache

from server.node.army_data_folder import load_army_data
from server.rules.armies.army_code import (
    ArmyCode,
    CombatGroup,
    Customisation,
    GroupMember,
    Layout,
    encode_army_code,
)
from server.rules.armies.army_data import ArmyData
from server.rules.armies.army_list import GROUP_MAX, POINTS_PER_SWC, STANDARD_LIST_MAX, ListFormat
from server.rules.armies.trooper_conversion import TrooperConversionError, convert_trooper
from testkit.synthetic_army_data import SYNTHETIC_ARMY_DATA

Pick = tuple[int, int, int]
"""A trooper as an army code names it: unit id, profile group id, option id."""


@cache
def synthetic_army_data() -> ArmyData:
    """The invented dataset, loaded once per process."""
    return load_army_data(SYNTHETIC_ARMY_DATA)


@dataclass(frozen=True, slots=True)
class TrooperChoice:
    """One option of a faction as the conversion sees it."""

    pick: Pick
    name: str
    cost: int
    swc: float
    lieutenant: bool
    peripheral: bool
    flags: frozenset[str]
    """The profile flags set (``hidden_deployment``, ``impetuous``...)."""


def trooper_choices(data: ArmyData, faction_id: int) -> tuple[TrooperChoice, ...]:
    """Every option of the faction that converts (an option the engine cannot field at all
    is left out)."""
    found: list[TrooperChoice] = []
    for unit in data.units(faction_id):
        for group in unit.groups:
            for option in group.options:
                try:
                    converted = convert_trooper(
                        data, data.trooper(faction_id, unit.id, group.id, option.id))
                except TrooperConversionError:
                    continue
                profile = converted.profile
                flags = frozenset(key for key, value in profile.items()
                                  if value is True and key != "structure")
                found.append(TrooperChoice((unit.id, group.id, option.id), profile["name"],
                                           profile["cost"], profile["swc"],
                                           converted.lieutenant, converted.peripheral, flags))
    return tuple(found)


def army_code_text(faction_id: int, groups: Sequence[Sequence[Pick]], *, points: int,
                   layout: Layout = "n5", name: str = "", slug: str = "",
                   customisations: dict[tuple[int, int], tuple[Customisation, ...]]
                   | None = None) -> str:
    """The army code for ``groups`` (numbered from 1, members in order); ``customisations``
    by (group index, member index), both from 0."""
    extra = customisations or {}
    code = ArmyCode(
        layout=layout, faction_id=faction_id, faction_slug=slug, list_name=name,
        points_limit=points,
        combat_groups=tuple(
            CombatGroup(number, tuple(GroupMember(*pick, extra.get((number - 1, index), ()))
                                      for index, pick in enumerate(members)),
                        (1, 0) if layout == "n5" else None)
            for number, members in enumerate(groups, start=1)))
    return encode_army_code(code)


def legal_army_code(seed: int, data: ArmyData | None = None, *, faction_id: int = 901,
                    layout: Layout = "n5", list_format: ListFormat = ListFormat.STANDARD,
                    troopers: int = 5, exclude_flags: Collection[str] = (),
                    points: int | None = None) -> str:
    """A code of ``troopers`` troopers (plus the Peripherals their Controllers bring) that
    converts into a list ``load_army_list`` accepts; the same seed gives the same code.
    ``points``: the list's points limit (e.g. the opponent's, which a game's two lists share),
    at least what the troopers cost and their SWC need; by default just that."""
    limit = GROUP_MAX if list_format is ListFormat.CODEONE else STANDARD_LIST_MAX
    if not 1 <= troopers <= limit:
        raise ValueError(f"a {list_format.value} list holds 1-{limit} troopers, not {troopers}")
    data = data or synthetic_army_data()
    rng = random.Random(seed)
    forbidden = set(exclude_flags)
    if list_format is ListFormat.CODEONE:
        forbidden |= {"impetuous", "sixth_sense"}
    choices = [choice for choice in trooper_choices(data, faction_id)
               if not choice.flags & forbidden]
    leaders = [choice for choice in choices if choice.lieutenant]
    others = [choice for choice in choices if not choice.lieutenant and not choice.peripheral]
    peripherals = [choice for choice in choices if choice.peripheral]
    if not leaders or not others:
        raise ValueError(f"faction {faction_id} offers no legal list with these exclusions")
    picked = [rng.choice(leaders), *(rng.choice(others) for _ in range(troopers - 1))]
    group_count = 1 if list_format is ListFormat.CODEONE else math.ceil(len(picked) / GROUP_MAX)
    groups: list[list[TrooperChoice]] = [[] for _ in range(group_count)]
    for index, choice in enumerate(picked):
        groups[index % group_count].append(choice)
        if peripherals and rng.random() < 0.3:
            groups[index % group_count].append(rng.choice(peripherals))
    cost = sum(choice.cost for group in groups for choice in group)
    swc = sum(choice.swc for group in groups for choice in group)
    needed = max(cost, math.ceil(swc * POINTS_PER_SWC[list_format.value]), 1)
    if points is not None and points < needed:
        raise ValueError(f"the list needs a limit of {needed} points at least, not {points}")
    points = points if points is not None else needed
    return army_code_text(faction_id, [[choice.pick for choice in group] for group in groups],
                          points=points, layout=layout, name=f"Generated list {seed}")
