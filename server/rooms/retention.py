"""How long the store keeps a room after its last write, by where its game stands.

- **Not begun** (phase ``army_selection``: the armies are not both chosen, whether or not
  anyone ever joined): ``room_unstarted_ttl_s`` (24 h). Rooms made and left, or never
  joined, go away by themselves.
- **Being played** (every phase from ``initiative`` to the last Order): kept for ever,
  however long nobody plays it.
- **Over** (``game_over``): ``room_finished_ttl_s`` (30 days), so that its record
  (``GET /api/rooms/{room}/record``) can be fetched for that long.

The room passes it with every append (the store starts it again from each write, and
``set_deadlines`` -- a seat joining or leaving -- renews it too); the registry with the
room's creation. 0 means kept for ever.
"""

from __future__ import annotations

from server.config import Settings
from server.rooms.engine_port import Engine, State

NOT_BEGUN = "army_selection"
OVER = "game_over"


def retention_ms(settings: Settings, phase: str) -> int:
    """The store's retention for a room whose game is in ``phase`` (0: for ever)."""
    if phase == NOT_BEGUN:
        return int(settings.room_unstarted_ttl_s * 1000)
    if phase == OVER:
        return int(settings.room_finished_ttl_s * 1000)
    return 0


def retention_of(settings: Settings, engine: Engine, state: State) -> int:
    """``retention_ms`` of the room whose game state is ``state``."""
    return retention_ms(settings, str(engine.public_summary(state)["phase"]))
