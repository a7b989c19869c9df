"""The owner's fan-out over nodes (server/cluster/fanout.py): seats get a delivery at once,
the bus gets it before this node's spectators when the room has viewers elsewhere, and
every subscriber still gets every delivery in publish order."""

from __future__ import annotations

import asyncio
from typing import Any

from server.cluster.fanout import ClusterFanout
from server.cluster.owner import RemoteMember
from server.fanout import Audience, Delivery


class Viewer:
    def __init__(self, audience: Audience, log: list[Any]) -> None:
        self.audience = audience
        self.log = log

    def deliver(self, frame: bytes) -> None:
        self.log.append((self.audience.value, frame))


class Outlet:
    def __init__(self, log: list[Any]) -> None:
        self.log = log

    def broadcast(self, delivery: Delivery) -> None:
        self.log.append(("bus", delivery.spectator))


def remote_spectator(outlet: Outlet) -> RemoteMember:
    return RemoteMember(outlet, "node-2", 1, None)  # type: ignore[arg-type]


async def test_seats_then_the_bus_then_the_local_spectators_in_order() -> None:
    log: list[Any] = []
    outlet = Outlet(log)
    fanout = ClusterFanout(lambda room: outlet)  # type: ignore[arg-type,return-value]
    for audience in (Audience.SPECTATOR, Audience.A, Audience.SPECTATOR, Audience.CASTER):
        fanout.subscribe("r", Viewer(audience, log))
    fanout.subscribe("r", remote_spectator(outlet))
    fanout.publish("r", Delivery.same(1, b"one"))
    fanout.publish("r", Delivery.same(2, b"two"))
    # at once: the seat and the bus, for both
    assert log == [("A", b"one"), ("bus", b"one"), ("A", b"two"), ("bus", b"two")]
    await asyncio.sleep(0)  # one turn of the loop: the deferred spectators' share
    assert log[4:] == [(a, b"one") for a in ("spectator", "spectator", "caster")] + [
        (a, b"two") for a in ("spectator", "spectator", "caster")]
    assert fanout.count("r", Audience.SPECTATOR) == 3  # two here, one on node 2


async def test_without_viewers_elsewhere_everyone_here_gets_it_at_once() -> None:
    log: list[Any] = []
    fanout = ClusterFanout(lambda room: None)
    fanout.subscribe("r", Viewer(Audience.SPECTATOR, log))
    fanout.subscribe("r", Viewer(Audience.B, log))
    fanout.publish("r", Delivery.same(1, b"one"))
    assert log == [("B", b"one"), ("spectator", b"one")]


async def test_a_delivery_after_a_deferred_one_waits_behind_it() -> None:
    log: list[Any] = []
    outlet = Outlet(log)
    fanout = ClusterFanout(lambda room: outlet if room == "r" else None)  # type: ignore[arg-type,return-value]
    fanout.subscribe("r", Viewer(Audience.SPECTATOR, log))
    fanout.subscribe("r", remote_spectator(outlet))
    fanout.subscribe("s", Viewer(Audience.SPECTATOR, log))
    fanout.publish("r", Delivery.same(1, b"r1"))
    fanout.publish("s", Delivery.same(1, b"s1"))  # no viewers elsewhere, but r's is pending
    await asyncio.sleep(0)
    assert log == [("bus", b"r1"), ("spectator", b"r1"), ("spectator", b"s1")]
