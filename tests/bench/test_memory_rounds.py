"""bench.memory_rounds runs end to end at a tiny size (no memory asserts: a node's RSS after a
round of a few sockets is the allocator's noise): every round's rooms are joined, closed and
gone from both nodes, and each node's RSS is read after start-up and after each round."""

from __future__ import annotations

import pytest

from bench import memory_rounds

pytestmark = pytest.mark.slow  # runs the bench tool itself


@pytest.mark.parametrize("relay", [False, True], ids=["owner", "relayed"])
def test_memory_rounds_reads_each_nodes_rss_after_every_round(relay: bool) -> None:
    result = memory_rounds.main(["--rooms", "2", "--spectators", "1", "--rounds", "2",
                                 "--idle-s", "0.2", "--json", *(["--relay"] if relay else [])])
    assert [len(node["rss_mb"]) for node in result["nodes"]] == [3, 3]
    assert all(mb > 0 for node in result["nodes"] for mb in node["rss_mb"])
    assert "2 rounds of 2 rooms (6 sockets" in memory_rounds.report(result)


def test_growth_per_round_is_the_median_step_over_the_last_half() -> None:
    assert memory_rounds.growth_per_round([50.0, 80.0, 84.0, 88.0, 92.0]) == 4.0
    assert memory_rounds.growth_per_round([50.0, 80.0, 81.0, 81.0, 81.0]) == 0.0
    assert memory_rounds.growth_per_round([50.0]) == 0.0
