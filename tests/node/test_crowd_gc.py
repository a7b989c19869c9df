"""A growing crowd of sockets is frozen out of the collector's way; once nine tenths of it
left, it is collected once only if it left frozen objects behind (server/node/crowd_gc.py)."""

from __future__ import annotations

import logging

import pytest

from server.node.crowd_gc import GROWTH, LEFT_MIN, SHRUNK_FROM, CrowdFreeze

PER_SOCKET = 200
"""Objects each socket of these tests brings to the permanent generation."""
START_UP = 500_000
"""Objects frozen at start-up, alive for good."""


class Heap:
    """The collector's side: open sockets, objects left in cycles, and the permanent
    generation's size, which a freeze makes all that is alive (start-up's, the open
    sockets', the cycles') and which a socket freed by reference counting leaves."""

    def __init__(self) -> None:
        self.sockets = 0
        self.in_cycles = 0
        self.frozen = START_UP
        self.calls: list[str] = []

    def freeze(self) -> None:
        self.calls.append("freeze")
        self.frozen = START_UP + self.sockets * PER_SOCKET + self.in_cycles

    def unfreeze(self) -> None:
        self.calls.append("unfreeze")

    def collect(self) -> int:
        self.calls.append("collect")
        freed, self.in_cycles = self.in_cycles, 0
        return freed

    def crowd(self) -> CrowdFreeze:
        return CrowdFreeze(lambda: self.sockets, freeze=self.freeze, unfreeze=self.unfreeze,
                           collect=self.collect, frozen_count=lambda: self.frozen)

    def close(self, sockets: int, freed: bool) -> None:
        """``sockets`` close; their frozen objects are freed as they go, or left in cycles."""
        self.sockets -= sockets
        if freed:
            self.frozen -= sockets * PER_SOCKET
        else:
            self.in_cycles += sockets * PER_SOCKET

    def grow_to(self, watch: CrowdFreeze, sockets: int) -> None:
        """Sockets open up to ``sockets``, checked at each step of growth."""
        while self.sockets < sockets:
            self.sockets = min(sockets, self.sockets + GROWTH)
            watch.check()


def test_a_growing_crowd_is_frozen_at_each_step_of_growth() -> None:
    heap = Heap()
    heap.sockets = 10
    watch = heap.crowd()
    heap.sockets = 10 + GROWTH - 1
    watch.check()
    assert heap.calls == []
    heap.sockets = 10 + GROWTH
    watch.check()
    assert heap.calls == ["freeze"]
    watch.check()  # no new sockets: nothing to do
    assert heap.calls == ["freeze"]
    heap.sockets += GROWTH
    watch.check()
    assert heap.calls == ["freeze", "freeze"]


def test_a_crowd_freed_as_it_left_is_not_collected(caplog: pytest.LogCaptureFixture) -> None:
    heap = Heap()
    watch = heap.crowd()
    heap.grow_to(watch, SHRUNK_FROM * 4)
    heap.calls.clear()
    heap.close(SHRUNK_FROM * 4, freed=True)
    with caplog.at_level(logging.INFO, logger="server.gc"):
        watch.check()
    assert heap.calls == [], "nothing frozen was left behind: no full collection"
    assert "no collection" in caplog.text


def test_a_crowd_that_left_its_objects_frozen_is_collected_once() -> None:
    heap = Heap()
    watch = heap.crowd()
    heap.grow_to(watch, SHRUNK_FROM * 2)
    heap.calls.clear()
    heap.close(SHRUNK_FROM * 2 - 100, freed=False)  # each socket left in a cycle
    watch.check()
    assert heap.calls == ["unfreeze", "collect", "freeze"]
    assert heap.in_cycles == 0
    heap.close(100, freed=True)
    watch.check()  # reckoned again from what remained: no second collection
    assert heap.calls == ["unfreeze", "collect", "freeze"]


def test_a_crowd_is_looked_at_once_nine_tenths_of_it_left() -> None:
    heap = Heap()
    heap.sockets = 100  # open before the crowd: not the crowd's
    watch = heap.crowd()
    heap.grow_to(watch, 100 + SHRUNK_FROM * 2)
    heap.calls.clear()
    heap.close(SHRUNK_FROM, freed=False)
    watch.check()
    assert heap.calls == [], "half of the crowd is still there"
    heap.close(SHRUNK_FROM * 8 // 10 - 1, freed=False)
    watch.check()
    assert heap.calls == [], "not yet nine tenths"
    heap.close(1, freed=False)
    watch.check()
    assert heap.calls == ["unfreeze", "collect", "freeze"]


def test_a_few_objects_left_frozen_are_not_worth_a_full_collection() -> None:
    heap = Heap()
    watch = heap.crowd()
    heap.grow_to(watch, SHRUNK_FROM * 2)
    heap.calls.clear()
    heap.close(SHRUNK_FROM * 2, freed=True)
    heap.frozen += LEFT_MIN - 1  # some objects the crowd made live on (a cache, a room's)
    watch.check()
    assert heap.calls == []


def test_a_small_crowd_leaving_is_not_looked_at() -> None:
    heap = Heap()
    watch = heap.crowd()
    heap.grow_to(watch, SHRUNK_FROM - 1)
    heap.calls.clear()
    heap.close(SHRUNK_FROM - 1, freed=False)
    watch.check()
    assert heap.calls == []
    heap.sockets = GROWTH  # growth counts from the low point
    watch.check()
    assert heap.calls == ["freeze"]
