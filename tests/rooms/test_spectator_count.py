"""The spectator count is coalesced: at once after a quiet interval, else once at its end
with the count as it is then; never lost, nothing after the room stops; held for a while
after a room was loaded back, then sent once."""

from __future__ import annotations

import asyncio

from server.rooms.spectator_count import SpectatorCount, interval_s


class Counting:
    def __init__(self) -> None:
        self.count = 0
        self.told: list[int] = []
        self.sent = asyncio.Event()

    def send(self) -> None:
        self.told.append(self.count)
        self.sent.set()


async def test_a_change_after_a_quiet_interval_is_sent_at_once() -> None:
    now = [100.0]
    room = Counting()
    count = SpectatorCount(room.send, every_s=1.0, monotonic=lambda: now[0])
    room.count = 1
    count.changed()
    assert room.told == [1]
    now[0] += 1.5  # quiet for longer than the interval
    room.count = 2
    count.changed()
    assert room.told == [1, 2]


async def test_a_crowd_within_the_interval_is_one_frame_with_the_last_count() -> None:
    room = Counting()
    count = SpectatorCount(room.send, every_s=0.05)
    room.count = 1
    count.changed()
    room.sent.clear()
    for joined in range(2, 1002):  # a thousand more join before the interval is over
        room.count = joined
        count.changed()
    assert room.told == [1]
    await asyncio.wait_for(room.sent.wait(), 5)
    assert room.told == [1, 1001]


async def test_nothing_is_sent_after_close() -> None:
    room = Counting()
    count = SpectatorCount(room.send, every_s=0.02)
    count.changed()
    room.count = 5
    count.changed()  # due at the end of the interval
    count.close()
    later = SpectatorCount(room.send, every_s=0.03)
    later.changed()  # a second counter's timer, due after the first one's would have been
    room.sent.clear()
    later.changed()
    await asyncio.wait_for(room.sent.wait(), 5)
    assert room.told == [0, 5, 5]  # the closed counter's pending send never came


async def test_the_larger_the_audience_the_longer_between_two_counts() -> None:
    assert interval_s(10) == 1.0
    assert interval_s(2_000) == 1.0
    assert interval_s(10_000) == 5.0
    assert interval_s(1_000_000) == 10.0, "never longer than ten seconds"
    now = [100.0]
    room = Counting()
    audience = [10_000]
    count = SpectatorCount(room.send, every_s=1.0, monotonic=lambda: now[0],
                           audience=lambda: audience[0])
    count.changed()  # the first goes at once
    assert room.told == [0]
    now[0] += 1.5  # a second and a half later: too soon for 10,000 viewers
    room.count = 10_000
    count.changed()
    assert room.told == [0], "due at 5 s, not at once"
    few = Counting()
    small = SpectatorCount(few.send, every_s=1.0, monotonic=lambda: now[0],
                           audience=lambda: 50)
    small.changed()
    now[0] += 1.5
    few.count = 51
    small.changed()
    assert few.told == [0, 51], "a small audience is told after a second"


async def test_a_room_loaded_back_holds_its_count_while_viewers_return_then_sends_it_once(
        ) -> None:
    room = Counting()
    count = SpectatorCount(room.send, every_s=0.01, hold_s=0.05)
    for back in range(1, 5):  # each told the count in its welcome
        room.count = back
        count.changed()
    assert room.told == []
    await asyncio.wait_for(room.sent.wait(), 5)
    assert room.told == [4]


async def test_after_the_hold_a_change_is_sent_at_once_as_before() -> None:
    now = [100.0]
    room = Counting()
    count = SpectatorCount(room.send, every_s=1.0, monotonic=lambda: now[0], hold_s=10.0)
    now[0] += 10.5  # the hold is over and nobody joined in it: nothing was sent
    assert room.told == []
    room.count = 1
    count.changed()
    assert room.told == [1]
