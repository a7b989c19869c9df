"""A relay's crowd kit: the welcome and snapshot a relaying node hands to every spectator
(or every caster) joining the room before the room's next broadcast.

Why: with 10,000 spectators joining one room within 30 s over two nodes (``bench.broadcast``),
every relayed join was a round trip to the owner, whose room made a welcome and a snapshot for
it and sent both back over Redis: two bus messages of kilobytes per join, and the owner's,
Redis's and the relay's CPU for each, on the core the players' commands need. Newcomers of one
audience arriving between two broadcasts see the same room, so their welcome and snapshot are
the same frames but for the time left on the ARO window and on the chess clocks. The relay
asks the owner for them once (``Greeting.KIT``), keeps them here, and greets the others itself;
the owner only registers those (``Greeting.QUIET``: counted, subscribed, nothing sent).

A kit is good until the room's next broadcast, which it misses (an event, a seat's presence, a
new spectator count): the relay drops its kits then (``RelayRoom``), and the next newcomer asks
for a new one. The owner keeps publishing the room's broadcasts on the bus from the moment a
relay forwards a join until the relay's last viewer left (``OwnerPort.relaying``), so a relay
that holds a kit sees every broadcast that ends it.

Time: ``remaining_ms`` in the window and the clocks is as of the moment the owner made the
snapshot. A kit handed out later says that much less (the running clock only, never below 0),
as the owner would have said then.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from protocol import codec
from protocol.messages import Plain, Snapshot


@dataclass(frozen=True, slots=True)
class CrowdKit:
    welcome: bytes
    snapshot: bytes
    received_at: float
    """When the relay got it (its loop's clock, seconds)."""
    timed: Snapshot | None = None
    """The snapshot decoded, when it holds a window or clocks that run down; else None."""
    packed_state: bytes = b""
    """``timed``'s state encoded, spliced into each aged snapshot."""

    @classmethod
    def of(cls, welcome: bytes, snapshot: bytes, received_at: float) -> CrowdKit:
        """Raises ``DecodeError`` or ``ValueError`` if ``snapshot`` is not a snapshot."""
        message = codec.decode_server(snapshot)
        if not isinstance(message, Snapshot):
            raise ValueError(f"a crowd kit needs a snapshot, not {type(message).__name__}")
        if message.window is None and message.clocks is None:
            return cls(welcome, snapshot, received_at)
        return cls(welcome, snapshot, received_at, message, codec.pack_plain(message.state))

    def snapshot_at(self, now: float) -> bytes:
        """The snapshot as of ``now`` (the relay's loop clock)."""
        timed = self.timed
        elapsed_ms = int((now - self.received_at) * 1000)
        if timed is None or elapsed_ms <= 0:
            return self.snapshot
        return codec.encode_with_packed(aged(timed, elapsed_ms), state=self.packed_state)


def aged(snapshot: Snapshot, elapsed_ms: int) -> Snapshot:
    """``snapshot`` ``elapsed_ms`` later: the window's time left and the running clock's
    less by that much (at least 0); everything else as it was."""
    window = snapshot.window
    if window is not None:
        window = {**window, "remaining_ms": _less(window.get("remaining_ms"), elapsed_ms)}
    clocks = snapshot.clocks
    if clocks is not None:
        clocks = {side: _clock_aged(clock, elapsed_ms) for side, clock in clocks.items()}
    return replace(snapshot, window=window, clocks=clocks)


def _clock_aged(clock: Plain, elapsed_ms: int) -> Plain:
    if not isinstance(clock, dict) or clock.get("running") is not True:
        return clock
    return {**clock, "remaining_ms": _less(clock.get("remaining_ms"), elapsed_ms)}


def _less(remaining: Plain, elapsed_ms: int) -> Plain:
    if isinstance(remaining, int) and not isinstance(remaining, bool):
        return max(0, remaining - elapsed_ms)
    return remaining
