"""An external Redis's persistence is checked before a node starts (issue 18): a Redis that
may lose acknowledged commands is refused with a message that says why and how to accept
it; ``REFEREE_ACCEPT_REDIS_DURABILITY`` accepts ``everysec`` or anything (``unchecked``),
also a Redis that forbids CONFIG."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from server.node.redis_durability import DurabilityRefused, check_durability, redacted
from testkit.redis_process import RedisProcess

pytestmark = pytest.mark.redis

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def durability_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisProcess]:
    """A Redis of this module's own: the tests change its persistence with CONFIG SET."""
    server = RedisProcess(tmp_path_factory.mktemp("durability"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def client(durability_redis: RedisProcess) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(durability_redis.url)
    client.config_set("appendonly", "yes")
    client.config_set("appendfsync", "always")
    try:
        yield client
    finally:
        client.config_set("appendonly", "yes")
        client.config_set("appendfsync", "always")
        client.close()


@pytest.mark.slow  # the module's own redis-server
def test_appendfsync_always_is_accepted_and_said(client: redis.Redis) -> None:
    assert check_durability(client, "always", "here") == \
        "Redis at here: appendonly yes, appendfsync always"


@pytest.mark.slow  # the module's own redis-server
def test_everysec_is_refused_unless_accepted_and_the_message_names_the_trade_off(
        client: redis.Redis) -> None:
    client.config_set("appendfsync", "everysec")
    with pytest.raises(DurabilityRefused) as refused:
        check_durability(client, "always", "here")
    message = str(refused.value)
    assert "appendfsync everysec" in message and "power cut" in message
    assert "REFEREE_ACCEPT_REDIS_DURABILITY=everysec" in message
    assert check_durability(client, "everysec", "here").endswith("appendfsync everysec")
    assert "accepted" in check_durability(client, "unchecked", "here")


@pytest.mark.slow  # the module's own redis-server
@pytest.mark.parametrize(("setting", "value"), [("appendfsync", "no"), ("appendonly", "no")])
def test_weaker_persistence_is_refused_even_with_everysec_accepted(
        client: redis.Redis, setting: str, value: str) -> None:
    client.config_set(setting, value)
    for accept in ("always", "everysec"):
        with pytest.raises(DurabilityRefused, match="REFEREE_ACCEPT_REDIS_DURABILITY=unchecked"):
            check_durability(client, accept, "here")
    assert "accepted" in check_durability(client, "unchecked", "here")


@pytest.mark.slow  # the module's own redis-server
def test_a_redis_that_forbids_config_is_refused_unless_unchecked(
        client: redis.Redis, durability_redis: RedisProcess) -> None:
    """Managed Redis services often forbid CONFIG; here an ACL user without it."""
    client.acl_setuser("no-config", enabled=True, passwords=["+secret"], keys=["*"],
                       channels=["*"], commands=["+@all", "-config"])
    limited = redis.Redis.from_url(f"redis://no-config:secret@127.0.0.1:{durability_redis.port}/0")
    try:
        with pytest.raises(DurabilityRefused) as refused:
            check_durability(limited, "everysec", "here")
        assert "CONFIG" in str(refused.value)
        assert "REFEREE_ACCEPT_REDIS_DURABILITY=unchecked" in str(refused.value)
        assert "not checked" in check_durability(limited, "unchecked", "here")
    finally:
        limited.close()


@pytest.mark.slow  # the module's own redis-server
def test_an_unknown_acceptance_is_refused(client: redis.Redis) -> None:
    with pytest.raises(DurabilityRefused, match="expected one of always, everysec, unchecked"):
        check_durability(client, "sometimes", "here")


def test_messages_never_show_the_password() -> None:
    assert redacted("redis://user:hunter2@db:6380/0") == "redis://user:***@db:6380/0"
    assert redacted("unix:///run/redis.sock") == "unix:///run/redis.sock"


@pytest.mark.slow  # python -m server processes
def test_python_m_server_refuses_to_start_on_everysec_unless_accepted(
        client: redis.Redis, durability_redis: RedisProcess) -> None:
    """The whole start: exit status 1 and the reason on stderr, before serving anything."""
    client.config_set("appendfsync", "everysec")
    env = {**os.environ, "REDIS_URL": durability_redis.url, "REFEREE_FREEZE_GC": "0"}
    env.pop("REFEREE_ACCEPT_REDIS_DURABILITY", None)
    refused = subprocess.run([sys.executable, "-m", "server", "--port", "0"], cwd=REPO, env=env,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1
    assert "refusing to start: Redis at redis://127.0.0.1" in refused.stderr
    assert "REFEREE_ACCEPT_REDIS_DURABILITY=everysec" in refused.stderr
