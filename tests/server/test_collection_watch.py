"""Garbage collections long enough to stall the rooms are logged; short ones are not."""

from __future__ import annotations

import gc
import logging
from collections.abc import Iterator

import pytest

from server.collection_watch import CollectionWatch


class SteppingClock:
    """Each reading is ``step`` seconds after the previous one: a collection then "takes"
    exactly ``step``, whatever the machine does."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.fixture
def watches() -> Iterator[list[CollectionWatch]]:
    installed: list[CollectionWatch] = []
    yield installed
    for watch in installed:
        watch.uninstall()


def test_a_collection_over_the_threshold_is_logged_with_its_generation(
        watches: list[CollectionWatch], caplog: pytest.LogCaptureFixture) -> None:
    watch = CollectionWatch(0.020, clock=SteppingClock(0.025))
    watches.append(watch)
    watch.install()
    with caplog.at_level(logging.WARNING, logger="server.gc"):
        gc.collect(2)
    assert watch.slow_collections >= 1
    messages = [r.getMessage() for r in caplog.records if r.name == "server.gc"]
    assert any(m.startswith("garbage collection of generation 2 took 25.0 ms") for m in messages)


def test_a_collection_under_the_threshold_is_not_logged(
        watches: list[CollectionWatch], caplog: pytest.LogCaptureFixture) -> None:
    watch = CollectionWatch(0.020, clock=SteppingClock(0.005))
    watches.append(watch)
    watch.install()
    with caplog.at_level(logging.WARNING, logger="server.gc"):
        gc.collect(2)
    assert watch.slow_collections == 0
    assert not [r for r in caplog.records if r.name == "server.gc"]


def test_uninstalled_it_sees_no_collection(watches: list[CollectionWatch]) -> None:
    watch = CollectionWatch(0.0)
    watches.append(watch)
    watch.install()
    watch.install()  # twice is once
    assert gc.callbacks.count(watch) == 1
    watch.uninstall()
    gc.collect()
    assert watch.slow_collections == 0
