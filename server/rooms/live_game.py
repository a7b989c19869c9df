"""The room's game as it stands, as the room's collaborators read it.

The room is the only writer of its game: a commit replaces ``state`` and moves ``version``
and ``seen`` on together, with no await between them and the frames that tell of it. Its
collaborators (``catch_up``, ``listing``) read them through this view of the room, never a
copy, so what they send is always the game as it stands.
"""

from __future__ import annotations

from typing import Protocol

from server.fanout import Audience
from server.rooms.engine_port import State


class LiveGame(Protocol):
    room_id: str
    state: State
    """The game state now (never changed in place: each commit makes a new one)."""
    version: int
    """The global version: every stored event. Viewers never see it (``seen``)."""
    seen: dict[Audience, int]
    """Each audience's own count of the events at ``version`` (``numbering``)."""
