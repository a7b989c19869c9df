"""The node's recheck of its caster sockets' links (``CasterSessions.recheck_forever``)
goes on after any failure, not only the store's "try again": a loop that ended would leave
a withdrawn link's sockets open whenever this node missed its announcement."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from server.store.caster_links import CasterLink
from server.transport.caster_sessions import CasterSessions


class FlakyLinks:
    """The store's caster links: the first read fails unforeseen, the next finds the link
    withdrawn."""

    def __init__(self) -> None:
        self.reads = 0
        self.withdrawn_seen = asyncio.Event()

    async def caster_links(self, room_id: str) -> Sequence[CasterLink] | None:
        self.reads += 1
        if self.reads == 1:
            raise RuntimeError("a reply nobody foresaw")
        self.withdrawn_seen.set()
        return (CasterLink("n1", created_ms=1, withdrawn_ms=2),)


async def test_a_recheck_that_failed_unforeseen_is_made_again() -> None:
    sessions = CasterSessions()
    watch = sessions.watch("room-1", "n1")
    links = FlakyLinks()
    task = asyncio.create_task(sessions.recheck_forever(links, every_s=0))
    try:
        async with asyncio.timeout(20):  # a guard against a hung test, not a timing check
            await links.withdrawn_seen.wait()
            while not watch.withdrawn:
                await asyncio.sleep(0)
    finally:
        task.cancel()
    assert links.reads >= 2 and watch.withdrawn
