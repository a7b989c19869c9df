"""The organizer's dashboard row of a live table, read from its room's stored state.

Phase, round, turn, active player and clocks are open information: read from the state now
in a room without a spectator delay. In a delayed room they are read from the state its
spectators see (``spectator_delay_s`` ago): docs/fair-play.md promises that nobody but the
seats learns a delayed game live, and the organizer is not a seat (a phase seen live would
tell a friend in the audience that the armies were chosen, or that a side conceded).
Victory points so far add up the costs of troopers a spectator may not know of (Hidden
Deployment), so they are read as the room's casters see the game: from the state at the
casters' delay (``max(spectator_delay_s, 60)`` s) ago (``server.rooms.spectator_delay`` does
the same for a caster feed). Both states come from ``server.tournaments.folds``, which keeps
them between reads and folds only the events since."""

from __future__ import annotations

from typing import Any

from server.fanout import Audience
from server.rooms.spectator_delay import delay_ms
from server.rules.ids import Side
from server.rules.orders.game_sequence import victory_points
from server.rules.state import GameState
from server.store import RoomMeta
from server.tournaments.folds import Folds, TableRead

SIDES = ("A", "B")

GONE: dict[str, Any] = {"gone": True, "phase": None, "game_round": None, "turn": None,
                        "active": None, "clocks": None, "vp": None, "vp_as_of_ms": None,
                        "over": False, "as_of_ms": None}


async def live_row(folds: Folds, room_id: str, now_ms: int
                   ) -> tuple[dict[str, Any], RoomMeta | None]:
    """The room's part of a dashboard row (docs/tournaments.md, the dashboard) and the
    room's meta (None: the room is gone)."""
    read = await folds.read(room_id, now_ms)
    if read is None:
        return dict(GONE), None
    return row_of(folds.engine, read), read.meta


def row_of(engine: Any, read: TableRead) -> dict[str, Any]:
    if read.shown is None:  # a delayed room stored before first states were kept
        row = {**GONE, "gone": False}
    else:
        summary = engine.public_summary(read.shown)
        row = {"gone": False, "phase": summary["phase"], "game_round": summary["round"],
               "turn": summary["turn"], "active": summary["active"],
               "clocks": _clocks(read.shown, _delay(read)),
               "over": summary["phase"] == "game_over"}
    row["as_of_ms"] = read.shown_cutoff_ms
    row["vp"], row["vp_as_of_ms"] = _vp_as_casters_see(read)
    return row


def _delay(read: TableRead) -> int:
    return delay_ms(Audience.SPECTATOR, read.meta.settings) if read.shown_cutoff_ms else 0


def _clocks(state: Any, delay: int) -> dict[str, Any] | None:
    """The clocks as shown: a delayed room's run from ``since_ms`` shifted by the delay, so
    they count down as they did live (as its spectators' do)."""
    clocks = getattr(state, "clocks", None)
    if clocks is None:
        return None
    return {**{side.value: int(ms) for side, ms in clocks.remaining.items()},
            "running": None if clocks.running is None else clocks.running.value,
            "since_ms": clocks.since_ms + delay}


def _vp_as_casters_see(read: TableRead) -> tuple[dict[str, int] | None, int | None]:
    casters = read.casters
    if casters is None or casters.version == 0:
        return None, None
    state = casters.state
    if not isinstance(state, GameState) or len(state.armies) < 2:
        return None, read.cutoff_ms
    return {side: victory_points(state, Side(side)) for side in SIDES}, read.cutoff_ms
