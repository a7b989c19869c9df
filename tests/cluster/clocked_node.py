"""Server processes whose rooms read the time from a file the test writes, so time moves only
when the test says (no test waits for a timer): ``python -m tests.cluster.clocked_node`` is
``python -m server`` whose rooms take that clock. Shared by the takeover tests of the
spectator delay and of the chess clocks."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from server.rooms.room import now_ms
from testkit.server_process import ServerProcess, two_nodes

CLOCK_FILE = "TEST_CLOCK_FILE"


class ClockedNode(ServerProcess):
    module = "tests.cluster.clocked_node"


class Clock:
    """The time the nodes read, in ms; starts at the real time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.ms = now_ms()
        self._write()

    def advance(self, seconds: float) -> None:
        self.ms += round(seconds * 1000)
        self._write()

    def _write(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(str(self.ms))
        tmp.replace(self.path)  # (a node never reads half a number)


@asynccontextmanager
async def two_clocked_nodes(redis_url: str, tmp_path: Path) -> AsyncIterator[
        tuple[Clock, ClockedNode, ClockedNode]]:
    """A clock and two started nodes reading it (``two_nodes``)."""
    clock = Clock(tmp_path / "clock")
    async with two_nodes(redis_url, ClockedNode, env={CLOCK_FILE: str(clock.path)}) as (one, two):
        yield clock, one, two


if __name__ == "__main__":
    # The node: ``python -m server`` whose rooms read the time from the clock file.
    from server.__main__ import main
    from server.rooms.registry import RoomRegistry

    clock_path = Path(os.environ[CLOCK_FILE])
    _init = RoomRegistry.__init__

    def _clocked_init(self: RoomRegistry, *args: object, **kwargs: object) -> None:
        _init(self, *args, **kwargs)  # type: ignore[arg-type]
        self.clock = lambda: int(clock_path.read_text())

    RoomRegistry.__init__ = _clocked_init  # type: ignore[method-assign]
    main()
