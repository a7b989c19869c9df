"""``python -m tests.cluster.crash_after_storing``: ``python -m server`` that dies the moment
Redis has confirmed the append carrying the answer to the command named by the environment
variable ``CRASH_AFTER_STORING`` -- after the command is stored, before anyone is answered
or sent its events. ``os._exit``: no handler runs, nothing is flushed, no lease released,
no socket closed by the server (the kernel closes them), as after a ``kill -9`` at exactly
that point.

Test-only: it lives under tests/, wraps the store's ``append`` from outside, and is never
imported by the server; a node started with ``python -m server`` has no such switch.
"""

from __future__ import annotations

import os
from typing import Any

from server.__main__ import main
from server.store.redis_store import RedisRoomStore

KILLED = 137  # what a shell reports for a process killed by SIGKILL
_append = RedisRoomStore.append


async def _append_then_crash(self: RedisRoomStore, room_id: str, **fields: Any) -> int:
    version = await _append(self, room_id, **fields)
    answer = fields.get("answer")
    if answer is not None and answer.command_id == os.environ.get("CRASH_AFTER_STORING"):
        os._exit(KILLED)
    return version


if __name__ == "__main__":
    RedisRoomStore.append = _append_then_crash  # type: ignore[method-assign]
    main()
