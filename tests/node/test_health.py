"""Liveness and readiness (issue 18): ``/livez`` answers while the process does; ``/readyz``
says 503 while the node starts, drains or its room store cannot write (a dead or refusing
Redis, found by the write probe), and 200 again by itself once the store writes;
``/healthz`` is what it always was."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from starlette.applications import Starlette

from server.app import create_app
from server.node.health import StorageProbe, probe_key
from server.store.redis_store import RedisRoomStore, connect
from testkit.redis_process import RedisProcess, free_port
from testkit.serving import running_server
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import settings


async def test_a_serving_node_with_the_memory_store_is_alive_and_ready(
        http: httpx.AsyncClient) -> None:
    live, ready, health = [await http.get(path) for path in ("/livez", "/readyz", "/healthz")]
    assert (live.status_code, live.json()["status"]) == (200, "alive")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"
    assert ready.json()["rooms"] == 0 and ready.json()["node"] == live.json()["node"]
    assert (health.status_code, health.json()["status"]) == (200, "ok")


async def test_a_node_that_has_not_started_is_alive_but_not_ready() -> None:
    app = create_app(settings(), engine=FakeEngine())  # no lifespan has run
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://node") as http:
        assert (await http.get("/livez")).status_code == 200
        ready = await http.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["problems"] == ["starting or shutting down",
                                            "storage not checked yet"]
        assert (await http.get("/healthz")).status_code == 503


@pytest.fixture
async def node_on(own_redis: RedisProcess) -> AsyncIterator[tuple[str, Starlette]]:
    """A node serving on ``own_redis`` (no cluster: the probe is the store's)."""
    store = RedisRoomStore.from_url(own_redis.url)
    app = create_app(settings(ready_probe_s=0.2), engine=FakeEngine(), store=store)
    async with running_server(settings(), app=app) as url:
        yield url, app


async def ready(http: httpx.AsyncClient) -> tuple[int, dict[str, Any]]:
    response = await http.get("/readyz")
    return response.status_code, response.json()


@pytest.mark.slow  # a redis-server of its own, killed and started again
async def test_readiness_follows_an_external_redis_down_and_back_by_itself(
        node_on: tuple[str, Starlette], own_redis: RedisProcess) -> None:
    url, app = node_on
    probe: StorageProbe = app.state.health.probe
    async with httpx.AsyncClient(base_url=url) as http:
        while await probe.next_outcome() is not None:  # the first probe may be under way
            pass
        assert (await ready(http))[0] == 200

        own_redis.kill()
        while await probe.next_outcome() is None:
            pass
        status, body = await ready(http)
        assert status == 503 and body["status"] == "not ready"
        assert len(body["problems"]) == 1 and body["problems"][0].startswith(
            "storage cannot write: ")
        assert (await http.get("/livez")).status_code == 200, "alive: restarting would not help"
        assert (await http.get("/healthz")).status_code == 200, "as it always was"

        own_redis.start()  # nothing is told: the probe finds it
        while await probe.next_outcome() is not None:
            pass
        assert await ready(http) == (200, {"status": "ready", "node": body["node"], "rooms": 0})


@pytest.mark.slow  # a redis-server of its own
async def test_a_redis_that_answers_but_refuses_writes_is_not_ready(
        node_on: tuple[str, Starlette], own_redis: RedisProcess) -> None:
    """The probe writes: a Redis that still answers PING but takes no write (here: it
    wants a replica it does not have) makes the node unready."""
    url, app = node_on
    probe: StorageProbe = app.state.health.probe
    admin = aioredis.Redis.from_url(own_redis.url)
    try:
        await admin.config_set("min-replicas-to-write", 1)
        while await probe.next_outcome() is None:
            pass
        async with httpx.AsyncClient(base_url=url) as http:
            status, body = await ready(http)
            assert status == 503 and "NOREPLICAS" in body["problems"][0]
            await admin.config_set("min-replicas-to-write", 0)
            while await probe.next_outcome() is not None:
                pass
            assert (await ready(http))[0] == 200
        node = app.state.registry.node_id
        assert await admin.pttl(probe_key(node)) > 0, "the probe's key expires by itself"
    finally:
        await admin.config_set("min-replicas-to-write", 0)
        await admin.aclose()


class UnreachableCluster(RedisRoomStore):
    """A store on a Redis Cluster none of whose nodes answers (a port nobody serves)."""

    cluster = True


async def test_a_cluster_that_no_node_answers_is_not_ready_and_the_probe_goes_on() -> None:
    """redis-py's cluster client says so with a ``RedisClusterException``, not a
    ``RedisError``: the probe takes it as its answer instead of stopping for good."""
    url = f"redis://127.0.0.1:{free_port()}"
    store = UnreachableCluster(connect(url), url)
    probe = StorageProbe(store, "node-1", interval_s=0.05)
    await probe.start()
    try:
        async with asyncio.timeout(20):  # a guard against a hung test, not a timing check
            first = await probe.next_outcome()
            second = await probe.next_outcome()
    finally:
        await probe.close()
        await store.close()
    assert first is not None and first.startswith("storage cannot write: ")
    assert second == first, "probed again: still not ready"
    assert probe.problem == first
