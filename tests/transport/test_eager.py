"""``start_eagerly``: a coroutine runs in place until it first waits; the ``Continuation``
then finishes it inside a task exactly as an ordinary ``await`` would."""

from __future__ import annotations

import asyncio

import pytest

from server.transport.eager import Continuation, start_eagerly


async def test_a_coroutine_that_never_waits_runs_to_its_end_in_place() -> None:
    done: list[str] = []

    async def quick() -> None:
        done.append("ran")

    assert start_eagerly(quick()) is None
    assert done == ["ran"]


async def test_a_coroutine_that_waits_is_finished_by_awaiting_its_continuation() -> None:
    gate = asyncio.Event()
    steps: list[str] = []

    async def slow() -> None:
        steps.append("before")
        await gate.wait()
        steps.append("after")

    rest = start_eagerly(slow())
    assert rest is not None and steps == ["before"]
    task = asyncio.create_task(_await(rest))
    gate.set()
    await task
    assert steps == ["before", "after"]


async def test_errors_raise_where_they_happen() -> None:
    async def fails_at_once() -> None:
        raise ConnectionResetError("gone")

    with pytest.raises(ConnectionResetError):
        start_eagerly(fails_at_once())

    gate = asyncio.Event()

    async def fails_later() -> None:
        await gate.wait()
        raise ConnectionResetError("gone later")

    rest = start_eagerly(fails_later())
    assert rest is not None
    task = asyncio.create_task(_await(rest))
    gate.set()
    with pytest.raises(ConnectionResetError):
        await task


async def test_cancelling_the_task_cancels_the_coroutine_where_it_waits() -> None:
    cleaned: list[str] = []

    async def waits_forever() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            cleaned.append("finally ran")

    rest = start_eagerly(waits_forever())
    assert rest is not None
    started = asyncio.Event()
    task = asyncio.create_task(_await(rest, started))
    await started.wait()  # the task is now waiting inside the continuation
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleaned == ["finally ran"]


async def _await(rest: Continuation, started: asyncio.Event | None = None) -> None:
    if started is not None:
        started.set()
    await rest
