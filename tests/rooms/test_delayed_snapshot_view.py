"""A delayed feed makes its snapshot's view once per released state (a crowd joining a
delayed room shares it); a newly released state makes a new one."""

from __future__ import annotations

from typing import Any

from protocol import codec
from server.fanout import Audience
from server.rooms.spectator_delay import DelayedFeed


class Engine:
    def __init__(self) -> None:
        self.views: list[Any] = []

    def view_state(self, state: Any, viewer: str) -> Any:
        self.views.append(state)
        return {"seen by": viewer, "state": state["n"]}

    def pending_aro_window(self, state: Any) -> None:
        return None

    def clocks_fields(self, state: Any, at_ms: int) -> None:
        return None  # (no chess clocks)


def test_the_view_is_made_once_per_released_state() -> None:
    engine = Engine()
    feed = DelayedFeed(engine, Audience.SPECTATOR, 30_000,  # type: ignore[arg-type]
                       state={"n": 1}, version=4, seen=3, window_ms=0)
    seats = {"A": "connected", "B": "connected"}
    first = feed.snapshot_frame(seats, 1_000)
    assert feed.snapshot_frame(seats, 2_000) == first
    assert engine.views == [{"n": 1}]
    feed.state = {"n": 2}  # released further
    later = codec.unpack_plain(feed.snapshot_frame(seats, 3_000))
    assert engine.views == [{"n": 1}, {"n": 2}]
    assert later["state"] == {"seen by": "spectator", "state": 2}
