"""The practice bot runs on the node that runs its room (issue 39): a node killed with kill -9
mid-game and started again (the room lives in Redis) opens the room when the human comes
back, and starts the room's bot with it: the game goes on, the bot's seat plays its next
step. Before, the bot was a task of the process that created the room and died with it.

Implementation test: no rule section (the bot is the server's own player)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import pytest

from protocol.messages import Events
from server.bot.seat_client import BotSeat, play
from testkit.redis_process import RedisProcess
from testkit.server_process import ServerProcess
from testkit.wsclient import Client

pytestmark = [pytest.mark.redis, pytest.mark.slow]

# The rules run from their Python sources here: the seats' loop-time budgets and rate limits
# are raised so that neither seat waits on them (as in tests/bot/test_bot_room.py).
FAST = {"REFEREE_RATE_PER_S": "500", "REFEREE_RATE_BURST": "500",
        "REFEREE_WORK_SEAT_MS_PER_S": "1000", "REFEREE_WORK_SEAT_BURST_MS": "5000",
        "REFEREE_WORK_NODE_SHARE": "1.0"}
BOT_STEPS = ("deployment_step_ended", "turn_ended")
"""Events only the bot's own commands make (ending its deployment step, its Player Turn)."""


def _bot_step(message: Events) -> bool:
    return any(e is not None and e.get("type") in BOT_STEPS and e.get("side") == "B"
               for e in message.events)


def _human(node: ServerProcess, room: str, token: str) -> asyncio.Task[None]:
    """Seat A, played by a bot client from A's frames (the human, ending its turns)."""
    base = "ws" + node.base.removeprefix("http")
    return asyncio.create_task(play(BotSeat(base, room, "A", token, "sensible", 500.0, 500),
                                    random.Random(1)))


async def _stop(task: asyncio.Task[Any]) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_the_bot_plays_on_after_its_node_is_killed_and_started_again(
        redis_server: RedisProcess) -> None:
    node = ServerProcess(redis_server.url, env=FAST)
    await node.start()
    human: asyncio.Task[None] | None = None
    try:
        async with httpx.AsyncClient(base_url=node.base, timeout=30) as http:
            response = await http.post("/api/rooms", json={
                "ruleset": "codeone", "table": "sample-open-codeone", "bot": "B"})
            assert response.status_code == 201, response.text
            made = response.json()
        room, token = made["room"], made["seats"]["A"]["token"]
        watcher = await Client.connect(node.base, room)
        human = _human(node, room, token)
        async with asyncio.timeout(60):  # against a hung test only
            await watcher.until(Events, _bot_step)  # the bot plays, mid-deployment
        await node.kill()
        await _stop(human)
        await node.start()
        human = _human(node, room, token)  # the human comes back and plays on
        watcher = await Client.connect(node.base, room)
        async with asyncio.timeout(60):
            after = await watcher.until(Events, _bot_step)
        assert _bot_step(after)  # the restarted node runs the room's bot
        await watcher.close()
    finally:
        if human is not None:
            await _stop(human)
        await node.stop()
        print(node.output.decode(errors="replace")[-4000:])
