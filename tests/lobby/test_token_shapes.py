"""A malformed token of any kind (seat, room organizer, caster, tournament player or
organizer) opens nothing and is refused as a wrong one is: ``bad_token`` and close 4003 on
the websocket, 403 in the lobby, never a traceback (the review's ``c.x.é`` reached
``hmac.compare_digest`` with non-ASCII text, raised TypeError and closed 1006)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from protocol import codec
from protocol.constants import PROTOCOL_VERSION, WS_PATH, CloseCode
from protocol.messages import Error, Hello
from server.lobby import tokens
from server.store import RoomMeta
from server.tournaments import tokens as tournament_tokens
from testkit.fuzz.frames import json_malformed_tokens, malformed_tokens
from testkit.serving import running_server
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import create_room, settings

SHAPES = ["c.x.\u00e9", "c.\u00e9.x", "\u00e9" * 32, "\ud800", "c.x.\udc80", "x" * 129, "x" * 10_000,
          "", "tok en", "c.x.y\x00"]


def _meta() -> RoomMeta:
    meta: Any = type("Meta", (), {})()
    meta.room_id = "room"
    meta.token_hash_a = tokens.token_hash("a" * 32)
    meta.token_hash_b = tokens.token_hash("b" * 32)
    meta.organizer_hash = tokens.token_hash("o" * 32)
    return meta  # type: ignore[no-any-return]


@pytest.mark.parametrize("token", [*SHAPES, None, 5, b"c.x.y"])
def test_every_token_check_refuses_a_malformed_token_without_raising(token: Any) -> None:
    meta = _meta()
    assert tokens.presented(token) is None
    assert tokens.seat_for_token(meta, token) is None
    assert tokens.is_organizer(meta, token) is False
    assert tokens.is_caster_token(meta, token) is False
    assert tokens.caster_nonce(token) is None
    assert tokens.role_for_token(meta, token) is None
    assert tournament_tokens.matches(token, tokens.token_hash("o" * 32)) is False


def test_well_formed_tokens_still_open_what_they_open() -> None:
    meta = _meta()
    assert tokens.seat_for_token(meta, "a" * 32) == "A"
    assert tokens.seat_for_token(meta, "b" * 32) == "B"
    assert tokens.is_organizer(meta, "o" * 32)
    caster = tokens.new_caster_token(meta)
    assert tokens.role_for_token(meta, caster) == tokens.CASTER
    assert tokens.role_for_token(meta, caster[:-1] + ("A" if caster[-1] != "A" else "B")) is None
    assert tournament_tokens.matches("o" * 32, meta.organizer_hash)
    assert not tournament_tokens.matches("o" * 32, "")


class _Server:
    """One fake-engine server in a thread of its own, so hypothesis can drive it with
    plain blocking sockets."""

    def __init__(self) -> None:
        self.base = ""
        self.room: dict[str, Any] = {}
        self.tournament = ""
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        async with running_server(settings(), FakeEngine()) as base:
            async with httpx.AsyncClient(base_url=base) as http:
                self.room = await create_room(http)
                made = await http.post("/api/tournaments", json={
                    "action_id": "token-shapes-cup", "name": "Token Cup", "rounds": 1,
                    "ruleset": "codeone"})
                assert made.status_code == 201, made.text
                self.tournament = made.json()["tournament"]
                player = await http.post(f"/api/tournaments/{self.tournament}/players", json={
                    "action_id": "token-shapes-player", "name": "Ana",
                    "army": "helion-c1-patrol"})
                assert player.status_code == 201, player.text
            self.base = base
            self._ready.set()
            await self._stop.wait()

    def __enter__(self) -> _Server:
        self._thread.start()
        assert self._ready.wait(30), "the server did not start"
        return self

    def __exit__(self, *_: object) -> None:
        assert self._loop is not None and self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)


@pytest.fixture(scope="module")
def server() -> Iterator[_Server]:
    with _Server() as running:
        yield running


def _hello(server: _Server, token: str) -> tuple[list[Any], int | None]:
    """The frames a first hello with ``token`` got, and the close code."""
    url = "ws" + server.base.removeprefix("http") + WS_PATH
    frames: list[Any] = []
    with connect(url, max_size=None, open_timeout=20) as ws:
        ws.send(codec.encode(Hello(PROTOCOL_VERSION, server.room["room"], token, None)))
        try:
            while True:
                frames.append(codec.decode_server(ws.recv(timeout=20)))
        except ConnectionClosed as closed:
            return frames, None if closed.rcvd is None else closed.rcvd.code


def test_the_reviews_caster_token_gets_bad_token_and_4003(server: _Server) -> None:
    frames, code = _hello(server, "c.x.\u00e9")
    assert code == CloseCode.BAD_TOKEN
    assert [(f.code) for f in frames if isinstance(f, Error)] == ["bad_token"]


@pytest.mark.slow  # generated input, about 3 s
@hypothesis_settings(max_examples=60, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(token=malformed_tokens)
def test_generated_malformed_tokens_in_a_hello_get_bad_token_and_4003(server: _Server,
                                                                      token: str) -> None:
    frames, code = _hello(server, token)
    assert code == CloseCode.BAD_TOKEN, (token, frames)
    assert [f.code for f in frames if isinstance(f, Error)] == ["bad_token"]


@pytest.mark.slow  # generated input, about 8 s
@hypothesis_settings(max_examples=40, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(token=json_malformed_tokens)
def test_generated_malformed_tokens_in_the_lobby_get_403(server: _Server, token: str) -> None:
    room = server.room["room"]
    tournament = f"/api/tournaments/{server.tournament}"
    with httpx.Client(base_url=server.base) as http:
        def post(path: str, body: dict[str, str]) -> httpx.Response:
            # json.dumps escapes a lone surrogate (\ud800), as any JSON client may send it
            return http.post(path, content=json.dumps(body),
                             headers={"content-type": "application/json"})

        joined = post(f"/api/rooms/{room}/join", {"token": token})
        casters = post(f"/api/rooms/{room}/casters", {"organizer": token})
        me = post(f"{tournament}/me", {"token": token})
        dashboard = post(f"{tournament}/dashboard", {"organizer": token})
    assert (joined.status_code, joined.json()["error"]) == (403, "bad_token")
    assert (casters.status_code, casters.json()["error"]) == (403, "bad_organizer_token")
    assert (me.status_code, me.json()["error"]) == (403, "bad_player_token")
    assert (dashboard.status_code, dashboard.json()["error"]) == (403, "bad_organizer_token")
