"""Property tests for the table geometry (DIGEST 10.1, 10.4)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from server.rules.table.geometry import Body, distance, in_front_arc
from server.rules.table.line_of_fire import has_line_of_fire
from server.rules.table.routes import route_length
from server.rules.table.silhouettes import KNOWN_SIZES
from server.rules.table.terrain import standard_table

coordinate = st.floats(min_value=0.0, max_value=48.0, allow_nan=False)
points = st.tuples(coordinate, coordinate)
bodies = st.builds(
    Body,
    position=points,
    facing=st.floats(min_value=-720.0, max_value=720.0, allow_nan=False),
    silhouette=st.sampled_from(KNOWN_SIZES),
    all_round_vision=st.booleans(),
)


@given(bodies, bodies)
def test_distance_is_symmetric_and_never_negative(a: Body, b: Body) -> None:
    assert distance(a, b) >= 0.0
    assert distance(a, b) == distance(b, a)


@given(bodies)
def test_facing_is_normalised(body: Body) -> None:
    assert 0.0 <= body.facing < 360.0


@given(bodies, points)
def test_a_moved_body_is_the_body_built_there(body: Body, position: tuple[float, float]) -> None:
    """``moved_to`` copies the slots instead of building: every slot must come out as
    building the body there would make it, measures included."""
    moved = body.moved_to(position)
    built = Body(position, body.facing, body.silhouette, body.all_round_vision)
    assert moved == built and repr(moved) == repr(built)
    assert (moved.radius, moved.height) == (built.radius, built.height)


@given(bodies, bodies)
def test_lof_on_an_empty_table_holds_iff_target_in_front_arc(viewer: Body, target: Body) -> None:
    """With nothing in the way, LoF is exactly the front-arc condition (DIGEST 10.1)."""
    assert has_line_of_fire(viewer, target, standard_table()) == in_front_arc(viewer, target)


@given(st.lists(points, min_size=1, max_size=6), st.lists(points, min_size=0, max_size=6))
def test_route_length_is_additive(
    first: list[tuple[float, float]], rest: list[tuple[float, float]]
) -> None:
    joined = first + rest
    second = [first[-1], *rest]
    total = route_length(first) + route_length(second)
    assert abs(route_length(joined) - total) <= 1e-9 * max(1.0, total)
