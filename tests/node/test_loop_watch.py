"""The event loop running late enough to stall the rooms is logged; a punctual loop is not."""

from __future__ import annotations

import asyncio
import logging

import pytest

from server.app import create_app
from server.config import Settings
from server.node.loop_watch import LoopLagWatch


class Clock:
    """A clock the test sets: how late a tick is does not depend on the machine."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _lag_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "server.loop"]


async def test_a_tick_later_than_the_threshold_is_logged_with_its_lateness(
        caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    watch = LoopLagWatch(0.050, interval_s=0.1, clock=clock)
    watch.start()  # the next tick is due at 100.1
    try:
        with caplog.at_level(logging.WARNING, logger="server.loop"):
            clock.now = 100.18
            watch.tick()  # 80 ms late
            clock.now = 100.29
            watch.tick()  # due at 100.28: 10 ms late
    finally:
        watch.stop()
    assert _lag_warnings(caplog) == [
        "event loop ran 80.0 ms late: every room on this node waited"]
    assert watch.late_ticks == 1
    assert watch.worst_s == pytest.approx(0.08)


async def test_the_timer_ticks_on_the_running_loop_until_stopped() -> None:
    watch = LoopLagWatch(60.0, interval_s=0.001)
    ticked = asyncio.Event()
    real_tick = watch.tick

    def tick() -> None:
        real_tick()
        ticked.set()

    watch.tick = tick  # type: ignore[method-assign]
    watch.start()
    await asyncio.wait_for(ticked.wait(), 30)  # a guard against a hang, not a speed limit
    assert watch.late_ticks == 0
    pending = watch._timer
    assert pending is not None  # the tick scheduled the next one
    watch.stop()
    assert pending.cancelled()
    assert watch._timer is None


@pytest.mark.parametrize(("warn_ms", "warn_after_s"), [(30.0, 0.03), (0.0, None)])
async def test_the_app_watches_its_loop_while_it_serves(warn_ms: float,
                                                        warn_after_s: float | None) -> None:
    app = create_app(Settings.from_env({"REFEREE_LOOP_LAG_WARN_MS": str(warn_ms),
                                        "REFEREE_FREEZE_GC": "no"}))
    async with app.router.lifespan_context(app):
        watch = app.state.loop_watch
        assert (watch.warn_after_s if watch is not None else None) == warn_after_s
    if watch is not None:
        assert watch._timer is None  # stopped with the app
