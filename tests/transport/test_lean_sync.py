"""The socket's lean receive queue and writable flag (``server/transport/lean_sync.py``) do
what uvicorn asks of ``asyncio.Queue`` and ``asyncio.Event``; the server's protocol uses
them."""

from __future__ import annotations

import asyncio

from server.transport.lean_sync import LeanEvent, LeanQueue


async def test_the_queue_hands_out_in_order_and_wakes_its_consumer() -> None:
    queue: LeanQueue[int] = LeanQueue()
    assert queue.empty() and queue.qsize() == 0
    queue.put_nowait(1)
    queue.put_nowait(2)
    assert not queue.empty() and queue.qsize() == 2
    assert await queue.get() == 1
    assert await queue.get() == 2
    assert queue.empty()
    waiting = asyncio.ensure_future(queue.get())
    await asyncio.sleep(0)  # (one loop turn: the consumer waits)
    assert not waiting.done()
    queue.put_nowait(3)
    assert await waiting == 3


async def test_a_cancelled_get_leaves_the_queue_usable() -> None:
    queue: LeanQueue[int] = LeanQueue()
    waiting = asyncio.ensure_future(queue.get())
    await asyncio.sleep(0)
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    queue.put_nowait(4)
    assert await queue.get() == 4


async def test_the_event_wakes_every_waiter_and_waits_again_once_cleared() -> None:
    event = LeanEvent()
    assert not event.is_set()
    waiters = [asyncio.ensure_future(event.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in waiters)
    event.set()
    assert await asyncio.gather(*waiters) == [True, True, True]
    assert await event.wait() is True, "set: no waiting"
    event.clear()
    again = asyncio.ensure_future(event.wait())
    await asyncio.sleep(0)
    assert not again.done()
    again.cancel()
    await asyncio.gather(again, return_exceptions=True)
    event.set()
    assert event.is_set()
