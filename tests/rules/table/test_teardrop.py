"""The teardrop's plan-view geometry (server/rules/table/templates.py): which points and bases
it covers, placed on a shooter's base.

DIGEST 13 (Direct Template weapons: the teardrop laid from the shooter's base)."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from server.rules.armies.weapons import TemplateShape, template_length
from server.rules.table.geometry import Body, Point
from server.rules.table.templates import (
    Teardrop,
    TeardropSize,
    covers_point,
    place_teardrop,
    teardrop_distance,
    teardrop_size,
    touches_base,
    touches_disc,
)

LARGE = teardrop_size(TemplateShape.LARGE_TEARDROP)
SHOOTER = Body((10.0, 10.0), 90.0, 2)  # facing +y; its base radius is about 0.49 inches


def _north() -> Teardrop:
    return place_teardrop(SHOOTER, (10.0, 30.0), LARGE)


def test_sizes_come_from_the_template_lengths() -> None:
    for shape in TemplateShape:
        size = teardrop_size(shape)
        assert size.length == template_length(shape)
        assert size.narrow_radius < size.wide_radius < size.length / 2


def test_placed_with_its_narrow_tip_on_the_shooters_rim_pointing_at_the_aim() -> None:
    drop = _north()
    assert drop.axis == (0.0, 1.0)
    assert math.isclose(drop.focus[1], 10.0 + SHOOTER.radius)
    assert math.isclose(drop.far_point[1], 10.0 + SHOOTER.radius + LARGE.length)
    # The tip and the far end lie on its edge; the shooter's base only touches it at the tip.
    assert abs(teardrop_distance(drop, drop.focus)) < 1e-9
    assert abs(teardrop_distance(drop, drop.far_point)) < 1e-9
    assert math.isclose(teardrop_distance(drop, SHOOTER.position), SHOOTER.radius)


def test_point_in_teardrop() -> None:
    drop = _north()
    tip_y, far_y = drop.focus[1], drop.far_point[1]
    assert covers_point(drop, (10.0, (tip_y + far_y) / 2))            # on the axis
    assert not covers_point(drop, (10.0, far_y + 0.01))               # past its length
    assert not covers_point(drop, (10.0, tip_y - 0.01))               # behind the tip
    assert covers_point(drop, (10.0 + LARGE.wide_radius - 0.01, drop.wide_centre[1]))
    assert not covers_point(drop, (10.0 + LARGE.wide_radius + 0.01, drop.wide_centre[1]))
    # Narrow near the shooter: a point 1 inch off the axis, 1 inch past the tip, is outside.
    assert not covers_point(drop, (11.0, tip_y + 1.0))
    # Nothing beside or behind the shooter: the template is not a circle around it.
    assert not covers_point(drop, (15.0, 10.0))
    assert not covers_point(drop, (10.0, 5.0))


def test_circle_intersects_teardrop() -> None:
    drop = _north()
    wide_x, wide_y = drop.wide_centre
    edge = wide_x + LARGE.wide_radius
    assert touches_disc(drop, (edge + 0.5, wide_y), 0.5)           # touching from outside
    assert not touches_disc(drop, (edge + 0.51, wide_y), 0.5)
    assert touches_disc(drop, (wide_x, wide_y), 0.1)               # covered entirely
    assert touches_base(drop, Body((10.0, drop.far_point[1] + 0.4), 0.0, 2))  # radius ~0.49
    assert not touches_base(drop, Body((10.0, drop.far_point[1] + 0.6), 0.0, 2))


def test_a_shape_that_is_not_a_teardrop_is_refused() -> None:
    for bad in ((8.0, 2.0, 1.0), (8.0, 0.25, 4.0), (8.0, 0.0, 1.0)):
        try:
            TeardropSize(*bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad} accepted")


# --- properties --------------------------------------------------------------------------

coordinates = st.floats(-40.0, 40.0, allow_nan=False)
points = st.tuples(coordinates, coordinates)
angles = st.floats(0.0, 2 * math.pi, allow_nan=False)
shapes = st.sampled_from(list(TemplateShape))


def _drop(focus: Point, angle: float, shape: TemplateShape) -> Teardrop:
    return Teardrop(focus, (math.cos(angle), math.sin(angle)), teardrop_size(shape))


def _local(drop: Teardrop, along: float, across: float) -> Point:
    (fx, fy), (ux, uy) = drop.focus, drop.axis
    return (fx + along * ux - across * uy, fy + along * uy + across * ux)


def _hull_distance(drop: Teardrop, point: Point) -> float:
    """The distance to the hull of the two end circles, found the slow way: the smallest
    gap between ``point`` and the circles swept from one end to the other (a convex
    function of the sweep, minimised by ternary search)."""
    (ax, ay), (bx, by) = drop.narrow_centre, drop.wide_centre
    r0, r1 = drop.size.narrow_radius, drop.size.wide_radius

    def gap(t: float) -> float:
        cx, cy = ax + t * (bx - ax), ay + t * (by - ay)
        return math.hypot(point[0] - cx, point[1] - cy) - (r0 + t * (r1 - r0))

    lo, hi = 0.0, 1.0
    for _ in range(200):
        m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if gap(m1) < gap(m2):
            hi = m2
        else:
            lo = m1
    return gap((lo + hi) / 2)


@given(points, angles, shapes, st.floats(-2.0, 14.0), st.floats(0.0, 6.0))
def test_symmetric_about_its_axis(focus: Point, angle: float, shape: TemplateShape,
                                  along: float, across: float) -> None:
    drop = _drop(focus, angle, shape)
    left = teardrop_distance(drop, _local(drop, along, across))
    right = teardrop_distance(drop, _local(drop, along, -across))
    assert math.isclose(left, right, abs_tol=1e-9)


@given(points, angles, shapes, st.floats(-4.0, 16.0), st.floats(-8.0, 8.0))
def test_matches_the_hull_of_its_end_circles(focus: Point, angle: float, shape: TemplateShape,
                                             along: float, across: float) -> None:
    """Outside, the distance is the distance to the hull; inside or out, the sign agrees."""
    drop = _drop(focus, angle, shape)
    point = _local(drop, along, across)
    exact, slow = teardrop_distance(drop, point), _hull_distance(drop, point)
    if slow > 1e-6:
        assert math.isclose(exact, slow, abs_tol=1e-6)
    elif slow < -1e-6:
        assert exact < 0.0


@given(points, angles, shapes, angles, st.floats(0.3, 3.0))
def test_a_base_touching_its_rim_at_any_point_is_affected(
        focus: Point, angle: float, shape: TemplateShape, bearing: float, radius: float) -> None:
    """Walk out from a point inside along any bearing to the edge; a disc touching the edge
    there from outside (centre along the outward normal) is touched, and moved a little
    further out, it is not."""
    drop = _drop(focus, angle, shape)
    inside = _local(drop, drop.size.length / 2, 0.0)
    dx, dy = math.cos(bearing), math.sin(bearing)
    lo, hi = 0.0, drop.size.length
    for _ in range(80):  # bisection on the edge along the bearing
        mid = (lo + hi) / 2
        if teardrop_distance(drop, (inside[0] + mid * dx, inside[1] + mid * dy)) <= 0.0:
            lo = mid
        else:
            hi = mid
    rim = (inside[0] + lo * dx, inside[1] + lo * dy)
    h = 1e-6  # the outward normal, from the distance's gradient
    nx = teardrop_distance(drop, (rim[0] + h, rim[1])) - teardrop_distance(drop, (rim[0] - h, rim[1]))
    ny = teardrop_distance(drop, (rim[0], rim[1] + h)) - teardrop_distance(drop, (rim[0], rim[1] - h))
    norm = math.hypot(nx, ny)
    nx, ny = nx / norm, ny / norm
    assert touches_disc(drop, (rim[0] + nx * (radius - 1e-7), rim[1] + ny * (radius - 1e-7)), radius)
    assert not touches_disc(drop, (rim[0] + nx * (radius + 1e-3), rim[1] + ny * (radius + 1e-3)),
                            radius)


@given(points, angles, shapes, st.floats(-2.0, 14.0), st.floats(-6.0, 6.0))
def test_placement_follows_the_shooter_and_the_aim(focus: Point, angle: float, shape: TemplateShape,
                                                   along: float, across: float) -> None:
    """Placed by a shooter anywhere aiming anywhere, it is the same shape as one laid at
    its tip along its axis: rotating and moving the table changes nothing."""
    shooter = Body(focus, 0.0, 2)
    aim = (focus[0] + 10.0 * math.cos(angle), focus[1] + 10.0 * math.sin(angle))
    placed = place_teardrop(shooter, aim, teardrop_size(shape))
    laid = _drop((focus[0] + shooter.radius * math.cos(angle),
                  focus[1] + shooter.radius * math.sin(angle)), angle, shape)
    point = _local(laid, along, across)
    assert math.isclose(teardrop_distance(placed, point), teardrop_distance(laid, point),
                        abs_tol=1e-6)
