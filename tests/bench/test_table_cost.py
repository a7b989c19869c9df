"""``python -m bench.table_cost`` measures what it says on the tables it names: the game is in
its Orders Phase on each table, the two tables at the format's limits are accepted by it,
and every table yields Moves to decide."""

from __future__ import annotations

import pytest

from bench import table_cost
from server.rules.table.polygons import convex_half_planes
from server.rules.table.tables import MAX_CONCAVE, parse_table


def test_the_tables_at_the_limits_are_valid_and_as_concave_as_allowed() -> None:
    for document in table_cost.limit_tables().values():
        table = parse_table(document).table
        concave = [p for p in table.terrain if convex_half_planes(p.polygon) is None]
        assert len(concave) == MAX_CONCAVE


@pytest.mark.slow  # runs the bench tool itself
def test_each_table_yields_a_game_in_orders_with_moves_and_sight() -> None:
    tables = {"sample-open": "sample-open", "n5-night-market": "n5-night-market"}
    rows = table_cost.measure(tables, seed=7, repeat=1)
    assert rows["sample-open"]["pieces"] == 5 and rows["n5-night-market"]["pieces"] == 27
    assert rows["sample-open"]["pairs_in_sight"] > rows["n5-night-market"]["pairs_in_sight"]
    assert all(row["moves"] >= 10 for row in rows.values())
