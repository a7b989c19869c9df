"""The embedded Redis of ``deploy/bin/serve``: started, reachable, outside the terminal's
process group, stopped by the server, and started again by itself when it dies."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
import redis

from protocol.messages import Accepted, Events, Snapshot
from server.node.embedded_redis import DataFolderInUse, EmbeddedRedis
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import free_port
from testkit.wsclient import Client
from tests.cluster.game import (
    ACTIVATE,
    MOVE,
    assert_stored_exactly_once_in_order,
    command_once_storage_is_back,
    create_room,
    received_events,
)

pytestmark = pytest.mark.redis

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # an embedded redis-server
def test_it_serves_on_its_unix_socket_in_its_own_process_group(tmp_path: Path) -> None:
    embedded = EmbeddedRedis(tmp_path / "redis")
    url = embedded.start()
    try:
        assert url == f"unix://{tmp_path.resolve() / 'redis' / 'redis.sock'}"
        client = redis.Redis.from_url(url)
        assert client.ping()
        client.close()
        process = embedded._process
        assert process is not None
        # A Ctrl-C (SIGINT to the terminal's foreground group) must not reach it before the
        # server has released its leases through it.
        assert os.getpgid(process.pid) != os.getpgid(0)
    finally:
        embedded.stop()
    assert process.returncode is not None  # stopped, and waited for
    embedded.stop()  # a second stop is harmless


@pytest.mark.slow  # kill drill
def test_a_killed_redis_is_started_again_with_its_data_and_clients_reconnect(
        tmp_path: Path) -> None:
    """kill -9 of the embedded Redis: the supervisor starts it again on the same socket and
    data folder, and an acknowledged write (appendfsync always) is there."""
    embedded = EmbeddedRedis(tmp_path / "redis")
    downs: list[str] = []
    embedded.on_down = downs.append
    url = embedded.start()
    client = redis.Redis.from_url(url)
    try:
        assert client.set("acknowledged", b"before the crash")
        first = embedded.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)

        second = embedded.wait_restarted(first, timeout_s=60)  # a guard against a hang only
        assert second is not None and second != first
        assert downs == [f"embedded Redis (pid {first}) was killed by SIGKILL"]
        assert embedded.restarts == 1
        # The same client (redis-py retries a call on a new connection once its old one
        # fails) reads the acknowledged write back from the replayed append-only file.
        assert client.get("acknowledged") == b"before the crash"
        assert os.getpgid(second) != os.getpgid(0)
    finally:
        client.close()
        embedded.stop()
    assert embedded.pid is None
    with pytest.raises(ProcessLookupError):
        os.kill(second, 0)  # stopped for good: not restarted after stop()


@pytest.mark.slow  # kill drill
def test_a_redis_that_cannot_start_again_is_retried_after_longer_pauses(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A Redis that dies and whose restart fails (here: its data folder made unusable) is
    not given up on: each failed start is logged, and once the cause is gone it runs."""
    embedded = EmbeddedRedis(tmp_path / "redis")
    embedded.start()
    try:
        first = embedded.pid
        assert first is not None
        # A file where Redis's append-only directory/file goes: it cannot open it.
        blocker = _append_only_path(embedded.data_dir)
        aside = blocker.with_name(blocker.name + ".aside")
        blocker.rename(aside)
        blocker.write_text("not an append-only file\x00")
        with caplog.at_level(logging.ERROR, logger="server.embedded_redis"):
            os.kill(first, signal.SIGKILL)
            _until(lambda: embedded.failed_starts >= 1)
        assert any("did not start again" in record.getMessage() and "before it was ready"
                   in record.getMessage() for record in caplog.records), caplog.text
        assert embedded.restarts == 0
        blocker.unlink()
        aside.rename(blocker)
        second = embedded.wait_restarted(first, timeout_s=60)
        assert second is not None
        assert redis.Redis.from_url(embedded.url).ping()
    finally:
        embedded.stop()


@pytest.mark.slow  # an embedded redis-server
def test_a_second_embedded_redis_on_the_same_folder_is_refused_while_the_first_runs(
        tmp_path: Path) -> None:
    """The second start stops with who holds the folder and what to do, and the first's
    Redis keeps its socket; the lock outlives a restart of the first's Redis, and once the
    first is stopped the folder is free again."""
    first = EmbeddedRedis(tmp_path / "redis")
    url = first.start()
    client = redis.Redis.from_url(url)
    try:
        assert client.set("acknowledged", b"by the first")
        redis_pid = first.pid
        second = EmbeddedRedis(tmp_path / "redis")
        with pytest.raises(DataFolderInUse) as refused:
            second.start()
        message = str(refused.value)
        assert f"held by the embedded Redis of another server (server pid {os.getpid()}, " \
               f"redis-server pid {redis_pid}); stop that server first" in message
        assert f"REDIS_URL={url} REFEREE_PORT=<another port> bash deploy/bin/serve" in message
        second.stop()  # what the run command does on its way out: harmless
        assert client.info("server")["process_id"] == redis_pid  # its socket untouched

        # Restarted by the supervisor, the first's Redis still holds the folder.
        assert redis_pid is not None
        os.kill(redis_pid, signal.SIGKILL)
        restarted = first.wait_restarted(redis_pid, timeout_s=60)  # a guard only
        assert restarted is not None
        with pytest.raises(DataFolderInUse, match=f"redis-server pid {restarted}\\)"):
            EmbeddedRedis(tmp_path / "redis").start()
    finally:
        client.close()
        first.stop()
    third = EmbeddedRedis(tmp_path / "redis")
    client = redis.Redis.from_url(third.start())
    try:
        assert client.get("acknowledged") == b"by the first"
    finally:
        client.close()
        third.stop()


HOLD_FOLDER = """
import sys
from pathlib import Path
from server.node.embedded_redis import EmbeddedRedis
embedded = EmbeddedRedis(Path(sys.argv[1]))
embedded.start()
print(embedded.pid, flush=True)
sys.stdin.read()
"""


@pytest.mark.slow  # kill drill
def test_a_server_killed_with_kill_9_never_blocks_its_restart_in_place(tmp_path: Path) -> None:
    """A server process (a real one, holding an embedded Redis) refuses a second start;
    kill -9 of it: the kernel drops its lock, and the Redis it left exits (SIGTERM from the
    kernel), so a new start on the folder succeeds with the data."""
    data_dir = tmp_path / "redis"
    server = subprocess.Popen([sys.executable, "-c", HOLD_FOLDER, str(data_dir)], cwd=REPO,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        redis_pid = int(server.stdout.readline())
        client = redis.Redis.from_url(f"unix://{data_dir.resolve() / 'redis.sock'}")
        assert client.set("acknowledged", b"before the kill")
        client.close()
        with pytest.raises(DataFolderInUse, match=f"server pid {server.pid}, redis-server "
                                                  f"pid {redis_pid}"):
            EmbeddedRedis(data_dir).start()
    finally:
        server.kill()
        server.wait()
    restarted = EmbeddedRedis(data_dir)
    client = redis.Redis.from_url(restarted.start())  # waits for the exiting orphan
    try:
        assert restarted.pid != redis_pid
        assert client.get("acknowledged") == b"before the kill"
    finally:
        client.close()
        restarted.stop()


ORPHAN = """
import fcntl, json, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
os.write(fd, json.dumps({"server_pid": int(sys.argv[2]), "redis_pid": os.getpid()}).encode())
print("holding", flush=True)
sys.stdin.read()
"""


@pytest.mark.slow  # processes of its own
def test_an_orphaned_redis_still_holding_the_folder_is_named(tmp_path: Path) -> None:
    """A process holding the folder's lock whose recorded server is gone (an orphaned
    Redis that does not exit): the start waits for it, then refuses naming it; once it is
    gone the start succeeds."""
    data_dir = tmp_path / "redis"
    data_dir.mkdir()
    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid no process has now
    orphan = subprocess.Popen([sys.executable, "-c", ORPHAN, str(data_dir / "embedded-redis.lock"),
                               str(gone.pid)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert orphan.stdout is not None and orphan.stdout.readline() == "holding\n"
        with pytest.raises(DataFolderInUse) as refused:
            EmbeddedRedis(data_dir, orphan_wait_s=0.0).start()
        assert f"held by redis-server pid {orphan.pid}, left running by server pid " \
               f"{gone.pid}, which is gone; stop that Redis (kill {orphan.pid}) first" \
               in str(refused.value)
    finally:
        assert orphan.stdin is not None
        orphan.stdin.close()
        orphan.wait()
    embedded = EmbeddedRedis(data_dir, orphan_wait_s=0.0)
    client = redis.Redis.from_url(embedded.start())
    try:
        assert client.ping()
    finally:
        client.close()
        embedded.stop()


def _append_only_path(data_dir: Path) -> Path:
    """Redis 7's append-only directory, or 6.2's single append-only file."""
    directory = data_dir / "appendonlydir"
    return directory if directory.exists() else data_dir / "appendonly.aof"


def _until(condition: Callable[[], bool], timeout_s: float = 60.0) -> None:
    """Wait for a condition a background thread brings about (bounded: a guard only)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.01)


class ServerLog:
    """A ``python -m server`` process's output, line by line, waited on by content."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.lines: list[str] = []
        self._stream = stream
        self._grew = asyncio.Condition()
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while line := await self._stream.readline():
            async with self._grew:
                self.lines.append(line.decode(errors="replace").rstrip())
                self._grew.notify_all()
        async with self._grew:
            self.lines.append("<end of output>")
            self._grew.notify_all()

    async def line_with(self, text: str, after: int = 0) -> int:
        """The index of the first line from ``after`` on that contains ``text``."""
        async with asyncio.timeout(GUARD_S), self._grew:  # the timeout: a guard only
            while True:
                for index in range(after, len(self.lines)):
                    if text in self.lines[index]:
                        return index
                assert "<end of output>" not in self.lines, "\n".join(self.lines)
                await self._grew.wait()

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


GUARD_S = 90.0


def children(pid: int) -> list[int]:
    return [int(child) for task in Path(f"/proc/{pid}/task").iterdir()
            for child in (task / "children").read_text().split()]


@pytest.mark.slow
async def test_the_run_command_survives_a_kill_9_of_its_redis(tmp_path: Path) -> None:
    """``python -m server`` with its embedded Redis (what ``deploy/bin/serve`` runs):
    ``kill -9`` of the redis-server; /readyz goes 503 at once and 200 by itself once Redis
    is back with its data, and the game goes on in the same room without a node restart,
    every accepted command stored exactly once."""
    env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    env.update(REFEREE_STORAGE="auto", REFEREE_REDIS_DIR=str(tmp_path / "redis"),
               REFEREE_NODE_STATE_DIR=str(tmp_path), REFEREE_FREEZE_GC="0",
               REFEREE_STATIC_DIR="")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server", "--port", str(port), "--log-level", "info",
        cwd=REPO, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    assert server.stdout is not None
    log = ServerLog(server.stdout)
    store = RedisRoomStore.from_url(f"unix://{tmp_path.resolve() / 'redis' / 'redis.sock'}")
    try:
        await log.line_with("Uvicorn running on")
        room = await create_room(store, aro_window_s=600.0)
        a = await Client.connect(base, room.room_id, room.token_a)
        b = await Client.connect(base, room.room_id, room.token_b)
        await a.until(Snapshot)
        await b.until(Snapshot)
        first = await a.command(ACTIVATE)
        assert isinstance(first, Accepted)
        async with httpx.AsyncClient(base_url=base) as http:
            assert (await http.get("/readyz")).status_code == 200
            [redis_pid] = children(server.pid)

            os.kill(redis_pid, signal.SIGKILL)
            down = await log.line_with("readiness: not ready")
            assert f"embedded Redis (pid {redis_pid}) was killed by SIGKILL" in log.lines[down]
            await log.line_with("embedded Redis restarted")
            back = await log.line_with("readiness: the room store writes again", after=down)
            ready = await http.get("/readyz")
            assert ready.status_code == 200, (ready.text, log.lines[back:])
            assert children(server.pid) != [redis_pid]

        second = await command_once_storage_is_back(a, MOVE, "move-after-redis-restart")
        assert second.version > first.version
        await b.until(Events, lambda m: m.first + len(m.events) - 1 >= second.version)
        seen_by_a = received_events(a)
        assert max(seen_by_a) == second.version == max(received_events(b))
        await assert_stored_exactly_once_in_order(store, room, seen_by_a,
                                                  [first.version, second.version])
    finally:
        await store.close()
        if server.returncode is None:
            server.terminate()
            await server.wait()
        await log.close()
    # SIGTERM: the graceful shutdown, then the embedded Redis stopped, exit 128 + 15.
    assert server.returncode == 128 + signal.SIGTERM, "\n".join(log.lines)
