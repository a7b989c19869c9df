"""A growing crowd of sockets is frozen out of the collector's way; once nine tenths of it
left, it is collected once only if its closed connections were not freed
(server/node/crowd_gc.py)."""

from __future__ import annotations

import logging

import pytest

from server.node.crowd_gc import GROWTH, LEFT_MIN, SHRUNK_FROM, CrowdFreeze


class Node:
    """The collector's side: open sockets, and connections closed but still alive (left in
    reference cycles, freed only by a collection)."""

    def __init__(self) -> None:
        self.sockets = 0
        self.unfreed = 0
        self.calls: list[str] = []

    def freeze(self) -> None:
        self.calls.append("freeze")

    def unfreeze(self) -> None:
        self.calls.append("unfreeze")

    def collect(self) -> int:
        self.calls.append("collect")
        self.unfreed = 0
        return 0

    def crowd(self) -> CrowdFreeze:
        return CrowdFreeze(lambda: self.sockets, unfreed=lambda: self.unfreed,
                           freeze=self.freeze, unfreeze=self.unfreeze, collect=self.collect)

    def close(self, sockets: int, freed: bool) -> None:
        """``sockets`` close; freed as they go, or left in cycles."""
        self.sockets -= sockets
        if not freed:
            self.unfreed += sockets

    def grow_to(self, watch: CrowdFreeze, sockets: int) -> None:
        """Sockets open up to ``sockets``, checked at each step of growth."""
        while self.sockets < sockets:
            self.sockets = min(sockets, self.sockets + GROWTH)
            watch.check()


def test_a_growing_crowd_is_frozen_at_each_step_of_growth() -> None:
    node = Node()
    node.sockets = 10
    watch = node.crowd()
    node.sockets = 10 + GROWTH - 1
    watch.check()
    assert node.calls == []
    node.sockets = 10 + GROWTH
    watch.check()
    assert node.calls == ["freeze"]
    watch.check()  # no new sockets: nothing to do
    assert node.calls == ["freeze"]
    node.sockets += GROWTH
    watch.check()
    assert node.calls == ["freeze", "freeze"]


def test_a_crowd_freed_as_it_left_is_not_collected(caplog: pytest.LogCaptureFixture) -> None:
    node = Node()
    watch = node.crowd()
    node.grow_to(watch, SHRUNK_FROM * 4)
    node.calls.clear()
    node.close(SHRUNK_FROM * 4, freed=True)
    with caplog.at_level(logging.INFO, logger="server.gc"):
        watch.check()
    assert node.calls == [], "every closed connection was freed: no full collection"
    assert "no collection" in caplog.text


def test_a_crowd_that_left_its_sockets_in_cycles_is_collected_once(
        caplog: pytest.LogCaptureFixture) -> None:
    node = Node()
    watch = node.crowd()
    node.grow_to(watch, SHRUNK_FROM * 2)
    node.calls.clear()
    node.close(SHRUNK_FROM * 2 - 100, freed=False)
    with caplog.at_level(logging.WARNING, logger="server.gc"):
        watch.check()
        assert node.calls == [], "looked at again before collecting: still being let go of?"
        watch.check()  # as many unfreed a check later: they stay
    assert node.calls == ["unfreeze", "collect", "freeze"]
    assert "collected" in caplog.text, "a warning: every room waited"
    node.close(100, freed=False)
    watch.check()  # reckoned again from what remained: no second collection
    assert node.calls == ["unfreeze", "collect", "freeze"]


def test_a_crowd_is_looked_at_once_nine_tenths_of_it_left() -> None:
    node = Node()
    node.sockets = 100  # open before the crowd: not the crowd's
    watch = node.crowd()
    node.grow_to(watch, 100 + SHRUNK_FROM * 2)
    node.calls.clear()
    node.close(SHRUNK_FROM, freed=False)
    watch.check()
    assert node.calls == [], "half of the crowd is still there"
    node.close(SHRUNK_FROM * 8 // 10 - 1, freed=False)
    watch.check()
    assert node.calls == [], "not yet nine tenths"
    node.close(1, freed=False)
    watch.check()
    watch.check()
    assert node.calls == ["unfreeze", "collect", "freeze"]


def test_a_few_unfreed_connections_are_not_worth_a_full_collection() -> None:
    node = Node()
    watch = node.crowd()
    node.grow_to(watch, SHRUNK_FROM * 2)
    node.calls.clear()
    node.close(SHRUNK_FROM * 2 - LEFT_MIN + 1, freed=True)
    node.close(LEFT_MIN - 1, freed=False)  # (fewer than LEFT_MIN, and than the share)
    watch.check()
    assert node.calls == []


def test_a_small_crowd_leaving_is_not_looked_at() -> None:
    node = Node()
    watch = node.crowd()
    node.grow_to(watch, SHRUNK_FROM - 1)
    node.calls.clear()
    node.close(SHRUNK_FROM - 1, freed=False)
    watch.check()
    assert node.calls == []
    node.sockets = GROWTH  # growth counts from the low point
    watch.check()
    assert node.calls == ["freeze"]


def test_connections_still_being_let_go_of_are_looked_at_again() -> None:
    """A crowd's leaves queue in its room, which lets go of one closed connection per leave
    it handles: while the unfreed count falls, nothing is collected; once it stopped
    falling, what stays is."""
    node = Node()
    watch = node.crowd()
    node.grow_to(watch, SHRUNK_FROM * 4)
    node.calls.clear()
    node.close(SHRUNK_FROM * 4, freed=False)
    watch.check()
    node.unfreed -= SHRUNK_FROM  # the room handled a thousand leaves
    watch.check()
    node.unfreed -= SHRUNK_FROM * 2
    watch.check()
    assert node.calls == []
    node.unfreed = 0  # all let go of
    watch.check()
    assert node.calls == [], "nothing left behind in the end"
    node.grow_to(watch, SHRUNK_FROM * 2)
    node.calls.clear()
    node.close(SHRUNK_FROM * 2, freed=False)
    watch.check()
    node.unfreed -= SHRUNK_FROM  # half let go of, half left in cycles
    watch.check()
    watch.check()
    assert node.calls == ["unfreeze", "collect", "freeze"]


def test_growth_is_frozen_between_checks_but_only_a_check_looks_at_a_crowd_that_left() -> None:
    """``grown`` runs ten times as often as ``check``: a restart's thousands of returning
    sockets are frozen before the youngest generation fills with them, while a crowd that
    left is still counted a second apart."""
    node = Node()
    watch = node.crowd()
    node.sockets = GROWTH
    assert watch.grown()
    assert node.calls == ["freeze"]
    node.sockets = GROWTH * 2 - 1
    assert not watch.grown()
    node.sockets = SHRUNK_FROM * 2
    assert watch.grown()
    node.calls.clear()
    node.close(SHRUNK_FROM * 2, freed=False)
    for _ in range(3):
        assert not watch.grown()
    assert node.calls == [], "left sockets are looked at by check only"
    watch.check()
    watch.check()
    assert node.calls == ["unfreeze", "collect", "freeze"]
