"""The load generators' sockets to a server on this host come from several loopback
addresses, as real clients come from many.

From one source address to one server address and port, Linux picks each new connection's
port by scanning for one no other connection to that destination holds, and it tries the
even half of the range (32768-60999 here: 14,116 ports) before the odd half. Past ~14,000
open sockets every ``connect`` walks the whole even half first: on this host a connect
then took ~0.65 ms of the kernel's CPU instead of ~0.02 (19,000 connections from one
process, timed by the thousand). The bench's 18,000 sockets crossed that line in every
restart: the last ~4,000 to reconnect cost the load core about 2.6 s, and a connect is a
system call the load process's event loop waits in, so every socket it serves waited too.
In a run at ``ca90cbe`` the baseline's last quarter of rooms took 6.7 s to come back, its
first three quarters 7.3 s; the referee's restart slowed alike. Players' clients come from
many addresses and do not meet this (a proxy in front of a node does: docs/deploy.md,
"Scaling").

Here the n-th socket comes from ``127.0.0.{1 + n % SOURCES}`` (the whole of 127/8 is the
loopback on Linux), bound with ``IP_BIND_ADDRESS_NO_PORT`` so that the port is still picked
at ``connect`` for the pair of addresses, each with its own range. A server elsewhere
(``--url`` not on the loopback) is connected to as before.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

SOURCES = 8
"""Loopback source addresses: 18,000 sockets over 8 is 2,250 each, far below a range's
even half."""
IP_BIND_ADDRESS_NO_PORT = getattr(socket, "IP_BIND_ADDRESS_NO_PORT", 24)
"""(Python has the name from 3.12 on; Linux's value.)"""


def source_address(url: str, n: int) -> str | None:
    """Where the ``n``-th socket to ``url`` comes from: None (the kernel's choice) unless
    the server is on the IPv4 loopback."""
    try:
        server = ipaddress.ip_address(urlsplit(url).hostname or "")
    except ValueError:  # a name, not an address
        return None
    return f"127.0.0.{1 + n % SOURCES}" if server.version == 4 and server.is_loopback else None


async def connected_socket(url: str, n: int, timeout_s: float) -> socket.socket | None:
    """A TCP socket to ``url``'s host and port from the ``n``-th source address, connected
    (for ``websockets``' ``connect(sock=...)``); None when ``url`` is not on the loopback
    (``connect`` opens its own)."""
    source = source_address(url, n)
    if source is None:
        return None
    parts = urlsplit(url)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as connect's own are
        sock.bind((source, 0))
        sock.setblocking(False)
        async with asyncio.timeout(timeout_s):
            await asyncio.get_running_loop().sock_connect(sock, (parts.hostname, parts.port))
    except BaseException:
        sock.close()
        raise
    return sock
