"""Counting what a test's store sends to Redis: its pipelines and its single commands."""

from __future__ import annotations

from typing import Any

import pytest

from server.store.redis_store import RedisRoomStore


def count_round_trips(redis_store: RedisRoomStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every pipeline and every single command sent through the store's client from now."""
    client = redis_store.client
    calls: list[str] = []
    pipeline, execute_command = client.pipeline, client.execute_command

    def counted_pipeline(*args: Any, **kwargs: Any) -> Any:
        calls.append("pipeline")
        return pipeline(*args, **kwargs)

    async def counted_command(*args: Any, **kwargs: Any) -> Any:
        calls.append(str(args[0]))
        return await execute_command(*args, **kwargs)

    monkeypatch.setattr(client, "pipeline", counted_pipeline)
    monkeypatch.setattr(client, "execute_command", counted_command)
    return calls
