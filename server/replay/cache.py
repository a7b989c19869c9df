"""The folded replays a node keeps, so that stepping through one is a lookup.

A fold costs tens of milliseconds for a whole game (a few hundred events) and the states it
keeps a few megabytes; a viewer asks for one step at a time. So each node keeps the last
``GAMES_KEPT`` replays it folded (a room's, by room id; a posted record's, by its id), the
least recently used forgotten first: a forgotten room's replay is folded again from its
record on the next request; a forgotten posted record answers ``replay_not_found`` (the
viewer posts the file again). Nothing is shared between nodes.

A fold runs in a worker thread, one at a time per node (a record of the largest size
allowed takes longer than a game's loop should stall), and two requests for the same
replay wait for one fold.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from server.replay.fold import Replay

GAMES_KEPT = 8
"""Replays kept per node."""

Key = tuple[str, str]
"""("room", room id) or ("record", a posted record's id)."""


class ReplayCache:
    def __init__(self, games: int = GAMES_KEPT) -> None:
        self._games = games
        self._kept: OrderedDict[Key, Replay] = OrderedDict()
        self._folding: dict[Key, asyncio.Future[Replay]] = {}
        self._one_at_a_time: asyncio.Semaphore | None = None

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key: Key) -> Replay | None:
        replay = self._kept.get(key)
        if replay is not None:
            self._kept.move_to_end(key)
        return replay

    async def get_or_fold(self, key: Key, fold: Callable[[], Awaitable[Replay]]) -> Replay:
        """The kept replay, or the one ``fold()`` makes (kept); a fold already running for
        ``key`` is waited for rather than started again. What ``fold`` raises is raised."""
        replay = self.get(key)
        if replay is not None:
            return replay
        running = self._folding.get(key)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[Replay] = asyncio.get_running_loop().create_future()
        self._folding[key] = future
        try:
            if self._one_at_a_time is None:
                self._one_at_a_time = asyncio.Semaphore(1)
            async with self._one_at_a_time:
                replay = await fold()
            self._keep(key, replay)
            future.set_result(replay)
            return replay
        except asyncio.CancelledError:
            future.cancel()  # (its waiters are cancelled too: they ask again)
            raise
        except Exception as error:
            future.set_exception(error)
            future.exception()  # marked retrieved: each waiter re-raises it
            raise
        finally:
            del self._folding[key]

    def _keep(self, key: Key, replay: Replay) -> None:
        self._kept[key] = replay
        self._kept.move_to_end(key)
        while len(self._kept) > self._games:
            self._kept.popitem(last=False)


def fold_in_thread(make: Callable[[], Replay]) -> Callable[[], Awaitable[Replay]]:
    """``make`` run in a worker thread (the rules core is pure: nothing it touches is shared
    with the room tasks but immutable data and its own caches)."""
    return lambda: asyncio.to_thread(make)


def cache_for(state: object) -> ReplayCache:
    """The app's one ``ReplayCache`` (kept on ``app.state``, made at its first use)."""
    cache = getattr(state, "replay_cache", None)
    if not isinstance(cache, ReplayCache):
        cache = ReplayCache()
        setattr(state, "replay_cache", cache)  # noqa: B010 (Starlette's State)
    return cache
