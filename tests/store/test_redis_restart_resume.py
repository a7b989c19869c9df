"""A spectator resumes from version 0 after an external Redis restart, on a node that kept
running (the review: closed 4011 "storage is unavailable ... Connection closed by server"
on a pooled connection from before the restart; server/store/redis_store.py ``connect``)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from protocol.messages import Accepted, Events, Welcome
from server.app import create_app
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import create_room, settings

pytestmark = pytest.mark.redis


@pytest.mark.slow  # a redis-server of its own, restarted
async def test_a_spectator_resumes_from_version_0_after_redis_restarted(tmp_path: Path) -> None:
    redis = RedisProcess(tmp_path / "redis")
    redis.start()
    try:
        config = settings()
        app = create_app(config, engine=FakeEngine(), store=RedisRoomStore.from_url(redis.url))
        async with running_server(config, app=app) as url:
            async with httpx.AsyncClient(base_url=url) as http:
                created = await create_room(http)
            room = created["room"]
            a = await Client.connect(url, room, created["seats"]["A"]["token"])
            early = [await Client.connect(url, room, since=0) for _ in range(4)]
            for value in range(3):
                assert isinstance(await a.command({"type": "act", "value": value}), Accepted)
            for viewer in (a, *early):
                await viewer.close()
            redis.stop()  # an operator restarts Redis; the node keeps running
            redis.start()
            resumed = [await Client.connect(url, room, since=0) for _ in range(4)]
            for viewer in resumed:
                assert isinstance(viewer.welcome, Welcome)
                missed = await viewer.until(Events)
                assert [e["value"] for e in missed.events if e.get("e") == "acted"] == [0, 1, 2]
                await viewer.close()
    finally:
        redis.stop()
