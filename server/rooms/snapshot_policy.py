"""When a commit stores a snapshot of the room's state with its events, and what it stores.

Loading a room reads its latest snapshot and replays the events after it, so a snapshot
bounds that replay: one is stored with a commit every ``snapshot_every`` versions, and at
every change of phase, round or turn.

A snapshot holds the state without its army lists (``Engine.armies_of``): they are three
quarters of a state's bytes and change only during the setup, so the store keeps them
apart, written with the first snapshot after they change (``Taken.armies``) and read with
every snapshot after. A snapshot costs about a quarter of the whole state's bytes then,
and so may be taken often: the fewer events after it, the quicker a room comes back after
a restart.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.rooms.engine_port import Engine, Plain, State
from server.rooms.numbering import Seen, pack_room_armies, pack_room_snapshot


@dataclass(frozen=True, slots=True)
class Taken:
    """A snapshot to store with a commit."""

    snapshot: bytes
    armies: bytes | None
    """The army lists to store apart with it; None: the store's are the state's."""
    armies_of: object | None
    """``Engine.armies_of`` the state: what the store holds apart once this is stored."""


class SnapshotPolicy:
    __slots__ = ("_apart", "_armies", "_engine", "_every", "version")

    def __init__(self, engine: Engine, every: int, version: int,
                 armies: object | None = None, *, apart: bool = True) -> None:
        """``version``: the version of the store's latest snapshot of the room; ``armies``:
        ``Engine.armies_of`` that snapshot's state when the store holds its army lists
        apart (None: it holds none, and the next snapshot stores them); without ``apart``
        every snapshot holds its army lists (``Settings.snapshot_armies_apart``)."""
        self._engine = engine
        self._every = every
        self._armies = armies
        self._apart = apart
        self.version = version

    def due(self, before: State, after: Plain, new_version: int) -> bool:
        """Whether the commit from ``before`` to ``new_version`` stores a snapshot
        (``after``: the new state's ``public_summary``)."""
        if new_version - self.version >= self._every:
            return True
        summary = self._engine.public_summary(before)
        return any(summary[key] != after[key] for key in ("phase", "round", "turn"))

    def take(self, state: State, seen: Seen) -> Taken:
        """The snapshot of ``state`` (each audience's count at it: ``seen``) to store."""
        engine = self._engine
        if not self._apart:
            return Taken(pack_room_snapshot(engine.state_to_plain(state), seen), None, None)
        armies_of = engine.armies_of(state)
        armies = None
        if armies_of is not None and armies_of is not self._armies:
            armies = pack_room_armies(engine, state)
        return Taken(pack_room_snapshot(engine.state_to_plain(state, armies=False), seen),
                     armies, armies_of)

    def stored(self, version: int, taken: Taken) -> None:
        """``taken`` was stored as the snapshot at ``version``."""
        self.version = version
        self._armies = taken.armies_of
