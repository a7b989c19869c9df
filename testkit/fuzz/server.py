"""The server under fuzz: ``python -m server`` with the fuzzer's settings, its log read as it
comes.

``ServerUnderTest`` starts the referee on a free port against a Redis URL (pinned to a core
with ``taskset`` when asked) and reads its stdout and stderr line by line; ``settled_log``
returns the log up to a marked request, so a check reads everything the server wrote before
it without waiting a fixed time. The multi-process tests' server (ready on uvicorn's line,
killable with ``kill -9``) is ``testkit.server_process``.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import httpx

from testkit.redis_process import free_port

REPO = Path(__file__).resolve().parents[2]
GUARD_S = 30.0
"""Against a hung server only: a batch whose answers have not all come by then is reported
as missing them. No check depends on how long anything takes."""
FUZZ_ENV = {
    "REFEREE_RATE_PER_S": "1000000", "REFEREE_RATE_BURST": "1000000",
    "REFEREE_WORK_SEAT_MS_PER_S": "0", "REFEREE_WORK_SPECTATORS_MS_PER_S": "0",
    "REFEREE_WORK_NODE_SHARE": "0",
    "REFEREE_ALLOW_FIXED_SEED": "1", "REFEREE_MAX_ARO_WINDOW_S": "86400",
    "REFEREE_GRACE_S": "86400", "REFEREE_FREEZE_GC": "0", "REFEREE_NODE_STATE_DIR": "",
    "REFEREE_STATIC_DIR": "",
}
"""The fuzzed server's settings: no pacing (rate limit, work budgets), no clock that changes
a room between two checks (ARO windows and grace periods of a day)."""
NODE_ROOM_LIMITS_OFF = {"REFEREE_NODE_ROOM_BURST": "0", "REFEREE_MAX_UNSTARTED_ROOMS": "0"}
ROOM_LIMITS_OFF = {**NODE_ROOM_LIMITS_OFF, "REFEREE_CLIENT_ROOM_BURST": "0"}
"""The websocket fuzz makes its rooms alone: no room-creation limit. The lobby fuzz keeps the
limit per client address (429 ``too_many_rooms`` is an answer it checks) and spreads most of
its requests over addresses of their own (``X-Forwarded-For`` from the trusted loopback
proxy), so that most bodies are read and checked rather than refused unread."""


class ServerUnderTest:
    """``python -m server`` on a free port against ``redis_url``, its log (stdout and stderr)
    read line by line as it comes. ``settled_log`` sends a marked request and returns the
    log up to that request's access line: everything the server wrote before it."""

    def __init__(self, redis_url: str, env: dict[str, str], core: str | None = None) -> None:
        self.redis_url = redis_url
        self.env = env
        self.core = core
        self.port = free_port()
        self.lines: list[str] = []
        self.read_to = 0
        self._marks = itertools.count(1)
        self._changed = asyncio.Event()
        self._process: asyncio.subprocess.Process | None = None
        self._pump: asyncio.Task[None] | None = None
        self._http: httpx.AsyncClient | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        env = {**os.environ, **FUZZ_ENV, **self.env, "REDIS_URL": self.redis_url,
               "REFEREE_NODE_ID": f"fuzz-{os.getpid()}-{self.port}", "PYTHONUNBUFFERED": "1"}
        argv = [sys.executable, "-m", "server", "--port", str(self.port), "--log-level", "info"]
        if self.core is not None and shutil.which("taskset"):
            argv = ["taskset", "-c", self.core, *argv]
        self._process = await asyncio.create_subprocess_exec(
            *argv, cwd=REPO, env=env, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, limit=1 << 20)
        self._pump = asyncio.create_task(self._read_log())
        started = await self._until(lambda: any("Uvicorn running on" in line
                                                for line in self.lines))
        if not started:
            raise RuntimeError("the server did not start:\n" + "\n".join(self.lines[-40:]))
        self._http = httpx.AsyncClient(base_url=self.base, timeout=GUARD_S)

    async def _read_log(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        stdout = self._process.stdout
        while True:
            try:
                line = await stdout.readline()
            except (ValueError, asyncio.LimitOverrunError):  # a line longer than 1 MiB
                line = (await stdout.read(1 << 20))[:2000] + b"...\n"
            if not line:
                break
            self.lines.append(line.decode(errors="replace").rstrip("\n"))
            self._changed.set()
        self._changed.set()

    async def _until(self, condition: Callable[[], bool]) -> bool:
        try:
            async with asyncio.timeout(GUARD_S * 2):
                while not condition():
                    if self._pump is not None and self._pump.done():
                        return condition()
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            return False
        return True

    async def settled_log(self) -> list[str]:
        """The log lines written since the last call, up to a marked request of this one."""
        assert self._http is not None
        mark = f"fuzz-mark={next(self._marks)} HTTP"
        await self._http.get(f"/healthz?{mark.split()[0]}")
        seen = await self._until(lambda: any(mark in line for line in self.lines[self.read_to:]))
        if not seen:
            raise RuntimeError(f"the server's log never showed {mark!r}")
        end = next(i for i in range(self.read_to, len(self.lines)) if mark in self.lines[i]) + 1
        lines, self.read_to = self.lines[self.read_to:end], end
        return lines

    async def stop(self) -> None:
        if self._http is not None:
            await self._http.aclose()
        if self._process is not None and self._process.returncode is None:
            self._process.terminate()
            try:
                async with asyncio.timeout(GUARD_S):
                    await self._process.wait()
            except TimeoutError:
                self._process.kill()
                await self._process.wait()
        if self._pump is not None:
            await self._pump
