"""Helpers for tests that run a node in their own process: its settings, and the lobby
request that makes a room (testkit/serving.py serves the app)."""

from __future__ import annotations

from typing import Any

import httpx

from server.config import Settings

TEST_SETTINGS = dict(freeze_gc=False, grace_s=30.0, static_dir=None)


def settings(**overrides: Any) -> Settings:
    return Settings(**{**TEST_SETTINGS, **overrides})  # type: ignore[arg-type]


async def create_room(http: httpx.AsyncClient, **options: Any) -> dict[str, Any]:
    response = await http.post("/api/rooms", json={"ruleset": "n5", **options})
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]
