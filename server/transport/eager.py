"""Run a coroutine at once, in the caller, as far as it gets without waiting.

Sending a frame through ASGI is a coroutine (Starlette's ``send``, uvicorn's protocol
``send``), but it only waits when the transport has asked its writer to pause (a reader
that does not keep up). Giving every frame to a writer task costs a future, a wake-up and
a task step per frame, the largest part of the fan-out's cost per delivery. Stepping the
coroutine in place writes the frame straight to the transport in the common case, and
only when it really waits does a task take over the rest (Python 3.12's eager task factory
does the same for whole tasks; this server runs on 3.11 too).
"""

from __future__ import annotations

from collections.abc import Awaitable, Generator
from typing import Any


def start_eagerly(awaitable: Awaitable[None]) -> Continuation | None:
    """Run ``awaitable`` (a coroutine, say) until it finishes (None) or first waits: then
    the returned ``Continuation`` is awaited, by a task, to finish it. Its exceptions
    propagate."""
    steps = awaitable.__await__()
    try:
        waiting_on = steps.send(None)
    except StopIteration:
        return None
    return Continuation(steps, waiting_on)


class Continuation:
    """The rest of a coroutine stepped by ``start_eagerly``: awaiting it resumes the
    coroutine where it waits, exactly as if it had been awaited from its start (the
    awaiting task sees the same futures; a cancellation is thrown into the coroutine)."""

    __slots__ = ("_steps", "_waiting_on")

    def __init__(self, steps: Generator[Any, Any, None], waiting_on: Any) -> None:
        self._steps = steps
        self._waiting_on = waiting_on

    def __await__(self) -> Generator[Any, Any, None]:
        steps, waiting_on = self._steps, self._waiting_on
        while True:
            try:
                sent = yield waiting_on
            except BaseException as thrown:  # cancellation included: handed on to it
                try:
                    waiting_on = steps.throw(thrown)
                except StopIteration:
                    return
            else:
                try:
                    waiting_on = steps.send(sent)
                except StopIteration:
                    return
