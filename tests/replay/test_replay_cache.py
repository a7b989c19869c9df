"""The replays a node keeps (``server.replay.cache``): at most a few, the least recently used
forgotten first; one fold for requests that ask for the same replay at once; a failed fold
keeps nothing."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from server.replay.cache import ReplayCache
from server.replay.fold import Replay
from server.replay.record_input import BadRecord


def folded(name: str) -> Any:
    async def fold() -> Replay:
        return cast(Replay, name)
    return fold


async def test_the_least_recently_used_replay_is_forgotten_first() -> None:
    cache = ReplayCache(games=2)
    await cache.get_or_fold(("room", "one"), folded("one"))
    await cache.get_or_fold(("room", "two"), folded("two"))
    assert cache.get(("room", "one")) == "one"  # used: "two" is now the oldest
    await cache.get_or_fold(("record", "three"), folded("three"))
    assert len(cache) == 2
    assert cache.get(("room", "two")) is None
    assert (cache.get(("room", "one")), cache.get(("record", "three"))) == ("one", "three")
    # Kept: asked again, it is not folded again.
    assert await cache.get_or_fold(("room", "one"), folded("folded again")) == "one"


async def test_requests_at_once_share_one_fold() -> None:
    cache = ReplayCache()
    started, release = asyncio.Event(), asyncio.Event()
    folds = 0

    async def fold() -> Replay:
        nonlocal folds
        folds += 1
        started.set()
        await release.wait()
        return cast(Replay, "game")

    waiting = [asyncio.create_task(cache.get_or_fold(("room", "r"), fold)) for _ in range(3)]
    await started.wait()  # (the other two tasks ran in the same loop turn as the first)
    release.set()
    assert await asyncio.gather(*waiting) == ["game"] * 3
    assert folds == 1


async def test_a_failed_fold_is_raised_to_each_request_and_keeps_nothing() -> None:
    cache = ReplayCache()
    started, release = asyncio.Event(), asyncio.Event()

    async def fails() -> Replay:
        started.set()
        await release.wait()
        raise BadRecord("event 3 does not follow")

    waiting = [asyncio.create_task(cache.get_or_fold(("record", "x"), fails)) for _ in range(2)]
    await started.wait()
    release.set()
    for task in waiting:
        with pytest.raises(BadRecord, match="event 3"):
            await task
    assert len(cache) == 0
    assert await cache.get_or_fold(("record", "x"), folded("now")) == "now"
