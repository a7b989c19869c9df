"""Line of Fire is reciprocal (DIGEST 10.1): whenever each of two bodies has the other in
its front arc (or all-round vision), A has LoF to B exactly when B has LoF to A, on every
shipped table of both rulesets, with other models in the way or not. The arc condition
alone stays each viewer's own."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules.table.geometry import Body, in_front_arc
from server.rules.table.line_of_fire import has_line_of_fire
from server.rules.table.sight_lines import in_pair_order
from server.rules.table.silhouettes import KNOWN_SIZES
from server.rules.table.table_catalogue import layout, shipped
from server.rules.table.terrain import Table

TABLES = [item.layout.id for item in shipped()]


def test_every_ruleset_has_tables_under_test() -> None:
    rulesets = {ruleset.value for item in shipped() for ruleset in item.layout.rulesets}
    assert rulesets == {"n5", "codeone"}
    assert len(TABLES) >= 6


@st.composite
def pairs(draw: st.DrawFn, table: Table) -> tuple[Body, Body, list[Body]]:
    """Two bodies anywhere on the table, each facing roughly towards the other (so that
    most pairs have each other in their arcs), and up to two other models."""
    def spot() -> tuple[float, float]:
        return (draw(st.floats(0.0, table.width)), draw(st.floats(0.0, table.depth)))

    a, b = spot(), spot()
    towards = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))
    turn = st.floats(-100.0, 100.0)
    first = Body(a, towards + draw(turn), draw(st.sampled_from(KNOWN_SIZES)),
                 draw(st.booleans()))
    second = Body(b, towards + 180.0 + draw(turn), draw(st.sampled_from(KNOWN_SIZES)),
                  draw(st.booleans()))
    others = [Body(spot(), draw(st.floats(0.0, 360.0)), draw(st.sampled_from(KNOWN_SIZES)))
              for _ in range(draw(st.integers(0, 2)))]
    return first, second, others


@pytest.mark.parametrize("table_id", TABLES)
def test_line_of_fire_is_reciprocal_on_every_shipped_table(table_id: str) -> None:
    table = layout(table_id).table

    @settings(max_examples=250, deadline=None, derandomize=True, database=None)
    @given(pairs(table))
    def reciprocal(pair: tuple[Body, Body, list[Body]]) -> None:
        a, b, others = pair
        there, back = has_line_of_fire(a, b, table, others), has_line_of_fire(b, a, table, others)
        if in_front_arc(a, b) and in_front_arc(b, a):
            assert there == back
        else:  # the arc stays each viewer's own
            assert there <= in_front_arc(a, b) and back <= in_front_arc(b, a)

    reciprocal()


def test_the_pair_is_taken_in_one_order_whichever_looks() -> None:
    a = Body((3.0, 4.0), 10.0, 2)
    b = Body((3.0, 9.0), 200.0, 5)
    assert in_pair_order(a, b) == in_pair_order(b, a) == (a, b)
    twin = Body((3.0, 4.0), 300.0, 2)  # the same place, another facing
    assert in_pair_order(a, twin) == in_pair_order(twin, a) == (a, twin)


def test_a_pair_on_the_orbital_medlab_that_saw_one_way() -> None:
    """Found against the old sampling (its viewer and target points and heights differed by
    direction): across the Medlab, 22 inches apart and facing each other, the S2 had LoF
    to the S5 and the S5 none back. Now both have it."""
    table = layout("codeone-orbital-medlab").table
    south = Body((23.0, 8.0), 120.0, 2)
    north = Body((12.0, 27.0), 300.0, 5)
    assert in_front_arc(south, north) and in_front_arc(north, south)
    assert has_line_of_fire(south, north, table)
    assert has_line_of_fire(north, south, table)


def test_only_the_arc_is_one_way() -> None:
    """A body facing away sees nothing, while the one facing it keeps its LoF."""
    table = layout("sample-open-codeone").table
    watcher = Body((4.0, 4.0), 45.0, 2)
    walker = Body((8.0, 8.0), 45.0, 2)  # its back to the watcher
    assert has_line_of_fire(watcher, walker, table)
    assert not has_line_of_fire(walker, watcher, table)
