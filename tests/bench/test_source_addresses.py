"""The load generators' sockets to a server on the loopback come from several loopback
addresses (``bench.source_addresses``), so no pair of addresses nears the kernel's port
range."""

from __future__ import annotations

import asyncio
import socket

from bench.source_addresses import SOURCES, connected_socket, source_address


def test_sockets_to_the_loopback_take_the_source_addresses_in_turn() -> None:
    url = "ws://127.0.0.1:8000/ws?room=r"
    sources = [source_address(url, n) for n in range(2 * SOURCES)]
    assert sources[:SOURCES] == [f"127.0.0.{1 + n}" for n in range(SOURCES)]
    assert sources[SOURCES:] == sources[:SOURCES]


def test_a_server_elsewhere_or_by_name_gets_the_kernels_choice() -> None:
    assert source_address("ws://10.0.0.5:8000/ws", 3) is None
    assert source_address("ws://localhost:8000/ws", 3) is None
    assert source_address("ws://[::1]:8000/ws", 3) is None


async def test_a_connected_socket_comes_from_its_source_address() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    loop = asyncio.get_running_loop()
    opened = []
    try:
        for n in (0, 1, SOURCES + 1):
            sock = await connected_socket(f"ws://127.0.0.1:{port}/ws", n, timeout_s=5)
            assert sock is not None
            opened.append(sock)
            accepted, peer = await loop.sock_accept(listener)
            accepted.close()
            assert peer[0] == source_address(f"ws://127.0.0.1:{port}/ws", n)
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        assert [s.getsockname()[0] for s in opened] == ["127.0.0.1", "127.0.0.2", "127.0.0.2"]
        assert await connected_socket("ws://10.0.0.5:1/ws", 0, timeout_s=5) is None
    finally:
        for sock in opened:
            sock.close()
        listener.close()
