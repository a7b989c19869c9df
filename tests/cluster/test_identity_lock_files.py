"""The node id's local lock files (``server.cluster.identity``): a process that let go of
its id cleanly removes its file, so they do not pile up in the state directory; one that
died keeps it for its successor; and a process that opened a file just before it was
removed never counts as holding it."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import redis

from server.cluster import identity
from server.cluster.identity import NodeIdentity, NodeIdInUse, establish, instance_key
from server.cluster.lease import RedisLeases
from server.config import Settings
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import free_port
from tests.node.test_embedded_redis import ServerLog

pytestmark = pytest.mark.redis

REPO = Path(__file__).resolve().parents[2]
LOCK_MS = 60_000  # a lock that would hold a waiting start for a minute


@pytest.fixture
def made(store: RedisRoomStore, sync_client: redis.Redis) -> Callable[..., NodeIdentity]:
    def make(state_dir: Path, node_id: str = "") -> NodeIdentity:
        config = Settings(node_id=node_id, node_state_dir=str(state_dir))
        return establish(config, store.url, sync_client, LOCK_MS)

    return make


def lock_files(state_dir: Path) -> list[Path]:
    return sorted(state_dir.glob("node-*.lock"))


class NoWaiting:
    """``identity.time`` for a claim that must not wait for a lock to lapse."""

    @staticmethod
    def monotonic() -> float:
        return 1000.0

    @staticmethod
    def sleep(seconds: float) -> None:
        raise AssertionError("the claim waited for a lock to expire")


def no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(identity, "time", NoWaiting)


@pytest.mark.parametrize("configured", ["", "configured-clean"], ids=["kept", "configured"])
async def test_a_clean_shutdown_removes_the_lock_file_and_the_next_start_takes_the_id(
        made: Callable[..., NodeIdentity], store: RedisRoomStore, sync_client: redis.Redis,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, configured: str) -> None:
    first = made(tmp_path, configured)
    [lock_file] = lock_files(tmp_path)
    assert first.instance in lock_file.read_text()
    # The node's shutdown (ClusterNode.close) releases its instance lock, then the run
    # command lets go of the id.
    await RedisLeases(store.client, first.node_id, LOCK_MS).release_held([], first.instance)
    first.close()
    assert lock_files(tmp_path) == []
    assert (tmp_path / "node-id").exists() == (not configured), "a kept id stays kept"

    no_waiting(monkeypatch)
    second = made(tmp_path, configured)
    try:
        assert second.node_id == first.node_id
        assert sync_client.get(instance_key(second.node_id)) == second.instance.encode()
        assert lock_files(tmp_path) == [lock_file]
    finally:
        second.close()
    assert lock_files(tmp_path) == [lock_file], "its lock is still in Redis: file kept"


def test_a_process_whose_lock_is_still_in_redis_keeps_its_file_for_its_successor(
        made: Callable[..., NodeIdentity], sync_client: redis.Redis, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Its release did not happen (Redis unreachable at shutdown, or no shutdown at all):
    the file keeps the token, and the next process takes the id over at once."""
    first = made(tmp_path, "unreleased")
    first.close()
    [lock_file] = lock_files(tmp_path)
    assert first.instance in lock_file.read_text()
    no_waiting(monkeypatch)
    second = made(tmp_path, "unreleased")
    try:
        assert sync_client.get(instance_key("unreleased")) == second.instance.encode()
    finally:
        second.close()


HOLD_ID = """
import sys
import redis
from server.cluster.identity import establish
from server.config import Settings
config = Settings(node_id="killed", node_state_dir=sys.argv[1])
established = establish(config, sys.argv[2], redis.Redis.from_url(sys.argv[2]), 60_000)
print(established.instance, flush=True)
sys.stdin.read()
"""


@pytest.mark.slow  # kill drill
def test_a_killed_process_leaves_its_file_and_its_restart_takes_the_id_at_once(
        made: Callable[..., NodeIdentity], store: RedisRoomStore, sync_client: redis.Redis,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    node = subprocess.Popen([sys.executable, "-c", HOLD_ID, str(tmp_path), store.url],
                            cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert node.stdout is not None
        killed_instance = node.stdout.readline().strip()
        with pytest.raises(SystemExit, match="in use by a live process"):
            made(tmp_path, "killed")
    finally:
        os.kill(node.pid, signal.SIGKILL)
        node.wait()
    [lock_file] = lock_files(tmp_path)
    assert killed_instance in lock_file.read_text()
    no_waiting(monkeypatch)
    restarted = made(tmp_path, "killed")
    try:
        assert sync_client.get(instance_key("killed")) == restarted.instance.encode()
    finally:
        restarted.close()


async def test_a_file_removed_after_a_process_opened_it_is_not_taken_as_the_lock(
        made: Callable[..., NodeIdentity], store: RedisRoomStore, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The race of a removal: a process opens the file, its holder removes it and lets go,
    a third process makes a new file at the path and holds it. The first process then gets
    the flock on the removed file; it must see that and find the id in use."""
    first = made(tmp_path, "raced")
    [lock_file] = lock_files(tmp_path)
    opened_before = os.open(lock_file, os.O_RDWR)
    await RedisLeases(store.client, "raced", LOCK_MS).release_held([], first.instance)
    first.close()
    third = made(tmp_path, "raced")
    opens: list[Path] = []
    real_open = identity._open_lock_file

    def late(path: Path) -> int:
        opens.append(path)
        return opened_before if len(opens) == 1 else real_open(path)

    monkeypatch.setattr(identity, "_open_lock_file", late)
    try:
        with pytest.raises(NodeIdInUse, match=f"process {os.getpid()} holds {lock_file}"):
            identity._local_lock(lock_file)
        assert opens == [lock_file, lock_file], "it opened the path again"
    finally:
        third.close()


@pytest.mark.slow
async def test_the_run_command_leaves_no_lock_file_after_a_sigterm(tmp_path: Path) -> None:
    """``python -m server`` (embedded Redis, a kept id) holds its id's lock file while it
    runs; its graceful shutdown releases the id in Redis and removes the file."""
    env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    env.update(REFEREE_STORAGE="auto", REFEREE_REDIS_DIR=str(tmp_path / "redis"),
               REFEREE_NODE_STATE_DIR=str(tmp_path), REFEREE_FREEZE_GC="0",
               REFEREE_STATIC_DIR="")
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server", "--port", str(free_port()), cwd=REPO, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    assert server.stdout is not None
    log = ServerLog(server.stdout)
    try:
        await log.line_with("Uvicorn running on")
        [lock_file] = lock_files(tmp_path)
        assert f'"pid": {server.pid}' in lock_file.read_text()
        server.terminate()
        await log.line_with("Finished server process")
        assert await server.wait() == 128 + signal.SIGTERM, "\n".join(log.lines)
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
        await log.close()
    assert lock_files(tmp_path) == []
    assert (tmp_path / "node-id").exists()
