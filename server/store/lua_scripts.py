"""Lua scripts run by SHA: each script's text crosses the wire once, not on every call.

Redis keeps loaded scripts only until it restarts; a call that finds the cache empty
(NOSCRIPT) loads the script again and retries once. Pipelines that queue ``EVALSHA`` calls
themselves use ``sha`` and call ``forget`` when a result says NOSCRIPT.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import NoScriptError


class LuaScripts:
    def __init__(self, client: aioredis.Redis) -> None:
        self._redis = client
        self._shas: dict[str, str] = {}

    async def sha(self, script: str) -> str:
        """The script's SHA, loading it into Redis the first time."""
        sha = self._shas.get(script)
        if sha is None:
            sha = self._shas[script] = str(await self._redis.script_load(script))
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
