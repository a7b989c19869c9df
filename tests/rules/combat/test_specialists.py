"""Specialist status and the Specialist items of imported lists (wiki N5 pages "Specialist
Operative", "Specialist Troops", "Doctor", "Engineer"): ``UnitProfile.is_specialist`` is the
fact missions read; the item catalogue maps the skills, naming a variant it does not play
(DIGEST 2: what a unit profile carries)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
from server.rules.armies.not_refereed import ItemKind
from server.rules.ids import TrooperId
from tests.support.scenarios import build_state


@pytest.mark.parametrize("field", ["doctor", "paramedic", "engineer", "forward_observer",
                                   "hacker", "specialist_operative"])
def test_each_specialist_skill_makes_a_specialist_troop(field: str) -> None:
    profile = build_state({"ruleset": "n5", "placements": {}}).trooper(TrooperId("A-t7")).profile
    assert not profile.is_specialist
    assert replace(profile, **{field: True}).is_specialist


@pytest.mark.parametrize(("name", "levels", "field", "noted"), [
    ("Doctor", (), "doctor", False),
    ("Paramedic", (), "paramedic", False),
    ("ENGINEER", (), "engineer", False),
    ("Forward  Observer", (), "forward_observer", False),
    ("Specialist Operative", (), "specialist_operative", False),
    ("Doctor (2W)", (), "doctor", True),
    ("Engineer", ("ReRoll WIP=12",), "engineer", True),
])
def test_the_catalogue_maps_specialist_skills(name: str, levels: tuple[str, ...], field: str,
                                              noted: bool) -> None:
    flags = TrooperFlags()
    note = apply_item(DataItem(ItemKind.SKILL, name, levels), flags)
    assert flags.fields == {field: True}
    assert (note is not None) is noted
    if note is not None:
        assert "plain skill" in note.text
