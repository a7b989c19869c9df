"""bench.handshake_cost runs end to end at a tiny size (no timing asserts): every socket of
every pass joins the referee (its welcome read), the baseline and the stack's baseline
(``bench/stack_server.py``), and the figures and the ratios are reported."""

from __future__ import annotations

import pytest

from bench import handshake_cost

pytestmark = pytest.mark.slow  # runs the bench tool itself


def test_handshake_cost_joins_every_socket_of_every_target() -> None:
    result = handshake_cost.main(["--connections", "14", "--passes", "2", "--warmup", "6",
                                  "--spectators", "2", "--json"])
    assert result["referee_errors"] == []
    for target in ("referee", "baseline", "stack"):
        figures = result[target]
        assert len(figures["passes_us"]) == 2
        assert figures["cpu_us_per_socket"] == min(figures["passes_us"]) >= 0
    # (A pass this small may take less than one clock tick: a 0 counts as 1e-9 µs.)
    per_socket = {target: max(result[target]["cpu_us_per_socket"], 1e-9)
                  for target in ("referee", "baseline", "stack")}
    assert result["ratio"] == pytest.approx(per_socket["referee"] / per_socket["baseline"])
    assert result["stack_ratio"] == pytest.approx(per_socket["stack"] / per_socket["baseline"])
    assert result["referee_vs_stack"] == pytest.approx(per_socket["referee"] / per_socket["stack"])
    report = handshake_cost.report(result)
    assert "(referee / baseline)" in report and "(stack / baseline)" in report
