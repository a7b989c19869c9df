"""Who counts as a known client for the node's room reserve (``server.lobby.admission``).

When the node's own room budget is spent (an attacker rotating addresses can spend it), a
``POST /api/rooms`` may carry ``"credential"``, proof that its sender is someone the node
already knows:

- ``{"room": <room id>, "token": <a seat token or the room's organizer token>}`` of a room
  in which a seat has played (its version is above 0: a room made and left empty proves
  nothing), or
- ``{"tournament": <id>, "organizer": <the tournament's organizer token>}`` of a
  tournament that has started a round.

The answer is the key the credential counts under (``room:<id>``, ``tournament:<id>``),
each limited to ``reserve_rooms_per_credential`` reserve rooms an hour, or None. A
credential is checked only when the node's limits refused the request, so it costs a read
of the store only then. The tokens are compared as every token is
(``server.lobby.tokens``)."""

from __future__ import annotations

from typing import Any

from server.lobby.tokens import is_organizer, presented, seat_for_token
from server.rooms.registry import RoomRegistry
from server.store import StorageUnavailable
from server.tournaments import tokens as tournament_tokens
from server.tournaments.model import fold
from server.tournaments.service import Tournaments

MAX_ID_CHARS = 64


async def credential_key(registry: RoomRegistry, tournaments: Tournaments,
                         credential: Any) -> str | None:
    """The reserve key of a valid ``credential`` (see the module's docstring), else None
    (also when the store cannot be read now: the request is refused as it was)."""
    if not isinstance(credential, dict):
        return None
    try:
        room, token = credential.get("room"), credential.get("token")
        if isinstance(room, str) and _id(room) and presented(token) is not None:
            # The whole room, not its meta alone: the credential needs its version (read
            # only when the node's limits refused the request).
            stored = await registry.store.load_room(room)
            if stored is not None and stored.version > 0 and (
                    seat_for_token(stored.meta, token) is not None
                    or is_organizer(stored.meta, token)):
                return f"room:{room}"
            return None
        tournament, organizer = credential.get("tournament"), credential.get("organizer")
        if isinstance(tournament, str) and _id(tournament) and presented(organizer) is not None:
            entries = await tournaments.store.load(tournament)
            if entries:
                state = fold(entries)
                if state.rounds and tournament_tokens.matches(organizer, state.organizer_hash):
                    return f"tournament:{tournament}"
    except StorageUnavailable:
        return None
    return None


def _id(value: str) -> bool:
    return 0 < len(value) <= MAX_ID_CHARS
