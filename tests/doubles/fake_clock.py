"""A room clock for tests: Unix ms that only move when the test says (starting at the real
time, so that the ARO window's deadlines, taken from the wall clock, are near it)."""

from __future__ import annotations

from server.rooms.room import now_ms


class FakeClock:
    def __init__(self) -> None:
        self.ms = now_ms()

    def __call__(self) -> int:
        return self.ms

    def advance(self, seconds: float) -> None:
        self.ms += round(seconds * 1000)
