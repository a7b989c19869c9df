"""Where the practice bot plays: a task on the node that runs (owns) its room, connecting to
the node's own websocket endpoint with the bot seat's token (``seat_client``), as a browser
would. The room registry tells it when a room starts on this node (created here, or opened:
after a restart or a takeover) and when it stops here (moved, idle, shutdown): ``started``
and ``stopped``. docs/bot.md says why it runs there.

The tasks are kept here (``app.state.bots``) so they are not collected while they play, and
are cancelled when the node stops."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from server.bot.seat_client import BotSeat, play
from server.config import Settings

log = logging.getLogger(__name__)


class Bots:
    """The bots playing from this node, one per room it runs that seats one."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.tasks: dict[str, asyncio.Task[None]] = {}
        settings = settings or Settings()
        self.base = node_base((settings.host, settings.port))
        """The node's own websocket base (its configured listener; the lobby refines it
        from the listener a request came in on: a test's server listens on a free port)."""
        self.rate_per_s, self.burst = settings.rate_per_s, settings.rate_burst

    def started(self, meta: Any) -> None:
        """A room started on this node (``server.rooms.registry``; ``meta``: its
        ``RoomMeta``): its bot, if it seats one, plays from here unless it already does."""
        seat, token = meta.settings.bot, meta.bot_token
        if not seat or not token:
            return
        running = self.tasks.get(meta.room_id)
        if running is not None and not running.done():
            return
        self.seat(BotSeat(self.base, meta.room_id, seat, token, meta.settings.bot_level,
                          self.rate_per_s, self.burst))

    def stopped(self, room_id: str) -> None:
        """The room stopped on this node: its bot stops here (its new owner runs it)."""
        task = self.tasks.pop(room_id, None)
        if task is not None:
            task.cancel()

    def seat(self, seat: BotSeat) -> None:
        task = asyncio.create_task(self._play(seat), name=f"bot-{seat.room}-{seat.seat}")
        self.tasks[seat.room] = task
        task.add_done_callback(lambda done: self._forget(seat.room, done))

    def _forget(self, room: str, task: asyncio.Task[None]) -> None:
        if self.tasks.get(room) is task:
            del self.tasks[room]

    async def _play(self, seat: BotSeat) -> None:
        try:
            await play(seat)
        except asyncio.CancelledError:
            raise
        except Exception:  # a bot's failure must not pass unseen, nor touch the node
            log.exception("the bot of room %s seat %s stopped", seat.room, seat.seat)

    def stop(self) -> None:
        for task in list(self.tasks.values()):
            task.cancel()


def bots_of(state: Any) -> Bots:
    """The app's bots (made on first use)."""
    bots = getattr(state, "bots", None)
    if bots is None:
        bots = state.bots = Bots(getattr(state, "settings", None))
    return bots


def node_base(server: tuple[str, int] | None) -> str:
    """The websocket base of the listener a request came in on (the node itself)."""
    host, port = server or ("127.0.0.1", 8000)
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"ws://[{host}]:{port}" if ":" in host else f"ws://{host}:{port}"
