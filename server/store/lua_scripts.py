"""Lua scripts run by SHA: each script's text crosses the wire once, not on every call.

Redis keeps loaded scripts only until it restarts; a call that finds the cache empty
(NOSCRIPT) loads the script again and retries once. Pipelines that queue ``EVALSHA`` calls
themselves use ``sha`` and call ``forget`` when a result says NOSCRIPT.
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import NoScriptError


class LuaScripts:
    def __init__(self, client: aioredis.Redis) -> None:
        self._redis = client
        self._shas: dict[str, str] = {}
        self._loading: dict[str, asyncio.Task[Any]] = {}

    async def sha(self, script: str) -> str:
        """The script's SHA, loading it into Redis the first time. Calls made while it loads
        share that load: after a restart thousands of rooms' claims start at once, and each
        would otherwise send its own SCRIPT LOAD first."""
        sha = self._shas.get(script)
        if sha is not None:
            return sha
        loading = self._loading.get(script)
        if loading is None:
            loading = self._loading[script] = asyncio.ensure_future(
                self._redis.script_load(script))
            loading.add_done_callback(lambda _: self._loading.pop(script, None))
        sha = str(await asyncio.shield(loading))  # (one caller cancelled: the others wait on)
        self._shas[script] = sha
        return sha

    def forget(self) -> None:
        """Redis restarted (NOSCRIPT): load every script again on its next use."""
        self._shas.clear()

    async def run(self, script: str, keys: list[str], args: list[Any]) -> Any:
        try:
            return await self._redis.evalsha(await self.sha(script), len(keys), *keys, *args)
        except NoScriptError:
            self.forget()
            return await self._redis.evalsha(await self.sha(script), len(keys), *keys, *args)
