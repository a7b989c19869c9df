"""What anyone may make the lobby do (issue 18, "Abuse costs little"): rooms per client
address and per node, with ``Retry-After``; bodies refused before they are read past the
limit; every body that is not one JSON object a 400 ``bad_json``, never a 500."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Route

from server.app import create_app
from server.config import Settings
from server.lobby import http as lobby_http
from server.lobby.admission import (
    ClientBuckets,
    RoomAdmission,
    TrustedProxies,
    client_address,
    client_key,
)
from server.lobby.http import DRAIN_BYTES, MAX_BODY_BYTES
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import settings

ROOM = {"ruleset": "n5"}

# --- the limits, on a clock of the test's own ------------------------------------------


def admission(**overrides: Any) -> RoomAdmission:
    return RoomAdmission(Settings(**overrides), now=0.0)  # type: ignore[arg-type]


def test_a_client_gets_its_burst_then_the_seconds_until_its_next_room() -> None:
    limits = admission(client_room_burst=2, client_rooms_per_hour=120.0)
    assert limits.admit("203.0.113.5", 0.0) is None
    assert limits.admit("203.0.113.5", 0.0) is None
    refused = limits.admit("203.0.113.5", 0.0)
    assert refused is not None
    assert (refused.status, refused.code, refused.retry_after_s) == (429, "too_many_rooms", 30)
    assert "30 s" in refused.message
    assert limits.admit("203.0.113.6", 0.0) is None, "another address has its own"
    assert limits.admit("203.0.113.5", 29.0) is not None
    assert limits.admit("203.0.113.5", 30.0) is None, "one room every 30 s"


def test_the_node_limits_rooms_from_every_address_together() -> None:
    limits = admission(node_room_burst=3, node_rooms_per_s=0.5)
    for n in range(3):
        assert limits.admit(f"198.51.100.{n}", 0.0) is None
    refused = limits.admit("198.51.100.9", 0.0)
    assert refused is not None
    assert (refused.status, refused.code, refused.retry_after_s) == (503, "lobby_busy", 2)
    assert limits.admit("198.51.100.9", 2.0) is None


def test_rooms_nobody_joined_are_capped_until_joined_or_gone_from_memory() -> None:
    limits = admission(max_unstarted_rooms=2, idle_room_s=300.0)
    limits.created("r1", 0.0)
    limits.created("r2", 100.0)
    refused = limits.admit("192.0.2.1", 100.0)
    assert refused is not None and (refused.status, refused.code) == (503, "lobby_busy")
    assert refused.retry_after_s == 200, "when the oldest leaves memory (idle_room_s)"
    limits.started("r2")  # a seat joined it
    assert limits.admit("192.0.2.1", 100.0) is None
    limits.created("r3", 100.0)
    assert limits.admit("192.0.2.2", 299.0) is not None
    assert limits.admit("192.0.2.2", 300.0) is None, "r1 left memory unjoined"
    assert limits.unstarted == 1


def test_the_address_table_is_bounded_and_forgets_the_least_recently_seen() -> None:
    table = ClientBuckets(rate_per_s=0.0, burst=1, size=3)
    for address in ("a", "b", "c"):
        assert table.take(address, 0.0) == 0.0
    assert table.take("a", 0.0) > 0, "a has used its room"
    assert table.take("d", 0.0) == 0.0
    assert len(table) == 3, "b, the least recently seen, was forgotten"
    assert table.take("a", 0.0) > 0 and table.take("c", 0.0) > 0
    assert table.take("b", 0.0) == 0.0, "forgotten: like a new address"


def test_limits_set_to_zero_are_off() -> None:
    limits = admission(client_room_burst=0, node_room_burst=0, max_unstarted_rooms=0)
    for n in range(1000):
        limits.created(f"r{n}", 0.0)
        assert limits.admit("192.0.2.1", 0.0) is None


# --- whose address a request counts against -------------------------------------------

NGINX = TrustedProxies("10.0.0.2, fd00::/8")


@pytest.mark.parametrize(("peer", "headers", "client"), [
    ("198.51.100.7", [], "198.51.100.7"),
    # an untrusted peer's forwarding headers are its own words: ignored
    ("198.51.100.7", [("x-forwarded-for", "203.0.113.5")], "198.51.100.7"),
    ("198.51.100.7", [("x-real-ip", "203.0.113.5")], "198.51.100.7"),
    # from our proxy: the right-most address it did not add itself
    ("10.0.0.2", [("x-forwarded-for", "203.0.113.5")], "203.0.113.5"),
    ("10.0.0.2", [("x-forwarded-for", "6.6.6.6, 203.0.113.5")], "203.0.113.5"),
    ("10.0.0.2", [("x-forwarded-for", "6.6.6.6"), ("x-forwarded-for", "203.0.113.5, 10.0.0.2")],
     "203.0.113.5"),
    ("10.0.0.2", [("x-real-ip", "203.0.113.8")], "203.0.113.8"),
    ("10.0.0.2", [("x-forwarded-for", "10.0.0.2")], "10.0.0.2"),
    ("10.0.0.2", [], "10.0.0.2"),
    ("fd00::1", [("x-forwarded-for", "2001:db8:1:2:3:4:5:6")], "2001:db8:1:2::/64"),
    ("10.0.0.2", [("x-forwarded-for", "not an address " * 20)], "not an address " * 4 + "not "),
    (None, [], "unknown"),
])
def test_the_client_is_the_peer_or_what_a_trusted_proxy_says(
        peer: str | None, headers: list[tuple[str, str]], client: str) -> None:
    assert client_address(peer, headers, NGINX) == client


def test_addresses_count_by_host_and_ipv6_by_its_64() -> None:
    assert client_key("2001:db8::1") == client_key("2001:db8::ffff:1") == "2001:db8::/64"
    assert client_key("2001:db8:0:1::1") != client_key("2001:db8::1")
    assert client_key("::ffff:203.0.113.5") == "203.0.113.5"
    assert "127.0.0.1" in TrustedProxies(Settings().trusted_proxies), "our nginx on loopback"
    assert "10.0.0.2" not in TrustedProxies(""), "nobody trusted"
    assert "10.0.0.2" not in TrustedProxies("not-an-address"), "a bad entry trusts nobody"


# --- through the lobby -------------------------------------------------------------------


@pytest.fixture
async def lobby() -> AsyncIterator[Starlette]:
    app = create_app(settings(trusted_proxies="10.0.0.2", client_room_burst=2,
                              client_rooms_per_hour=1.0, node_room_burst=4,
                              node_rooms_per_s=0.001), engine=FakeEngine())
    try:
        yield app
    finally:
        await app.state.registry.shutdown()


def from_peer(app: Starlette, peer: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=(peer, 40000)),
                             base_url="http://lobby")


async def test_rooms_are_limited_per_client_and_per_node_with_retry_after(
        lobby: Starlette) -> None:
    async with from_peer(lobby, "10.0.0.2") as proxy, from_peer(lobby, "198.51.100.7") as direct:
        alice = {"x-forwarded-for": "203.0.113.5"}
        for _ in range(2):
            assert (await proxy.post("/api/rooms", json=ROOM, headers=alice)).status_code == 201
        refused = await proxy.post("/api/rooms", json=ROOM, headers=alice)
        assert refused.status_code == 429
        assert refused.json()["error"] == "too_many_rooms"
        assert int(refused.headers["retry-after"]) == refused.json()["retry_after_s"] >= 1800
        bob = {"x-forwarded-for": "203.0.113.6"}
        assert (await proxy.post("/api/rooms", json=ROOM, headers=bob)).status_code == 201
        # a client that names someone else is believed only from a trusted proxy
        forged = {"x-forwarded-for": "203.0.113.77"}
        assert (await direct.post("/api/rooms", json=ROOM, headers=forged)).status_code == 201
        node = await direct.post("/api/rooms", json=ROOM, headers=forged)
        assert node.status_code == 503 and node.json()["error"] == "lobby_busy"
        assert int(node.headers["retry-after"]) >= 1
        other = await proxy.post("/api/rooms", json=ROOM, headers={"x-forwarded-for": "192.0.2.9"})
        assert other.status_code == 503, "the node's own limit holds for every address"


async def test_a_seat_joining_frees_its_place_among_the_unstarted_rooms() -> None:
    app_settings = settings(max_unstarted_rooms=1)
    async with running_server(app_settings, FakeEngine()) as base, \
            httpx.AsyncClient(base_url=base) as http:
        first = await http.post("/api/rooms", json=ROOM)
        assert first.status_code == 201
        refused = await http.post("/api/rooms", json=ROOM)
        assert refused.status_code == 503 and refused.json()["error"] == "lobby_busy"
        room = first.json()
        spectator = await Client.connect(base, room["room"])
        assert (await http.post("/api/rooms", json=ROOM)).status_code == 503, \
            "a spectator starts nothing"
        seat = await Client.connect(base, room["room"], room["seats"]["A"]["token"])
        assert (await http.post("/api/rooms", json=ROOM)).status_code == 201
        await seat.close()
        await spectator.close()


# --- bodies ------------------------------------------------------------------------------


async def raw_exchange(base: str, head: bytes, body: list[bytes]
                       ) -> tuple[int, dict[str, Any], bool]:
    """Send a request's head and some of its body over a plain socket, then read the
    answer without sending the rest: only a server that stops reading answers. Also
    whether the server then closed the connection."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(head)
        for piece in body:
            writer.write(piece)
        await writer.drain()
        status_line, *header_lines = (await reader.readuntil(b"\r\n\r\n")).decode().split("\r\n")
        length = next(int(line.split(":")[1]) for line in header_lines
                      if line.lower().startswith("content-length"))
        data = await reader.readexactly(length)
        try:
            answer = json.loads(data)
        except ValueError:  # (uvicorn's own refusal of a malformed request: plain text)
            answer = {"parser": data.decode()}
        try:
            closed = await asyncio.wait_for(reader.read(1), 5) == b""
        except TimeoutError:  # not a wait for an event: a server that keeps it open
            closed = False
        except ConnectionResetError:
            closed = True
        return int(status_line.split()[1]), answer, closed
    finally:
        writer.close()


GUARD_S = 60.0
"""Against a hung test only: a refusal waits for no timer."""


def head(*lines: str) -> bytes:
    return ("POST /api/rooms HTTP/1.1\r\nHost: lobby\r\nContent-Type: application/json\r\n"
            + "".join(f"{line}\r\n" for line in lines) + "\r\n").encode()


def chunk(data: bytes) -> bytes:
    return b"%x\r\n" % len(data) + data + b"\r\n"


async def test_a_body_is_refused_before_it_is_read_past_the_limit(
        fake_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Never the body's time limit: each refusal below comes without it.
    monkeypatch.setattr(lobby_http, "BODY_TIMEOUT_S", 3600.0)
    # Declared too large: refused before any of it is sent, and the connection closed.
    async with asyncio.timeout(GUARD_S):
        status, answer, closed = await raw_exchange(
            fake_server, head("Content-Length: 100000000"), [])
    assert (status, answer["error"], closed) == (413, "body_too_large", True)
    # Chunked, no length: refused once past the limit and DRAIN_BYTES more were dropped,
    # while the client is still sending (no last chunk ever comes). The piece of the body
    # that passes the limit may hold much more than the limit (the server's socket reads cut
    # what arrived as they go), so twice DRAIN_BYTES follow the limit.
    past = [chunk(b"x" * 4096) for _ in range((MAX_BODY_BYTES + 2 * DRAIN_BYTES) // 4096 + 1)]
    async with asyncio.timeout(GUARD_S):
        status, answer, closed = await raw_exchange(
            fake_server, head("Transfer-Encoding: chunked"), [chunk(b'{"pad": "'), *past])
    assert (status, answer["error"], closed) == (413, "body_too_large", True)


async def test_a_lying_content_length_reads_only_what_it_declared(fake_server: str) -> None:
    # The first 30 bytes are the body, cut short (bad_json); the rest is no body (a server
    # that read it would answer 413): a next request's start, which the HTTP parser
    # (httptools) finds malformed and refuses with 400 at once, before the app's answer.
    body = json.dumps({"ruleset": "n5", "pad": "x" * 200_000}).encode()
    status, answer, _ = await raw_exchange(fake_server, head("Content-Length: 30"), [body])
    assert status == 400
    assert (answer.get("error") == "bad_json"
            or answer == {"parser": "Invalid HTTP request received."}), answer


async def test_a_body_that_never_arrives_whole_is_refused_after_its_time(
        fake_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lobby_http, "BODY_TIMEOUT_S", 0.05)
    status, answer, closed = await raw_exchange(fake_server, head("Content-Length: 1000"),
                                                [b'{"rul'])
    assert (status, answer["error"], closed) == (408, "body_timeout", True)


def nested(depth: int, opener: str = "[", closer: str = "]") -> str:
    return opener * depth + "1" + closer * depth


NOT_JSON_OBJECTS = [
    b"", b"{", b"[1, 2]", b"\xff\xfe{}", b'"text"', b"null",
    b'{"aro_window_s": NaN}', b'{"aro_window_s": Infinity}', b'{"aro_window_s": 1e999}',
    b'{"seed": ' + b"9" * 5000 + b"}",  # more digits than Python reads
    *[b'{"table": ' + nested(depth).encode() + b"}" for depth in (1000, 20_000)],
    *[b'{"token": ' + nested(depth, '{"a":', "}").encode() + b"}" for depth in (1000, 10_000)],
    nested(30_000).encode(),
]
"""Bodies that are not one JSON object: ``bad_json``."""
HUGE_INTEGERS = [b'{"aro_window_s": 1' + b"0" * 400 + b"}",
                 b'{"spectator_delay_s": -1' + b"0" * 400 + b"}",
                 b'{"seed": 1' + b"0" * 400 + b"}"]
"""JSON integers beyond a double (found by bench.fuzz): ``bad_field``."""
DEEP_OBJECTS = [
    *[b'{"table": ' + nested(depth).encode() + b"}" for depth in (100, 900)],
    *[b'{"token": ' + nested(depth, '{"a":', "}").encode() + b"}" for depth in (100, 900)],
]
"""JSON objects whose fields are nested deep, which the fields' checks refuse."""


async def test_every_route_answers_bad_bodies_without_a_500() -> None:
    """Every route of the app, whatever it does with a body: those that read JSON say
    ``bad_json``, the others ignore it; none fails (500)."""
    app = create_app(settings(client_room_burst=0, node_room_burst=0), engine=FakeEngine())
    try:
        async with from_peer(app, "198.51.100.7") as http:
            room = (await http.post("/api/rooms", json=ROOM)).json()["room"]
            reads_json = {"/api/rooms", f"/api/rooms/{room}/join"}
            for route in app.routes:
                if not isinstance(route, Route):
                    continue
                path = route.path.replace("{room_id}", room)
                for method in sorted(route.methods or ()):
                    for body in NOT_JSON_OBJECTS + DEEP_OBJECTS + HUGE_INTEGERS:
                        response = await http.request(method, path, content=body)
                        assert response.status_code != 500, (method, path, body[:40])
                        if method != "POST" or path not in reads_json:
                            continue
                        assert response.status_code == 400, (path, body[:40], response.text)
                        expected = {"bad_json"} if body in NOT_JSON_OBJECTS else {
                            "bad_table", "bad_field"}
                        assert response.json()["error"] in expected, (path, body[:40])
    finally:
        await app.state.registry.shutdown()
