"""The log line of a slow command: at most one a second per node.

A seat's command that spends ``SLOW_COMMAND_S`` or more in its room (from its inbox to its
answer) is worth a line saying where the time went: waiting behind the room's other
messages, or handled (rules, storage, fan-out). But a node past its capacity makes every
command slow: a line per command was 150,000 lines in the 30 s of the benchmark's
maximum-rate phase, and the logging's own CPU on top. So one line a second at most, for the
first slow command after the last line, naming how many more there were meanwhile
(``referee_command_latency_seconds`` counts them all).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

log = logging.getLogger("server.rooms.room")

SLOW_COMMAND_S = 0.05
"""50 ms: the players' latency target of docs/performance.md."""
EVERY_S = 1.0


class SlowCommands:
    __slots__ = ("_every_s", "_last", "_monotonic", "_unlogged", "threshold_s")

    def __init__(self, threshold_s: float = SLOW_COMMAND_S, every_s: float = EVERY_S,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.threshold_s = threshold_s
        self._every_s = every_s
        self._monotonic = monotonic
        self._last: float | None = None
        self._unlogged = 0

    def took(self, room_id: str, waited_s: float, handled_s: float, store_s: float,
             cpu_s: float | None = None) -> None:
        """A command's time in its room: logged if slow and no line was written for
        ``every_s``, else counted for the next line. ``cpu_s``: the CPU time the node's loop
        thread used while the command was handled (its own work and whatever the loop ran
        during its awaits): far less than ``handled_s`` when the process waited for the
        core (another process on it) or for Redis."""
        if waited_s + handled_s < self.threshold_s:
            return
        now = self._monotonic()
        if self._last is not None and now - self._last < self._every_s:
            self._unlogged += 1
            return
        more = (f"; {self._unlogged} more slow commands on this node since the last such "
                f"line") if self._unlogged else ""
        cpu = f"; the loop's CPU meanwhile {cpu_s * 1000:.1f} ms" if cpu_s is not None else ""
        log.warning("room %s: a command took %.1f ms in the room (%.1f ms waiting in its "
                    "inbox, %.1f ms handled, of which the last store append %.1f ms%s)%s",
                    room_id, (waited_s + handled_s) * 1000, waited_s * 1000,
                    handled_s * 1000, store_s * 1000, cpu, more)
        self._last = now
        self._unlogged = 0


SLOW_COMMANDS = SlowCommands()
"""The node's one log of slow commands (every room of the process shares it)."""
