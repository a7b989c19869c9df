"""A seat's legal choices now (``options``), made once per version.

Computing them costs milliseconds (every skill, target and Line of Fire is tried) and
clients ask again at every version -- a flood of requests at one version is a cheap way to
spend a node's CPU -- so the frame is made once per version and audience and handed to every
later request until the room moves on. It only reads the game, so it is answered at once,
outside the room's inbox. Spectators and casters get none, at their own version (a
delayed audience's: its feed's).
"""

from __future__ import annotations

from server.fanout import Audience
from server.rooms import frames
from server.rooms.delayed_viewers import DelayedAudiences
from server.rooms.engine_port import Engine
from server.rooms.live_game import LiveGame


class SeatOptions:
    __slots__ = ("_delayed", "_engine", "_frames", "_game")

    def __init__(self, game: LiveGame, engine: Engine, delayed: DelayedAudiences) -> None:
        self._game = game
        self._engine = engine
        self._delayed = delayed
        self._frames: dict[Audience, tuple[int, bytes]] = {}
        """Per audience, the global version and the options frame made at it."""

    def frame(self, audience: Audience) -> bytes:
        game = self._game
        if not self._delayed.live(audience):
            return frames.options(self._delayed.seen_by(audience, game), {})
        cached = self._frames.get(audience)
        if cached is not None and cached[0] == game.version:
            return cached[1]
        choices = {} if audience is Audience.SPECTATOR else self._engine.seat_options(
            game.state, audience.value)
        frame = frames.options(game.seen[audience], choices)
        self._frames[audience] = (game.version, frame)
        return frame
