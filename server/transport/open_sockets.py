"""The websockets this node is serving, counted so that a graceful shutdown can wait until
every one of them has been closed (see ``server.node.shutdown``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator


class OpenSockets:
    def __init__(self) -> None:
        self._count = 0
        self._none_open = asyncio.Event()
        self._none_open.set()

    def __len__(self) -> int:
        return self._count

    @contextlib.contextmanager
    def track(self) -> Iterator[None]:
        """Count one websocket for as long as the block runs (its whole endpoint call)."""
        self._count += 1
        self._none_open.clear()
        try:
            yield
        finally:
            self._count -= 1
            if self._count == 0:
                self._none_open.set()

    async def wait_all_closed(self) -> None:
        await self._none_open.wait()
