"""A growing crowd of sockets is frozen out of the collector's way; once most of it left,
it is unfrozen and collected once (server/node/crowd_gc.py)."""

from __future__ import annotations

from server.node.crowd_gc import GROWTH, SHRUNK_FROM, CrowdFreeze


class Collector:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def freeze(self) -> None:
        self.calls.append("freeze")

    def unfreeze(self) -> None:
        self.calls.append("unfreeze")

    def collect(self) -> int:
        self.calls.append("collect")
        return 0


def crowd(sockets: list[int], collector: Collector) -> CrowdFreeze:
    return CrowdFreeze(lambda: sockets[0], freeze=collector.freeze,
                       unfreeze=collector.unfreeze, collect=collector.collect)


def test_a_growing_crowd_is_frozen_at_each_step_of_growth() -> None:
    sockets, collector = [10], Collector()
    watch = crowd(sockets, collector)
    sockets[0] = 10 + GROWTH - 1
    watch.check()
    assert collector.calls == []
    sockets[0] = 10 + GROWTH
    watch.check()
    assert collector.calls == ["freeze"]
    watch.check()  # no new sockets: nothing to do
    assert collector.calls == ["freeze"]
    sockets[0] += GROWTH
    watch.check()
    assert collector.calls == ["freeze", "freeze"]


def test_a_crowd_that_left_is_collected_once_and_what_remains_frozen() -> None:
    sockets, collector = [0], Collector()
    watch = crowd(sockets, collector)
    sockets[0] = SHRUNK_FROM * 2
    watch.check()
    sockets[0] = SHRUNK_FROM  # half of it left
    watch.check()
    assert collector.calls == ["freeze", "unfreeze", "collect", "freeze"]
    sockets[0] = SHRUNK_FROM - 10
    watch.check()  # the peak is now what remained: no second collection
    assert collector.calls == ["freeze", "unfreeze", "collect", "freeze"]


def test_a_small_crowd_leaving_is_not_worth_a_full_collection() -> None:
    sockets, collector = [0], Collector()
    watch = crowd(sockets, collector)
    sockets[0] = GROWTH
    watch.check()
    sockets[0] = 0
    watch.check()
    assert collector.calls == ["freeze"]
    sockets[0] = GROWTH  # growth counts from the low point
    watch.check()
    assert collector.calls == ["freeze", "freeze"]
