"""Partial Cover from terrain (DIGEST 10.6; rule chosen in docs/rules-decisions/geometry.md)."""

from __future__ import annotations

from server.rules.ids import TerrainId
from server.rules.table.cover import in_partial_cover
from server.rules.table.geometry import CONTACT_TOLERANCE, Body
from server.rules.table.line_of_fire import has_line_of_fire
from server.rules.table.terrain import TerrainPiece, standard_table

ATTACKER = Body((10.0, 10.0), 0.0, 2)
TARGET = Body((20.0, 10.0), 180.0, 2)  # base edge at x ~19.508
TOUCHING = (19.2, 19.5)
"""A wall whose east face is 0.008 inch from the target's base: Silhouette contact."""


def wall(x0: float, x1: float, height: float, gives_cover: bool = True) -> TerrainPiece:
    polygon = ((x0, 5.0), (x1, 5.0), (x1, 15.0), (x0, 15.0))
    return TerrainPiece(TerrainId("wall"), polygon, height, gives_cover)


def test_no_cover_in_open_ground() -> None:
    """10.6: with no scenery there is no Partial Cover."""
    assert not in_partial_cover(TARGET, ATTACKER, standard_table())


def test_low_wall_in_contact_with_the_target_gives_partial_cover() -> None:
    """10.6: scenery the target touches that hides part of it gives Partial Cover."""
    table = standard_table([wall(*TOUCHING, 1.0)])
    assert has_line_of_fire(ATTACKER, TARGET, table)
    assert in_partial_cover(TARGET, ATTACKER, table)


def test_low_wall_0_91_inch_from_the_target_gives_no_cover() -> None:
    """N5 "Partial Cover": the target must be in contact with the scenery that partly hides
    it. A wall 0.91 inch away hides the same part of the target but is not touched (the
    referee once counted anything within 1 inch as contact)."""
    table = standard_table([wall(18.3, 18.6, 1.0)])  # east face 0.908 inch from the base
    assert has_line_of_fire(ATTACKER, TARGET, table)
    assert not in_partial_cover(TARGET, ATTACKER, table)


def test_contact_means_within_the_contact_tolerance() -> None:
    """Touching is measured as base contact is (``CONTACT_TOLERANCE``, 0.05 inch)."""
    edge = 20.0 - TARGET.radius
    near = standard_table([wall(edge - CONTACT_TOLERANCE - 0.3, edge - CONTACT_TOLERANCE + 1e-6,
                                1.0)])
    apart = standard_table([wall(edge - CONTACT_TOLERANCE - 0.3, edge - CONTACT_TOLERANCE - 1e-3,
                                 1.0)])
    assert in_partial_cover(TARGET, ATTACKER, near)
    assert not in_partial_cover(TARGET, ATTACKER, apart)


def test_a_target_seen_only_by_reciprocity_is_in_cover_behind_the_wall_it_touches() -> None:
    """An S3 (1.26 inch tall) against a 1.25-inch crate shows less than 3 mm to the
    attacker, but its own top sees over the crate: reciprocity gives both Line of Fire, and
    the crate it touches covers it."""
    crouched = Body((20.0, 10.0), 180.0, 3)
    crate = standard_table([wall(19.0, 20.0 - crouched.radius, 1.25)])
    assert has_line_of_fire(crouched, ATTACKER, crate)
    assert has_line_of_fire(ATTACKER, crouched, crate)
    assert in_partial_cover(crouched, ATTACKER, crate)


def test_wall_that_hides_the_target_entirely_gives_no_lof_and_no_cover() -> None:
    """10.6 (10.1): scenery that hides the target entirely leaves no Line of Fire, so no cover."""
    table = standard_table([wall(19.0, 19.3, 5.0)])
    assert not has_line_of_fire(ATTACKER, TARGET, table)
    assert not in_partial_cover(TARGET, ATTACKER, table)


def test_wall_far_from_the_target_gives_no_cover() -> None:
    """The wall must touch the target, even if it hides part of it."""
    table = standard_table([wall(14.0, 14.3, 1.0)])
    assert has_line_of_fire(ATTACKER, TARGET, table)
    assert not in_partial_cover(TARGET, ATTACKER, table)


def test_wall_behind_the_target_gives_no_cover() -> None:
    """10.6: scenery behind the target, not between it and the attacker, gives no cover."""
    table = standard_table([wall(20.7, 21.0, 1.0)])
    assert not in_partial_cover(TARGET, ATTACKER, table)


def test_scenery_without_cover_flag_gives_no_cover() -> None:
    """10.6: scenery that does not give cover (its table entry says so) gives none."""
    table = standard_table([wall(*TOUCHING, 1.0, gives_cover=False)])
    assert has_line_of_fire(ATTACKER, TARGET, table)
    assert not in_partial_cover(TARGET, ATTACKER, table)


def test_no_cover_against_an_attacker_facing_away() -> None:
    """10.6: against an attacker facing away (the target outside its front arc) there is no cover."""
    table = standard_table([wall(*TOUCHING, 1.0)])
    facing_away = Body((10.0, 10.0), 180.0, 2)
    assert not in_partial_cover(TARGET, facing_away, table)
