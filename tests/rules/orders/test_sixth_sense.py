"""Sixth Sense (DIGEST 13; seed 000 ARO: "a Special Skill ... allowing it to react to enemy
actions without LoF"): only the target of an Attack, only against that attacker, only in
the N5 ruleset (CodeOne does not use it, DIGEST 14)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from server.rules.combat.resolution import resolve_order
from server.rules.events import AroWindowOpened
from server.rules.ids import Side, TerrainId
from server.rules.options import seat_options
from server.rules.ruleset import Ruleset
from server.rules.state import Eligibility
from server.rules.table.terrain import TerrainPiece
from tests.rules.combat.resolution_builders import RIFLE, resolving, shoot, trooper
from tests.support.games import play
from tests.support.skirmish import skirmish

SHOT = {"type": "declare_skill", "skill": {"type": "bs_attack", "weapon": "line_rifle", "targets": [
    {"trooper": "B-t1", "burst": 2}, {"trooper": "B-t3", "burst": 1}]}}


def shooting(ruleset: Ruleset = Ruleset.N5) -> tuple[Any, AroWindowOpened]:
    # A-t7 shoots two troopers facing away, beyond its ZoC: the Boss (Sixth Sense) and an
    # Enforcer (none).
    state = skirmish({"A-t7": (30, 4, 90.0), "B-t1": (30, 14, 90.0), "B-t3": (33, 14, 90.0),
                      "A-t1": (1, 1, 270.0)}, ruleset="n5")
    state = replace(state, ruleset=ruleset)
    state, _ = play(state, Side.A, {"type": "activate", "trooper": "A-t7", "order": "regular"})
    state, events = play(state, Side.A, SHOT)
    window = next(e for e in events if isinstance(e, AroWindowOpened))
    return state, window


def test_only_the_attacked_trooper_with_sixth_sense_becomes_eligible() -> None:
    state, window = shooting()
    assert window.eligible == (Eligibility("B-t1", False, False, False, True),)  # type: ignore[arg-type]
    options = seat_options(state, Side.B)["aros"]
    assert set(options) == {"B-t1"} and options["B-t1"]["sixth_sense"] is True
    assert options["B-t1"]["bs_attack"] == ["breacher_rifle", "sidearm"]  # not only Dodge/Reset


def test_codeone_ruleset_switches_sixth_sense_off() -> None:
    _, window = shooting(Ruleset.CODEONE)
    assert window.eligible == ()


def test_sixth_sense_sees_its_attacker_all_round_but_terrain_still_blocks() -> None:
    boss = trooper("boss", Side.B, (20, 10), 0.0)  # facing away from the shooter
    boss = replace(boss, entry=replace(boss.entry, profile=replace(boss.profile, sixth_sense=True)))
    shooter = trooper("s", Side.A, (10, 10), 0.0)
    why = {boss.id: Eligibility(boss.id, False, False, False, True)}
    aro = shoot(RIFLE, (shooter, 1))
    state = resolving(shooter, [shoot(RIFLE, (boss, 3))], [boss], aros={boss.id: aro}, eligible=why,
                      faces=[20, 20, 20, 5, 20])
    outcome, _ = resolve_order(state)
    assert [r.skill for r in outcome.rolls[:2]] == ["bs_attack", "bs_attack"]
    assert outcome.rolls[1].trooper == boss.id and outcome.rolls[1].opposed_by == (0,)
    # A wall between them: Sixth Sense gives 360 degrees, not sight through walls.
    wall = TerrainPiece(TerrainId("wall"), ((14, 5), (15, 5), (15, 15), (14, 15)), 5.0)
    blocked = resolving(shooter, [shoot(RIFLE, (boss, 3))], [boss], aros={boss.id: aro}, eligible=why,
                        terrain=[wall])
    outcome, _ = resolve_order(blocked)
    assert [(e.TYPE, getattr(e, "reason", None)) for e in outcome.effects] == [
        ("became_idle", "no_line_of_fire"), ("became_idle", "no_line_of_fire")]


def test_without_sixth_sense_the_same_reactor_is_limited_to_its_front_arc() -> None:
    boss = trooper("boss", Side.B, (20, 10), 0.0)
    shooter = trooper("s", Side.A, (10, 10), 0.0)
    why = {boss.id: Eligibility(boss.id, False, False, False, True)}
    state = resolving(shooter, [], [boss], aros={boss.id: shoot(RIFLE, (shooter, 1))}, eligible=why)
    outcome, _ = resolve_order(state)
    assert [(e.TYPE, getattr(e, "reason", None)) for e in outcome.effects] == [
        ("became_idle", "no_line_of_fire")]
