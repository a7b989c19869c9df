"""A real redis-server for tests: own port, own data directory, append-only file on.

``start`` returns once Redis itself logs "Ready to accept connections" (read from its
stdout), so no test polls or sleeps. ``kill`` is a ``kill -9``; ``start`` again reopens the
same data directory, replaying the append-only file.
"""

from __future__ import annotations

import collections
import os
import random
import shutil
import signal
import socket
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO

READY = b"ready to accept connections"  # 6.2 and 7.x, tcp and unix


def redis_binary() -> str:
    """/usr/bin/redis-server, else whatever redis-server is on PATH (deploy/bin/setup system
    installs the Debian package)."""
    for candidate in ("/usr/bin/redis-server", shutil.which("redis-server")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise RuntimeError("redis-server is not installed; run deploy/bin/setup system")


EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
LOWEST_PORT = 10_000
_handed_out: set[int] = set()


def free_port() -> int:
    """A loopback port free now, for a server a test starts (Redis, a node, a cluster bus).

    Not one the kernel picks (binding port 0): those are its ephemeral ports, which it also
    gives as source ports to outgoing connections, so between this check and the server's
    own bind a client's connection could take it ("Address already in use": seen with a
    cluster's bus port while the browser tests ran beside pytest). A random port below the
    ephemeral range instead, bindable now and not handed out before in this process, from
    this pytest worker's own share of that range (``worker_ports``)."""
    low = _ephemeral_low()
    if low <= LOWEST_PORT + 1_000:  # an unusual range: let the kernel choose
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            return int(sock.getsockname()[1])
    ports = worker_ports(LOWEST_PORT, low)
    while True:
        port = random.choice(ports)
        if port in _handed_out:
            continue
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        _handed_out.add(port)
        return port


def worker_ports(low: int, high: int) -> range:
    """This process's share of the ports from ``low`` to ``high``: under pytest-xdist each
    worker (``PYTEST_XDIST_WORKER`` "gw0", "gw1", ...) takes its own slice, so two workers
    never hand out the same port (once, a node of one worker found its port taken by the
    other's in the moment before it bound it); otherwise all of them."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if count < 2 or not worker.startswith("gw") or not worker[2:].isdigit():
        return range(low, high)
    size = (high - low) // count
    start = low + int(worker[2:]) * size
    return range(start, start + size)


def _ephemeral_low() -> int:
    try:
        return int(EPHEMERAL_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


STOP_WAIT_S = 10.0
"""How long ``stop`` lets redis-server shut down (flush its append-only file) before
killing it."""


LOG_LINES_KEPT = 40
"""Lines of a server's log kept for a failure's message (``RedisProcess.log_tail``)."""


def _drain(stream: IO[bytes], kept: collections.deque[str]) -> None:
    for line in stream:
        kept.append(line.decode(errors="replace").rstrip())


class RedisProcess:
    def __init__(self, data_dir: Path, port: int | None = None,
                 extra_args: Sequence[str] = (), binary: str | None = None) -> None:
        """``extra_args``: more redis-server options (``--unixsocket``, ``--requirepass``);
        ``binary``: another server than ``redis_binary()`` (a valkey-server)."""
        self.data_dir = data_dir
        self.port = port or free_port()
        self.extra_args = list(extra_args)
        self.binary = binary
        self.process: subprocess.Popen[bytes] | None = None
        self._log: collections.deque[str] = collections.deque(maxlen=LOG_LINES_KEPT)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [self.binary or redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1",
             "--dir", str(self.data_dir), "--appendonly", "yes", "--appendfsync", "always",
             "--save", "", "--logfile", "", "--daemonize", "no", *self.extra_args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )
        assert self.process.stdout is not None
        seen = b""
        for line in self.process.stdout:
            seen += line
            if READY in line.lower():
                break
        else:
            raise RuntimeError(f"redis-server did not start:\n{seen.decode(errors='replace')}")
        # Keep draining its log so a full pipe never blocks Redis; its last lines are kept
        # for a failure's message (``log_tail``).
        self._log = collections.deque(seen.decode(errors="replace").splitlines(),
                                      maxlen=LOG_LINES_KEPT)
        threading.Thread(target=_drain, args=(self.process.stdout, self._log),
                         daemon=True).start()

    def log_tail(self) -> list[str]:
        """The last lines the server logged (``LOG_LINES_KEPT``), oldest first."""
        return list(self._log)

    def kill(self) -> None:
        """``kill -9``: no shutdown save; only the append-only file survives."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=STOP_WAIT_S)
            except subprocess.TimeoutExpired:  # never hang a test's teardown on it
                self.process.kill()
                self.process.wait()
            self.process = None
