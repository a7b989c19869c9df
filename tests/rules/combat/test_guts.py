"""Guts Rolls in the Conclusion (DIGEST 7.8): who rolls, and where a failure takes them by
default (``resolve_order`` gives every Guts movement at its default; the owner's choice of
another point, in the Guts window, is tests/rules/combat/test_guts_window.py)."""

from __future__ import annotations

from server.rules.combat.mods import blocking_bodies
from server.rules.combat.outcome import Moved, WentProne
from server.rules.combat.resolution import resolve_order
from server.rules.ids import Side, TerrainId
from server.rules.table.geometry import point_distance
from server.rules.table.line_of_fire import has_line_of_fire
from server.rules.table.terrain import TerrainPiece

from .resolution_builders import RIFLE, resolving, shoot, trooper

A, B = Side.A, Side.B
# Hit once (1), save passed (3 <= 8), Guts failed (20 > WIP 13).
HIT_SAVED_GUTS_FAILED = [1, 20, 20, 3, 20]


def test_guts_failure_in_the_open_goes_prone() -> None:
    """7.8 (3): nowhere within 2 inches leaves LoF or gives cover, so the trooper goes Prone."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (16, 10), 180.0)
    state = resolving(shooter, [shoot(RIFLE, (target, 3))], [target],
                      faces=HIT_SAVED_GUTS_FAILED)
    outcome, _ = resolve_order(state)
    guts = outcome.rolls[-1]
    assert guts.skill == "guts" and guts.trooper == target.id and guts.success_value == 13
    assert WentProne(target.id, "guts") in outcome.effects


def test_guts_failure_moves_out_of_line_of_fire() -> None:
    """7.8 (1): a failed Guts Roll moves the trooper up to 2 inches out of the attacker's LoF
    (the default point, the one taken when its owner accepts it or lets the deadline pass)."""
    wall = TerrainPiece(TerrainId("wall"), ((18.5, 10.6), (19.0, 10.6), (19.0, 16), (18.5, 16)),
                        3.0)
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (20, 10), 180.0)
    state = resolving(shooter, [shoot(RIFLE, (target, 3))], [target],
                      faces=HIT_SAVED_GUTS_FAILED, terrain=[wall])
    outcome, _ = resolve_order(state)
    (move,) = [e for e in outcome.effects if isinstance(e, Moved)]
    assert move.reason == "guts_out_of_line_of_fire" and move.route[0] == (20, 10)
    assert point_distance(move.route[0], move.route[-1]) <= 2.0
    end = state.trooper(target.id).body(move.route[-1])
    assert not has_line_of_fire(state.trooper(shooter.id).body(), end, state.table,
                                blocking_bodies(state, shooter.id, target.id))


def test_guts_passed_keeps_the_trooper_in_place() -> None:
    """7.8: success -> the trooper stays."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (16, 10), 180.0)
    state = resolving(shooter, [shoot(RIFLE, (target, 3))], [target], faces=[1, 20, 20, 3, 5])
    outcome, _ = resolve_order(state)
    assert outcome.rolls[-1].successes == 1
    assert not any(isinstance(e, (Moved, WentProne)) for e in outcome.effects)


def test_no_guts_roll_without_a_successful_attack() -> None:
    """7.8: only a successful Attack causing a Saving Roll triggers Guts."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (16, 10), 180.0)
    state = resolving(shooter, [shoot(RIFLE, (target, 3))], [target], faces=[20, 20, 20])
    outcome, _ = resolve_order(state)
    assert [r.skill for r in outcome.rolls] == ["bs_attack"]
