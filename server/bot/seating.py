"""Seating the practice bot in a room this node creates (``POST /api/rooms`` with ``bot``):
a task on this node that connects to the node's own websocket endpoint with the bot seat's
token (``seat_client``), as a browser would. docs/bot.md says why it runs here.

The tasks are kept on the app (``app.state.bots``) so they are not collected while they
play, and are cancelled when the node stops."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from server.bot.seat_client import BotSeat, play

log = logging.getLogger(__name__)


class Bots:
    """The bots playing from this node."""

    def __init__(self) -> None:
        self.tasks: set[asyncio.Task[None]] = set()

    def seat(self, seat: BotSeat) -> None:
        task = asyncio.create_task(self._play(seat), name=f"bot-{seat.room}-{seat.seat}")
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _play(self, seat: BotSeat) -> None:
        try:
            await play(seat)
        except asyncio.CancelledError:
            raise
        except Exception:  # a bot's failure must not pass unseen, nor touch the node
            log.exception("the bot of room %s seat %s stopped", seat.room, seat.seat)

    def stop(self) -> None:
        for task in list(self.tasks):
            task.cancel()


def bots_of(state: Any) -> Bots:
    """The app's bots (made on first use)."""
    bots = getattr(state, "bots", None)
    if bots is None:
        bots = state.bots = Bots()
    return bots


def node_base(server: tuple[str, int] | None) -> str:
    """The websocket base of the listener a request came in on (the node itself)."""
    host, port = server or ("127.0.0.1", 8000)
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"ws://[{host}]:{port}" if ":" in host else f"ws://{host}:{port}"
