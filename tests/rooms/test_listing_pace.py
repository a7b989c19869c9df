"""When a room lists a spectator's join or leave: now when it came alone, a crowd's once
per interval (``server.rooms.listing_pace``)."""

from __future__ import annotations

import asyncio

from server.rooms.listing_pace import ListingPace


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_changes_alone_are_written_now_and_a_crowd_later() -> None:
    clock, posted = Clock(), asyncio.Event()
    pace = ListingPace(posted.set, every_s=1.0, alone=4, monotonic=clock)
    for _ in range(4):
        assert pace.write_now(busy=False)
        pace.written()
        clock.now += 0.1
    assert not pace.write_now(busy=False)  # the fifth within a second: a crowd
    assert not pace.write_now(busy=False)  # (one ListingDue carries them all)
    assert not posted.is_set()
    pace.close()


async def test_a_crowd_after_a_quiet_interval_is_posted_at_once_and_once() -> None:
    clock, posts = Clock(), []
    done = asyncio.Event()

    def post() -> None:
        posts.append(clock.now)
        done.set()

    pace = ListingPace(post, every_s=1.0, alone=4, monotonic=clock)
    for _ in range(10):
        assert not pace.write_now(busy=True)  # more messages wait: never now
    await done.wait()
    assert posts == [100.0]
    pace.written()
    clock.now += 2.0  # a quiet interval later, one alone is written now again
    assert pace.write_now(busy=False)


async def test_spaced_changes_are_each_written_now() -> None:
    clock = Clock()
    pace = ListingPace(lambda: None, every_s=1.0, alone=4, monotonic=clock)
    for _ in range(20):
        assert pace.write_now(busy=False)
        pace.written()
        clock.now += 0.34  # never four within a second
