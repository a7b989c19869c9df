"""The bot's connection to its seat: a websocket client of the node's own endpoint, with
the seat's token, exactly as a browser connects (``protocol/``). It holds only what that
seat is sent: its view (asked for as a ``snapshot`` whenever its events moved on) and its
``options``; it never touches the room, the store or the rules state.

The loop: when the room's version moved, ask for a snapshot and the options (``sync``,
``options``); when both are of the same version and the game waits on the seat, send the
decision's candidates one by one until the referee accepts one (a ``rejected`` answer: the
next). A lost connection is reopened, like a client's, after a short pause (the room may
have moved to another node). The game's end (``result`` in the view) ends the loop.

Commands are paced under the socket's rate limit (``Settings.rate_per_s``/``rate_burst``,
``server/transport/endpoint.py``): a refused candidate costs a token like any command."""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from protocol import codec
from protocol.constants import PROTOCOL_VERSION, WS_PATH, CloseCode
from protocol.messages import (
    Command,
    Events,
    Hello,
    Options,
    OptionsRequest,
    Rejected,
    Snapshot,
    Sync,
    command_answer,
)
from server.bot.decide import candidates, waits_on
from server.bot.fruitless import Fruitless

log = logging.getLogger(__name__)
MAX_TRIES = 200
"""Candidates tried for one decision before the bot asks again (the options may have moved)."""
RECONNECT_S = 1.0
FINAL_CLOSES = {CloseCode.BAD_TOKEN, CloseCode.ROOM_NOT_FOUND, CloseCode.UNSUPPORTED_VERSION,
                CloseCode.REPLACED}
"""Closes after which coming back is pointless: the room is gone, the token or protocol is
not taken, or the seat was opened elsewhere (never fought over)."""


@dataclass(frozen=True)
class BotSeat:
    """Where the bot plays: the node's websocket base (``ws://host:port``), the room, its
    seat and token, its level; ``rate_per_s``/``burst``: the socket's limit to stay under."""

    base: str
    room: str
    seat: str
    token: str
    level: str
    rate_per_s: float = 20.0
    burst: int = 40


class Pacer:
    """A client-side token bucket: waits before a message would overrun the server's."""

    def __init__(self, rate_per_s: float, burst: int) -> None:
        self.rate, self.capacity = rate_per_s * 0.8, max(1.0, burst / 2)
        self.tokens, self.at = self.capacity, time.monotonic()

    async def take(self, cost: float) -> None:
        while True:
            now = time.monotonic()
            self.tokens = min(self.capacity, self.tokens + (now - self.at) * self.rate)
            self.at = now
            if self.tokens >= cost:
                self.tokens -= cost
                return
            await asyncio.sleep((cost - self.tokens) / self.rate)


async def play(seat: BotSeat, rng: random.Random | None = None) -> None:
    """Play the seat until its game is over (reconnecting as needed)."""
    rng = rng or random.Random()
    pacer = Pacer(seat.rate_per_s, seat.burst)
    fruitless = Fruitless()  # kept across reconnections
    while True:
        try:
            if await _session(seat, rng, pacer, fruitless):
                return
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else None
            if code in FINAL_CLOSES:
                log.info("bot %s of room %s stops: closed with %s", seat.seat, seat.room, code)
                return
            log.info("bot %s of room %s reconnects: %s", seat.seat, seat.room, closed)
        except (InvalidHandshake, InvalidURI, OSError) as error:
            log.info("bot %s of room %s reconnects: %s", seat.seat, seat.room, error)
        await asyncio.sleep(RECONNECT_S)


async def _session(seat: BotSeat, rng: random.Random, pacer: Pacer,
                   fruitless: Fruitless) -> bool:
    """One connection; True once the game is over."""
    url = f"{seat.base}{WS_PATH}?{urlencode({'room': seat.room})}"
    async with connect(url, max_size=None) as ws:
        await ws.send(codec.encode(Hello(PROTOCOL_VERSION, seat.room, seat.token, None)))
        turn = _Turn(ws, seat, rng, pacer, fruitless)
        await turn.refresh()
        async for frame in ws:
            assert isinstance(frame, bytes)
            if await turn.receive(codec.decode_server(frame)):
                return True
    return False


class _Turn:
    """What one connection holds: the seat's latest view and options, and the candidates of
    the decision in progress."""

    def __init__(self, ws: ClientConnection, seat: BotSeat, rng: random.Random,
                 pacer: Pacer, fruitless: Fruitless) -> None:
        self.ws, self.seat, self.rng, self.pacer = ws, seat, rng, pacer
        self.fruitless = fruitless
        self.version = -1
        self.view: dict[str, Any] | None = None
        self.view_version = -2
        self.options: dict[str, Any] | None = None
        self.options_version = -3
        self.pending: str | None = None
        self.tries: Any = iter(())
        self.tried = 0
        self.ids = itertools.count(1)
        self.prefix = f"bot{secrets.token_hex(4)}-"
        """Command ids new to the seat on each connection: the seat remembers its latest ids'
        answers (``server/rooms/answers.py``), and an id sent again gets the old answer."""
        self.refused: Rejected | None = None  # the last of its commands the referee refused
        self.stuck_at = -1  # the version at which it last found no move accepted (logged once)
        self.asked: set[str] = set()
        """Answers still due to the last refresh (the server merges ``options`` requests
        that wait together, so answers are not counted: each kind is due or not)."""

    async def refresh(self) -> None:
        """Ask for this seat's view and options as they stand (once at a time: events that
        come meanwhile are asked for when both answers are in)."""
        if self.asked:
            return
        self.asked = {"snapshot", "options"}
        await self.pacer.take(4.0)
        await self.ws.send(codec.encode(Sync(None)))
        await self.ws.send(codec.encode(OptionsRequest()))

    async def receive(self, message: Any) -> bool:
        answer = command_answer(message)
        if isinstance(message, Snapshot):
            self.version, self.view, self.view_version = message.version, message.state, message.version
            if (message.state.get("result") is not None
                    and message.state.get("phase") == "game_over"):
                return True
        elif isinstance(message, Events):
            self.version = max(self.version, message.last)
        elif isinstance(message, Options):
            self.options, self.options_version = message.options, message.version
        if isinstance(message, Snapshot | Options) and self.asked:
            self.asked.discard("snapshot" if isinstance(message, Snapshot) else "options")
            # Events may come between the two answers, and the server may answer them in
            # either order: the later of the two can be newer than the other.
            if not self.asked and min(self.view_version, self.options_version) < self.version:
                await self.refresh()  # events came meanwhile
                return False
        if answer is not None and answer.id == self.pending:
            self.pending = None
            if isinstance(answer, Rejected):
                self.refused = answer
                await self._next()
                return False
            if not isinstance(message, Events):  # accepted without events: look again
                await self.refresh()
                return False
        if self.pending is not None:
            return False
        if isinstance(message, Events):  # even without events: an ARO window may open
            await self.refresh()
        elif (self.view is not None and self.options is not None
              and self.view_version == self.options_version == self.version):
            if not waits_on(self.options):
                return False  # the game waits on the other seat: its events will come
            self.tries = candidates(self.view, self.options, self.seat.seat, self.seat.level,
                                    self.rng, fruitless=self.fruitless)
            self.tried = 0
            self.options = None  # decided on: wait for the next ones
            await self._next()
        return False

    async def _next(self) -> None:
        """Send the decision's next candidate (none left: ask again)."""
        body = next(self.tries, None) if self.tried < MAX_TRIES else None
        if body is None:  # nothing accepted: look again a little later (clocks, windows)
            if self.tried and self.stuck_at != self.version:
                # Once per version: a bot that keeps finding no move holds its opponent's
                # game, and the refusal says why (a choice offered but refused, say).
                self.stuck_at = self.version
                refused = self.refused
                log.warning("bot %s of room %s: none of its %d moves at version %d was "
                            "accepted (the last refused: %s); it looks again", self.seat.seat,
                            self.seat.room, self.tried, self.version,
                            f"{refused.code} {refused.message!r}" if refused else "none")
            await asyncio.sleep(RECONNECT_S)
            await self.refresh()
            return
        self.tried += 1
        await self.pacer.take(1.0)
        self.pending = f"{self.prefix}{next(self.ids)}"
        await self.ws.send(codec.encode(Command(self.pending, self.version, body)))
