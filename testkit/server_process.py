"""A ``python -m server`` process for multi-process tests: started against a Redis URL on
its own port, ready once uvicorn logs that it is running (read from its log, no polling),
and killable with ``kill -9``."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

from server.lobby.tokens import new_room_id
from testkit.redis_process import free_port

REPO = Path(__file__).resolve().parents[1]
READY = b"Uvicorn running on"
STOP_GUARD_S = 60.0
# Short leases keep takeovers (and a restart under a new node id) quick in tests.
SHORT_LEASES = {"REFEREE_LEASE_S": "1.0", "REFEREE_LEASE_RENEW_S": "0.2",
                "REFEREE_RELAY_JOIN_TIMEOUT_S": "5"}
METRICS_TOKEN = "test-metrics"
"""These nodes' ``REFEREE_METRICS_TOKEN``: /metrics on their game port with it."""


class ServerProcess:
    module = "server"
    """What ``python -m`` runs: the server, or a test's launcher that wraps it."""

    def __init__(self, redis_url: str, port: int | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.redis_url = redis_url
        self.port = port or free_port()
        self.env = env or {}
        self.output = b""  # the log of the processes run so far (printed by failing tests)
        self.process: asyncio.subprocess.Process | None = None
        self._drain: asyncio.Task[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        env = {**os.environ, "REDIS_URL": self.redis_url, "REFEREE_FREEZE_GC": "0",
               "REFEREE_STATIC_DIR": "", "REFEREE_METRICS_TOKEN": METRICS_TOKEN,
               **SHORT_LEASES, **self.env}
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", self.module, "--port", str(self.port), "--log-level", "info",
            cwd=REPO, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        assert self.process.stdout is not None
        seen = b""
        async with asyncio.timeout(60):  # against a hung test only
            while READY not in seen:
                line = await self.process.stdout.readline()
                if not line:
                    raise RuntimeError(f"server did not start:\n{seen.decode(errors='replace')}")
                seen += line
        self._drain = asyncio.create_task(self.process.stdout.read())

    def pause(self) -> None:
        """SIGSTOP: the process keeps its sockets but runs nothing (a long GC or VM pause)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    async def kill(self) -> None:
        """``kill -9``: no shutdown of any kind."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            await self.process.wait()
            self.process = None
        if self._drain is not None:
            self.output += await self._drain
            self._drain = None

    async def stop(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGCONT)  # in case a test paused it
            self.process.terminate()
            try:
                async with asyncio.timeout(STOP_GUARD_S):  # against a hung shutdown only
                    await self.process.wait()
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
                raise AssertionError(f"the node on port {self.port} ignored SIGTERM") from None
            finally:
                self.process = None
        if self._drain is not None:
            self.output += await self._drain
            self._drain = None


Node = TypeVar("Node", bound=ServerProcess)


@asynccontextmanager
async def two_nodes(redis_url: str, node: type[Node], prefix: str = "",
                    env: dict[str, str] | None = None) -> AsyncIterator[tuple[Node, Node]]:
    """Two started nodes of one cluster, ``<prefix>one-<tag>`` and ``<prefix>two-<tag>``
    (node ids unique to the test: liveness keys outlive a node); stopped after, their logs
    printed (shown by pytest when the test failed)."""
    tag = new_room_id()[:6]
    one = node(redis_url, env={"REFEREE_NODE_ID": f"{prefix}one-{tag}", **(env or {})})
    two = node(redis_url, env={"REFEREE_NODE_ID": f"{prefix}two-{tag}", **(env or {})})
    await one.start()
    await two.start()
    try:
        yield one, two
    finally:
        await one.stop()
        await two.stop()
        for each in (one, two):
            print(f"--- {each.env['REFEREE_NODE_ID']} ---\n{each.output.decode(errors='replace')}")
