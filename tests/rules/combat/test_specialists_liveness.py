"""Random whole games with Doctors, Paramedics, Engineers and Forward Observers (the shipped
N5 lists with some troopers given those skills): the games end by themselves, every offered
declaration is accepted, and the Forward Observer's previews match its rolls.

Implementation test: no rule section. Liveness is the server's own promise, not a rule."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.rules.armies.army_catalogue import sample_armies
from server.rules.armies.army_list import ArmyList
from server.rules.ids import Side
from server.rules.state import Phase
from tests.support.liveness import play_random_game

SKILLS = ("doctor", "paramedic", "engineer", "forward_observer")


def _with_specialists(army_id: str) -> ArmyList:
    """Every other non-Peripheral trooper gets one of the Specialist skills, in turn."""
    army = sample_armies()[army_id]
    entries = []
    for index, entry in enumerate(army.entries):
        if entry.profile.is_peripheral or index % 2:
            entries.append(entry)
            continue
        skill = SKILLS[(index // 2) % len(SKILLS)]
        entries.append(replace(entry, profile=replace(entry.profile, **{skill: True})))
    return replace(army, entries=tuple(entries))


@pytest.mark.slow  # one whole random game
def test_random_games_with_specialists_end_by_themselves() -> None:
    lists = {Side.A: _with_specialists("helion-vanguard"), Side.B: _with_specialists("vesper-raiders")}
    log = play_random_game("n5", 7, orders_per_turn=5, lists=lists)
    assert log.state.phase is Phase.GAME_OVER
    assert not log.refused_offers, "\n".join(log.refused_offers)
    assert not log.changed_previews, "\n".join(log.changed_previews)
    declared = {label.split(":")[1] for label in log.commands if label.startswith("declare_")}
    assert declared & set(SKILLS), sorted(log.commands)
