"""A small protocol client over real websockets, for the tests (server, cluster, tournaments, deploy).

It records every decoded frame it receives (``frames``) so tests can inspect everything a
viewer was sent, and tracks the event version it holds like a real client would. A
command's answer is a ``rejected``, an ``accepted``, or the ``events`` frame that names it
(``command_answer``); ``answer``/``answers`` read all three as ``Accepted``/``Rejected``.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlencode

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol import codec
from protocol.constants import PROTOCOL_VERSION, WS_PATH
from protocol.messages import (
    Accepted,
    ClientMessage,
    Command,
    Events,
    Hello,
    Rejected,
    ServerMessage,
    Snapshot,
    Welcome,
    command_answer,
)

M = TypeVar("M")
GUARD_S = 20.0  # only against a hung test; no test asserts how long anything takes

_ids = itertools.count(1)


class Client:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[ServerMessage] = []
        self.raw: list[bytes] = []
        self.version = -1
        self.welcome: Welcome | None = None

    @classmethod
    async def connect(cls, base_url: str, room: str, token: str | None = None,
                      since: int | None = None, hello: bool = True,
                      name_room: bool = True) -> Client:
        """``name_room``: the URL carries ``?room=`` as the browser client's does (a load
        balancer routes by it); False: as a client that names its room only in the hello."""
        url = "ws" + base_url.removeprefix("http") + WS_PATH
        if name_room:
            url += "?" + urlencode({"room": room})
        ws = await connect(url, max_size=None)
        client = cls(ws)
        if hello:
            await client.send(Hello(PROTOCOL_VERSION, room, token, since))
            client.welcome = await client.until(Welcome)
            # A snapshot (at the welcome's version) or the missed events follow the welcome.
            client.version = client.welcome.version if since is None else since
        return client

    async def send(self, message: ClientMessage) -> None:
        await self.ws.send(codec.encode(message))

    async def send_raw(self, data: bytes | str) -> None:
        await self.ws.send(data)

    async def next(self) -> ServerMessage:
        async with asyncio.timeout(GUARD_S):
            frame = await self.ws.recv()
        assert isinstance(frame, bytes)
        message = codec.decode_server(frame)
        self.raw.append(frame)
        self.frames.append(message)
        if isinstance(message, Events):
            assert message.first == self.version + 1, "gap in versions"
            self.version = message.first + len(message.events) - 1
        elif isinstance(message, Snapshot):
            self.version = message.version
        return message

    async def until(self, kind: type[M], where: Callable[[M], bool] = lambda _: True) -> M:
        """Read frames until one of ``kind`` satisfying ``where`` arrives."""
        while True:
            message = await self.next()
            if isinstance(message, kind) and where(message):
                return message

    async def command(self, body: dict[str, Any], *, id: str | None = None,
                      version: int | None = None) -> Accepted | Rejected:
        """Send a command and wait for its answer (events before it are recorded)."""
        command_id = id or f"c{next(_ids)}"
        await self.send(Command(command_id, self.version if version is None else version, body))
        return await self.answer(command_id)

    async def send_command(self, body: dict[str, Any], *, id: str) -> None:
        """Send a command without waiting for its answer."""
        await self.send(Command(id, self.version, body))

    async def answer(self, command_id: str) -> Accepted | Rejected:
        """Read frames until the answer to ``command_id`` (events before it are recorded)."""
        while True:
            answer = command_answer(await self.next())
            if answer is not None and answer.id == command_id:
                return answer

    def answers(self) -> list[Accepted | Rejected]:
        """Every answer received so far, in order (whatever frame carried it)."""
        return [a for a in map(command_answer, self.frames) if a is not None]

    async def close_code(self) -> int | None:
        """Read until the server closes; the close code it sent."""
        try:
            while True:
                await self.next()
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd is not None else None

    async def close(self) -> None:
        await self.ws.close()

    def of(self, kind: type[M]) -> list[M]:
        return [m for m in self.frames if isinstance(m, kind)]
