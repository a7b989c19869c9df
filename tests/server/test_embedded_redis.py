"""The embedded Redis of ``deploy/bin/serve``: started, reachable, outside the terminal's
process group, stopped by the server, and started again by itself when it dies."""

from __future__ import annotations

import logging
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import redis

from server.embedded_redis import EmbeddedRedis

pytestmark = pytest.mark.redis


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
