"""bench.handshake_cost runs end to end at a tiny size (no timing asserts): every socket of
every pass joins the referee (its welcome read) and the baseline, and the figures and the
ratio are reported."""

from __future__ import annotations

import pytest

from bench import handshake_cost

pytestmark = pytest.mark.slow  # runs the bench tool itself


def test_handshake_cost_joins_every_socket_of_both_targets() -> None:
    result = handshake_cost.main(["--connections", "14", "--passes", "2", "--warmup", "6",
                                  "--spectators", "2", "--json"])
    assert result["referee_errors"] == []
    for target in ("referee", "baseline"):
        figures = result[target]
        assert len(figures["passes_us"]) == 2
        assert figures["cpu_us_per_socket"] == min(figures["passes_us"]) >= 0
    assert result["ratio"] >= 0
    assert "ratio:" in handshake_cost.report(result)
