"""The wake-up behind a room's chess clock, its delayed feeds and its paced calls
(``server.rooms.wake_up``), on a loop whose time the test moves: nothing waits on real time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from server.rooms.wake_up import WakeUp


@dataclass
class Handle:
    when: float
    callback: Callable[[], object]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


class Loop:
    """The part of an event loop a wake-up uses, with a time that only moves in ``advance``
    (which runs what falls due, in order, as the loop would)."""

    def __init__(self) -> None:
        self.time = 0.0
        self.handles: list[Handle] = []

    def call_later(self, delay: float, callback: Callable[[], object], /) -> Handle:
        handle = Handle(self.time + delay, callback)
        self.handles.append(handle)
        return handle

    def advance(self, seconds: float) -> None:
        until = self.time + seconds
        for handle in sorted(self.handles, key=lambda h: h.when):
            if handle.when <= until and not handle.cancelled:
                self.time = max(self.time, handle.when)
                handle.cancelled = True  # (run once)
                handle.callback()
        self.time = until

    def pending(self) -> list[float]:
        return [h.when for h in self.handles if not h.cancelled]


class RoomClock:
    """Unix ms, moved by the test (the room's clock runs apart from the loop's)."""

    def __init__(self) -> None:
        self.ms = 1_000_000

    def __call__(self) -> int:
        return self.ms


def wake_up(per_s: float = 1000.0) -> tuple[WakeUp, Loop, RoomClock, list[float]]:
    loop, clock, calls = Loop(), RoomClock(), []
    wake = WakeUp(lambda: calls.append(loop.time), clock, per_s=per_s, loop=loop)
    return wake, loop, clock, calls


def test_it_calls_once_at_the_moment_set() -> None:
    wake, loop, clock, calls = wake_up()
    wake.arm(clock.ms + 2_500)
    assert wake.armed and wake.at == clock.ms + 2_500 and loop.pending() == [2.5]
    loop.advance(2.4)
    assert calls == [] and wake.armed
    loop.advance(0.1)
    assert calls == [2.5]
    assert not wake.armed  # the call is made: nothing is set any more ...
    assert wake.at == clock.ms + 2_500  # ... but the moment stays, for ``due``
    assert not wake.due()  # the room's clock says it is not time yet (it did not move)
    clock.ms += 2_500
    assert wake.due()
    loop.advance(10)
    assert calls == [2.5]


def test_arming_again_replaces_the_moment_set() -> None:
    wake, loop, clock, calls = wake_up()
    wake.arm(clock.ms + 5_000)
    wake.arm(clock.ms + 1_000)  # sooner
    wake.arm(clock.ms + 3_000)  # later than that one
    assert loop.pending() == [3.0]
    loop.advance(10)
    assert calls == [3.0]


def test_a_moment_already_past_is_called_on_the_loops_next_turn() -> None:
    wake, loop, clock, calls = wake_up()
    wake.arm(clock.ms - 60_000)
    assert loop.pending() == [0.0] and wake.due()
    loop.advance(0)
    assert calls == [0.0]


def test_the_wait_is_taken_from_the_clock_when_armed() -> None:
    wake, loop, clock, _ = wake_up()
    clock.ms += 1_500  # the room's clock moved on; the loop's did not
    wake.arm(clock.ms + 500)
    assert loop.pending() == [0.5]
    wake.arm(clock.ms - 1_000 + 500)  # half a second ago by the room's clock
    assert loop.pending() == [0.0]


def test_close_and_none_cancel() -> None:
    wake, loop, clock, calls = wake_up()
    wake.arm(clock.ms + 1_000)
    wake.close()
    assert not wake.armed and wake.at is None and not wake.due() and loop.pending() == []
    wake.arm(clock.ms + 1_000)
    wake.arm(None)
    assert not wake.armed and wake.at is None and loop.pending() == []
    loop.advance(10)
    assert calls == []
    wake.close()  # closing twice is harmless


def test_a_clock_in_seconds() -> None:
    loop, calls = Loop(), []
    wake = WakeUp(lambda: calls.append(loop.time), lambda: loop.time, per_s=1.0, loop=loop)
    loop.advance(100.0)
    wake.arm(loop.time + 0.25)
    assert loop.pending() == [100.25]
    loop.advance(0.25)
    assert calls == [100.25] and wake.due()


async def test_by_default_it_uses_the_running_loop() -> None:
    called = asyncio.Event()
    clock = RoomClock()
    wake = WakeUp(called.set, clock)
    wake.arm(clock.ms)  # due now: called on the loop's next turn
    assert wake.armed
    await called.wait()
    assert not wake.armed and wake.due()
