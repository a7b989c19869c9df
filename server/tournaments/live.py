"""The organizer's dashboard row of a live table, read from its room's stored state.

Phase, round, turn, active player and clocks are open information: read from the state now.
Victory points so far add up the costs of troopers a spectator may not know of (Hidden
Deployment), so they are read as the room's casters see the game: from the state at the
casters' delay (``max(spectator_delay_s, 60)`` s) ago, replayed from the room's first state
(``server.rooms.spectator_delay`` does the same for a caster feed)."""

from __future__ import annotations

from typing import Any

from protocol.codec import unpack_plain
from server.fanout import Audience
from server.rooms.engine_port import Engine
from server.rooms.numbering import unpack_room_snapshot
from server.rooms.spectator_delay import delay_ms
from server.rules.ids import Side
from server.rules.orders.game_sequence import victory_points
from server.rules.state import GameState
from server.store import RoomStore

SIDES = ("A", "B")


async def live_row(store: RoomStore, engine: Engine, room_id: str, now_ms: int
                   ) -> dict[str, Any]:
    """The room's part of a dashboard row (docs/tournaments.md, the dashboard)."""
    stored = await store.load_room(room_id)
    if stored is None:
        return {"gone": True, "phase": None, "game_round": None, "turn": None, "active": None,
                "clocks": None, "vp": None, "vp_as_of_ms": None, "over": False}
    state_plain, _ = unpack_room_snapshot(stored.snapshot, stored.snapshot_version)
    state = engine.state_from_plain(state_plain)
    if stored.events:
        state = engine.apply_all(state, [engine.event_from_plain(unpack_plain(e))
                                         for e in stored.events])
    summary = engine.public_summary(state)
    row: dict[str, Any] = {"gone": False, "phase": summary["phase"],
                           "game_round": summary["round"], "turn": summary["turn"],
                           "active": summary["active"], "clocks": _clocks(state),
                           "over": summary["phase"] == "game_over"}
    row["vp"], row["vp_as_of_ms"] = await _vp_as_casters_see(
        store, engine, room_id, now_ms, delay_ms(Audience.CASTER, stored.meta.settings))
    return row


def _clocks(state: Any) -> dict[str, Any] | None:
    clocks = getattr(state, "clocks", None)
    if clocks is None:
        return None
    return {**{side.value: int(ms) for side, ms in clocks.remaining.items()},
            "running": None if clocks.running is None else clocks.running.value,
            "since_ms": clocks.since_ms}


async def _vp_as_casters_see(store: RoomStore, engine: Engine, room_id: str, now_ms: int,
                             delay: int) -> tuple[dict[str, int] | None, int | None]:
    timeline = await store.timeline(room_id)
    if timeline is None or timeline.first_snapshot is None:
        return None, None
    cutoff = now_ms - delay
    released = next((n for n, at in enumerate(timeline.committed_ms) if at > cutoff),
                    len(timeline.events))
    if released == 0:
        return None, None
    state_plain, _ = unpack_room_snapshot(timeline.first_snapshot)
    state = engine.apply_all(engine.state_from_plain(state_plain),
                             [engine.event_from_plain(unpack_plain(e))
                              for e in timeline.events[:released]])
    if not isinstance(state, GameState) or len(state.armies) < 2:
        return None, cutoff
    return {side: victory_points(state, Side(side)) for side in SIDES}, cutoff
