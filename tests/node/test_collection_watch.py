"""Garbage collections long enough to stall the rooms are logged; short ones are not."""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable, Iterator

import pytest

from server.app import create_app
from server.config import Settings
from server.node.collection_watch import CollectionWatch


class SteppingClock:
    """Each reading is ``step`` seconds after the previous one: a collection then "takes"
    exactly ``step``, whatever the machine does."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


Install = Callable[[float, SteppingClock | None], CollectionWatch]


@pytest.fixture
def install() -> Iterator[Install]:
    """Installs a watch (warning at ``warn_after_s``, timed by ``clock``); removed after."""
    installed: list[CollectionWatch] = []

    def make(warn_after_s: float, clock: SteppingClock | None) -> CollectionWatch:
        watch = (CollectionWatch(warn_after_s) if clock is None
                 else CollectionWatch(warn_after_s, clock=clock))
        installed.append(watch)
        watch.install()
        return watch

    yield make
    for watch in installed:
        watch.uninstall()


def _slow_collection_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    with caplog.at_level(logging.WARNING, logger="server.gc"):
        gc.collect(2)
    return [r.getMessage() for r in caplog.records if r.name == "server.gc"]


def test_a_collection_over_the_threshold_is_logged_with_its_generation(
        install: Install, caplog: pytest.LogCaptureFixture) -> None:
    watch = install(0.020, SteppingClock(0.025))
    messages = _slow_collection_warnings(caplog)
    assert watch.slow_collections >= 1
    assert any(m.startswith("garbage collection of generation 2 took 25.0 ms") for m in messages)


def test_a_collection_under_the_threshold_is_not_logged(
        install: Install, caplog: pytest.LogCaptureFixture) -> None:
    watch = install(0.020, SteppingClock(0.005))
    assert _slow_collection_warnings(caplog) == []
    assert watch.slow_collections == 0


def test_uninstalled_it_sees_no_collection(install: Install) -> None:
    watch = install(0.0, None)
    watch.install()  # twice is once
    assert gc.callbacks.count(watch) == 1
    watch.uninstall()
    gc.collect()
    assert watch.slow_collections == 0


def _watches() -> list[CollectionWatch]:
    return [c for c in gc.callbacks if isinstance(c, CollectionWatch)]


@pytest.mark.parametrize(("warn_ms", "installed"), [(5.0, [0.005]), (0.0, [])])
async def test_the_app_watches_collections_while_it_serves(warn_ms: float,
                                                           installed: list[float]) -> None:
    app = create_app(Settings.from_env({"REFEREE_GC_WARN_MS": str(warn_ms),
                                        "REFEREE_FREEZE_GC": "no"}))
    before = _watches()
    async with app.router.lifespan_context(app):
        assert [w.warn_after_s for w in _watches() if w not in before] == installed
    assert _watches() == before
