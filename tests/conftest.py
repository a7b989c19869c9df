"""Server fixtures: a real uvicorn server on a free port, in the test's event loop."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fake_engine import FakeEngine

from server.config import Settings
from tests.server.serving import running_server as running_server

TEST_SETTINGS = dict(freeze_gc=False, grace_s=30.0, static_dir=None)


def settings(**overrides: Any) -> Settings:
    return Settings(**{**TEST_SETTINGS, **overrides})  # type: ignore[arg-type]


@pytest.fixture
def fake_engine() -> FakeEngine:
    return FakeEngine()


@pytest.fixture
async def fake_server(fake_engine: FakeEngine) -> AsyncIterator[str]:
    async with running_server(settings(), fake_engine) as url:
        yield url


@pytest.fixture
async def http(fake_server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=fake_server) as client:
        yield client


async def create_room(http: httpx.AsyncClient, **options: Any) -> dict[str, Any]:
    response = await http.post("/api/rooms", json={"ruleset": "n5", **options})
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]
