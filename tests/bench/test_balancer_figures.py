"""What ``bench.run --balancer`` says of the load balancer's own CPU (nginx, on the load
core): per socket opened, per Order and per delivery, and against the referee nodes'; and
how many sockets its one nginx worker carries."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bench import balancer
from bench.run import balancer_figures


def test_the_balancers_cpu_is_per_socket_per_order_per_delivery_and_against_the_nodes() -> None:
    cpu_s = {"start": 1.0, "created": 1.5, "connected": 3.5, "setup": 4.0, "paced": 5.0,
             "max": 9.0}
    result = {"paced": {"orders": 1_000, "deliveries": 5_000, "server_cpu_s": 10.0},
              "max": {"orders": 2_000, "deliveries": 16_000, "server_cpu_s": 20.0}}
    assert balancer_figures(cpu_s, result, 10_000) == {
        "connected": {"cpu_s": 2.0, "cpu_us_per_socket": 200.0},
        "paced": {"cpu_s": 1.0, "cpu_us_per_order": 1000.0, "cpu_us_per_delivery": 200.0,
                  "over_referee_cpu": 0.1},
        "max": {"cpu_s": 4.0, "cpu_us_per_order": 2000.0, "cpu_us_per_delivery": 250.0,
                "over_referee_cpu": 0.2}}


def test_the_balancer_carries_half_of_what_nginx_keeps_usable(monkeypatch: pytest.MonkeyPatch,
                                                               ) -> None:
    """nginx closes sockets still waiting for their request once fewer than a sixteenth of
    its connections are free: at 19,744 connections 9,000 sockets ran, 9,600 failed."""
    limits = SimpleNamespace(nginx_worker_limits=lambda: (20_000, 19_744))
    monkeypatch.setattr(balancer, "loopback_script", lambda: limits)
    most = balancer.balancer_sockets()
    assert 9_000 <= most < 9_600
    assert 2 * most + 1 <= 19_744 - 19_744 // 16
