"""A table's result read from its room: the game's ``game_ended`` event (the rules core's
winner, each side's victory points and objective points, and the reason), once that end is
as old as the room's spectator delay (the rule ``GET /api/rooms/{room}/record`` follows:
the public standings never tell a delayed spectator the end first)."""

from __future__ import annotations

from dataclasses import dataclass

from protocol.codec import unpack_plain
from server.fanout import Audience
from server.rooms.spectator_delay import delay_ms
from server.store import RoomStore
from server.store.clipped_reads import commits_through
from server.tournaments.model import Table

GAME_ENDED = "game_ended"


@dataclass(frozen=True, slots=True)
class GameOutcome:
    winner: str | None
    """A player id of the table, None: a tie."""
    vp: dict[str, int]
    op: dict[str, int]
    """Each player's Objective Points as the game scored them (the result's ``op``; a game
    without a mission has none: 0 each)."""
    reason: str


async def read_outcome(store: RoomStore, table: Table, now_ms: int) -> GameOutcome | None:
    """The table's game's result in player ids, or None: not over (or not for long enough),
    or its room is gone."""
    stored = await store.load_room(table.room)
    if stored is None or stored.version == 0:
        return None
    # The loaded room's last event only (not one that landed since: on a cluster that waits
    # for replicas only the load was confirmed, server.store.clipped_reads).
    last = await commits_through(store, table.room, stored.version - 1, stored.version)
    if not last or not last.events:
        return None
    ended = unpack_plain(last.events[-1])
    if ended.get("type") != GAME_ENDED:
        return None
    delay = delay_ms(Audience.SPECTATOR, stored.meta.settings)
    if delay > 0 and now_ms < last.committed_ms[-1] + delay:
        return None
    result = ended["result"]
    players = {"A": table.a, "B": table.b}
    winner = result.get("winner")
    points = result.get("victory_points") or {}
    objectives = result.get("op") or {}
    return GameOutcome(None if winner is None else players[str(winner)],
                       {players[side]: int(points.get(side, 0)) for side in ("A", "B")},
                       {players[side]: int(objectives.get(side, 0)) for side in ("A", "B")},
                       str(result.get("reason", "")))
