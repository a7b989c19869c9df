"""A deadline whose handling fails for an unforeseen reason (not a store that cannot be
reached, which has its own retry) is tried again, later each time, never dropped: dropped,
an ARO window's close at its deadline left the window open for good, both players waiting
on it (``Room._after_failure``). Time is a fake clock for the game; the retry waits on the
loop's own timer (0.5 s), and the test on the frames it makes."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.messages import Accepted, Command, Events, command_answer
from server.rooms.messages import WindowExpired
from tests.rooms.test_window_runs_again_room import KEY, FailingStore, Table


class BrokenStore(FailingStore):
    """A store whose next ``broken`` appends fail with an error it does not foresee."""

    broken = 0

    async def append(self, room_id: str, **fields: Any) -> int:
        if self.broken:
            self.broken -= 1
            raise RuntimeError("an unforeseen failure")
        return await super().append(room_id, **fields)


async def test_a_windows_close_that_failed_unforeseen_is_tried_again_until_it_closes(
        caplog: pytest.LogCaptureFixture) -> None:
    store = BrokenStore()
    table = Table(store)
    room = await table.open()
    version = room.seen[table.a.audience]
    assert room.submit(table.a, "A", Command("shot", version, {"type": "shoot"}))
    assert isinstance(command_answer(await table.a.until(
        Events, lambda f: f.window is not None)), Accepted)

    table.clock.advance(60)  # the deadline: the room's close fails twice, then is stored
    store.broken = 2
    room.inbox.post(WindowExpired(KEY))  # what the window's timer posts
    closed = await table.b.until(Events, lambda f: any(
        e.get("e") == "window_closed" for e in f.events))
    assert {"e": "window_closed", "order": 1, "timeout": True} in closed.events
    assert closed.window is None
    assert room.state.window is None and room.state.closed_by_timeout == (1,)
    failures = [r for r in caplog.records if "failed on WindowExpired" in r.getMessage()]
    assert len(failures) == 2, "each failure is logged"
    assert room._deadline_failures == 0, "a deadline handled starts the waits over"
    await table.registry.shutdown()

