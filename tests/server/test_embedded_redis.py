"""The embedded Redis of ``deploy/bin/serve``: started, reachable, outside the terminal's
process group, and stopped by the server."""

from __future__ import annotations

import os
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
