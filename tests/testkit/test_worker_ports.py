"""Each pytest-xdist worker hands out ports from its own slice (``testkit.redis_process``), so
two workers never start servers on the same port."""

from __future__ import annotations

import pytest

from testkit.redis_process import LOWEST_PORT, _ephemeral_low, free_port, worker_ports


def test_the_workers_slices_are_apart_and_cover_the_range_between_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    slices = []
    for worker in ("gw0", "gw1"):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        slices.append(worker_ports(10_000, 32_768))
    first, second = slices
    assert (first.start, first.stop, second.start, second.stop) == (10_000, 21_384, 21_384, 32_768)


def test_outside_xdist_every_port_is_this_process_s(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    assert worker_ports(10_000, 32_768) == range(10_000, 32_768)
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "master")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    assert worker_ports(10_000, 32_768) == range(10_000, 32_768)


def test_a_worker_is_handed_ports_of_its_own_slice_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    low = _ephemeral_low()
    if low <= LOWEST_PORT + 1_000:
        pytest.skip("an unusual ephemeral range: the kernel chooses the ports")
    ports = [free_port() for _ in range(20)]
    mine = worker_ports(LOWEST_PORT, low)
    assert all(port in mine for port in ports), ports
