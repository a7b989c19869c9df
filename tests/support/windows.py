"""The ARO window as a client follows it: the ``window`` of every ``events`` frame (the
window as it stands after that frame's events), for tests that wait on a window opening or
closing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from protocol.messages import Events

M = TypeVar("M")


class Reader(Protocol):
    """A test client: reads frames until one of a kind satisfies a condition, and lists the
    frames of a kind it has read."""

    async def until(self, kind: type[M], where: Callable[[M], bool] = ...) -> M: ...

    def of(self, kind: type[M]) -> list[M]: ...


def with_window(message: Events) -> bool:
    """An ARO window is open after this frame."""
    return message.window is not None


def key(window: dict[str, Any]) -> tuple[int, int]:
    """(order, step): what tells one window from another."""
    return window["order"], window["step"]


def closes(window: dict[str, Any]) -> Callable[[Events], bool]:
    """``window`` is no longer open after the frame (none is, or another one is)."""
    return lambda m: m.window is None or key(m.window) != key(window)


async def opened(reader: Reader) -> dict[str, Any]:
    """Read until a frame after which a window is open; that window's fields."""
    frame = await reader.until(Events, with_window)
    assert frame.window is not None
    return frame.window


async def closed(reader: Reader, window: dict[str, Any]) -> Events:
    """Read until the frame after which ``window`` is no longer open."""
    return await reader.until(Events, closes(window))


def current(reader: Reader) -> dict[str, Any] | None:
    """The window as the last events frame read left it (None: none open, or no frame yet)."""
    frames = reader.of(Events)
    return frames[-1].window if frames else None


async def open_now(reader: Reader) -> dict[str, Any]:
    """The window open for ``reader`` now, or the next one to open."""
    window = current(reader)
    return window if window is not None else await opened(reader)


async def until_closed(reader: Reader, window: dict[str, Any]) -> None:
    """Return once ``reader`` has read that ``window`` is no longer open."""
    now = current(reader)
    if now is not None and key(now) == key(window):
        await closed(reader, window)


def history(frames: Sequence[Events]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The windows these frames opened and closed, in order, as (order, step)."""
    opened_keys: list[tuple[int, int]] = []
    closed_keys: list[tuple[int, int]] = []
    held: tuple[int, int] | None = None
    for frame in frames:
        now = None if frame.window is None else key(frame.window)
        if now != held:
            if held is not None:
                closed_keys.append(held)
            if now is not None:
                opened_keys.append(now)
            held = now
    return opened_keys, closed_keys
