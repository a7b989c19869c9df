"""When a commit stores a snapshot of the room's state with its events.

Loading a room reads its latest snapshot and replays the events after it, so a snapshot
bounds that replay: one is stored with a commit every ``snapshot_every`` versions, and at
every change of phase, round or turn. A snapshot costs a whole state's size in the
append, so a commit does not store one every time.
"""

from __future__ import annotations

from server.rooms.engine_port import Engine, Plain, State


class SnapshotPolicy:
    __slots__ = ("_engine", "_every", "version")

    def __init__(self, engine: Engine, every: int, version: int) -> None:
        """``version``: the version of the store's latest snapshot of the room."""
        self._engine = engine
        self._every = every
        self.version = version

    def due(self, before: State, after: Plain, new_version: int) -> bool:
        """Whether the commit from ``before`` to ``new_version`` stores a snapshot
        (``after``: the new state's ``public_summary``)."""
        if new_version - self.version >= self._every:
            return True
        summary = self._engine.public_summary(before)
        return any(summary[key] != after[key] for key in ("phase", "round", "turn"))

    def stored(self, version: int) -> None:
        """A snapshot at ``version`` was stored."""
        self.version = version
