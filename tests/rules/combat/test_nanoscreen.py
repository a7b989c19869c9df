"""DIGEST 10.6 (Partial Cover; "Nanoscreen = same as cover, no stacking") with Nanoscreen
(``combat/nanoscreen.py``): the carrier counts as in Partial Cover against BS Attacks (the
attacker -3, its saves +3), never twice with the cover of scenery, never in CC."""

from __future__ import annotations

from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
from server.rules.armies.not_refereed import ItemKind
from server.rules.armies.skills import CcAttack
from server.rules.combat.mods import bs_attack_mods
from server.rules.combat.resolution import resolve_order
from server.rules.combat.rolls import Mod
from server.rules.ids import Side, TerrainId
from server.rules.table.terrain import TerrainPiece, standard_table

from .fighting_builders import with_skills
from .resolution_builders import KNIFE, RIFLE, resolving, shoot, trooper

A, B = Side.A, Side.B
WALL = TerrainPiece(TerrainId("low"), ((15.2, 8), (15.5, 8), (15.5, 12), (15.2, 12)), 0.5)


def test_nanoscreen_in_the_open_is_partial_cover_against_a_bs_attack() -> None:
    """ARM 1 + PS 7 + 3 = 11: the save gains the cover's +3 too."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = with_skills(trooper("t", B, (16, 10), 180.0), nanoscreen=True)
    state = resolving(shooter, [shoot(RIFLE, (target, 1))], [target], faces=[4, 12, 5])
    outcome, _ = resolve_order(state)
    assert outcome.rolls[0].mods == (Mod("range", 3), Mod("nanoscreen", -3))
    (save,) = outcome.saves
    assert save.partial_cover and save.target == 1 + 7 + 3 and save.failed == 1


def test_nanoscreen_does_not_stack_with_the_cover_of_scenery() -> None:
    shooter = trooper("s", A, (10, 10), 0.0)
    target = with_skills(trooper("t", B, (16, 10), 180.0), nanoscreen=True)
    shot = bs_attack_mods(RIFLE, target, shooter.body(), target.body(), standard_table([WALL]))
    assert shot.partial_cover and shot.mods == (Mod("range", 3), Mod("partial_cover", -3))


def test_nanoscreen_gives_nothing_in_close_combat() -> None:
    attacker = trooper("a", A, (10, 10), 0.0)
    defender = with_skills(trooper("d", B, (10.984, 10), 180.0), nanoscreen=True)
    state = resolving(attacker, [CcAttack(weapon=KNIFE.id, target=defender.id)], [defender],
                      faces=[3, 20, 5])
    outcome, _ = resolve_order(state)
    assert outcome.rolls[0].mods == ()
    assert not outcome.saves[0].partial_cover


def test_the_catalogue_maps_nanoscreen() -> None:
    flags = TrooperFlags()
    assert apply_item(DataItem(ItemKind.EQUIPMENT, "Nanoscreen"), flags) is None
    assert flags.fields == {"nanoscreen": True}
