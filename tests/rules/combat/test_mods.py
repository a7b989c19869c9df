"""MODs of resolution rolls (DIGEST 7.1, 10.5, 10.6, 8, 6.1)."""

from __future__ import annotations

from server.rules.armies.skills import Move
from server.rules.combat.mods import bs_attack_mods, discover_mods, dodge_mods, reset_mods
from server.rules.combat.resolution import resolve_order
from server.rules.combat.rolls import Mod
from server.rules.ids import Side, TerrainId
from server.rules.table.terrain import TerrainPiece, standard_table

from .resolution_builders import PISTOL, RIFLE, resolving, shoot, trooper

A, B = Side.A, Side.B


def test_range_band_is_measured_from_the_chosen_firing_point() -> None:
    """4.1/10.5: Move + BS Attack may shoot from the start of the route (+3 at 6")."""
    shooter = trooper("s", A, (30, 10), 180.0)
    target = trooper("t", B, (12, 10), 0.0)
    route = ((20, 10), (30, 10))
    near = resolving(shooter, [Move(route=route), shoot(RIFLE, (target, 1), firing_point=(20, 10))],
                     [target], path=route, faces=[20])
    far = resolving(shooter, [Move(route=route), shoot(RIFLE, (target, 1))], [target],
                    path=route, faces=[20])
    assert resolve_order(near)[0].rolls[0].mods == (Mod("range", 3),)
    assert resolve_order(far)[0].rolls[0].mods == (Mod("range", -3),)


def test_partial_cover_targeted_and_mimetism_are_listed() -> None:
    """10.6 and 8: Partial Cover -3, Targeted +3, Mimetism -6 against a BS Attack."""
    wall = TerrainPiece(TerrainId("low"), ((15.2, 8), (15.5, 8), (15.5, 12), (15.2, 12)), 0.5)
    table = standard_table([wall])
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (16, 10), 180.0, targeted=True, mimetism=6)
    shot = bs_attack_mods(RIFLE, target, shooter.body(), target.body(), table)
    assert shot.partial_cover and not shot.out_of_range
    assert shot.mods == (Mod("range", 3), Mod("partial_cover", -3), Mod("targeted", 3),
                         Mod("mimetism", -6))


def test_out_of_range_fails_without_dice() -> None:
    """5.2: out of range is not a Requirement: the attack fails automatically, no roll."""
    shooter = trooper("s", A, (1, 10), 0.0)
    target = trooper("t", B, (20, 10), 180.0)
    state = resolving(shooter, [shoot(PISTOL, (target, 2))], [target])
    outcome, dice = resolve_order(state)
    roll = outcome.rolls[0]
    assert roll.automatic_failure and roll.dice == () and dice == state.dice


def test_mod_cap_and_sv_below_one_roll_no_dice() -> None:
    """W2: the net MOD is capped at -12; an SV under 1 fails with no dice rolled."""
    wall = TerrainPiece(TerrainId("low"), ((41.2, 8), (41.5, 8), (41.5, 12), (41.2, 12)), 0.5)
    shooter = trooper("s", A, (1, 10), 0.0, bs=11)
    target = trooper("t", B, (42, 10), 180.0, mimetism=6)
    state = resolving(shooter, [shoot(RIFLE, (target, 3))], [target], terrain=[wall])
    roll = resolve_order(state)[0].rolls[0]
    assert roll.mods == (Mod("range", -6), Mod("partial_cover", -3), Mod("mimetism", -6))
    assert roll.success_value == -1 and roll.automatic_failure and roll.dice == ()


def test_discover_uses_its_own_range_bands() -> None:
    """9 Discover: +3 up to 8", 0 to 32", -3 to 48", -6 to 96"."""
    seer = trooper("s", A, (1, 10), 0.0)
    marker = trooper("m", B, (40, 10), 180.0, mimetism=3, camouflage=3, marker=True)
    shot = discover_mods(marker, seer.body(), marker.body(), standard_table())
    assert shot.mods == (Mod("range", -3), Mod("mimetism", -3))


def test_dodge_without_line_of_fire_takes_minus_three_only_in_n5() -> None:
    """6.1: [N5] a Dodge from ZoC without LoF takes -3 PH; the option switches it off."""
    assert dodge_mods(True, True) == (Mod("no_line_of_fire", -3),)
    assert dodge_mods(True, False) == ()
    assert dodge_mods(False, True) == ()


def test_targeted_trooper_resets_at_minus_three() -> None:
    """8 Targeted: the trooper's own Reset takes -3."""
    assert reset_mods(trooper("t", B, (1, 1), targeted=True)) == (Mod("targeted", -3),)
    assert reset_mods(trooper("t", B, (1, 1))) == ()


def test_a_moved_trooper_shoots_from_its_firing_point_whatever_its_final_facing() -> None:
    """4.1 + the turning-while-moving decision: the shot accepted at declaration from a point
    of the route after its start is judged at resolution with the same all-round view, not
    with the facing the trooper ended its move with (it ends facing away from the target
    here). (The starting point itself keeps the facing the trooper had when the Order
    began: test_firing_point_facing.py.)"""
    shooter = trooper("s", A, (30, 10), 0.0)  # ends its move looking east, away from t
    target = trooper("t", B, (12, 10), 0.0)
    route = ((20, 10), (22, 10), (30, 10))
    state = resolving(shooter, [Move(route=route), shoot(RIFLE, (target, 1), firing_point=(22, 10))],
                      [target], path=route, faces=[5])
    outcome = resolve_order(state)[0]
    assert [roll.trooper for roll in outcome.rolls] == [shooter.id]
    assert [die.face for die in outcome.rolls[0].dice] == [5]
