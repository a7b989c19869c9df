"""Liveness through the real server: whole random games over real websockets.

The real app (the rules core behind uvicorn) stores its rooms in a real redis-server; the
rooms are made by the lobby, so they play on its default (tournament) table. Both
seats are clients that know only what the server sends them: the welcome, snapshots and
events, and the ``options`` frame they ask for at every version (the army picker reads the
lobby's ``GET /api/armies``, as the browser app does). Each seat plays the random player of
``tests/support/random_player.py`` (the one ``tests/rules/test_liveness.py`` runs against
the rules core): when its options offer nothing that moves the game on it waits for the
next frame; when they do, it sends the player's candidates until one is accepted, and a
seat whose every option is refused is a soft-lock. A game that stopped with neither seat
offered anything would leave both waiting for a frame that never comes: the read guard of
``wsclient`` fails the test then. Both seats must end with the game over and the same
final result. No sleeps: every wait is on a frame.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from protocol.messages import Accepted, Events, Options, OptionsRequest, Snapshot, Sync
from server.app import create_app
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.helpers import settings
from tests.support.random_player import RandomPlayer, drawn, waits_on

pytestmark = [pytest.mark.redis, pytest.mark.slow]

MAX_COMMANDS = 2500
"""A bound per seat: a random game takes a few hundred commands."""


class SoftLock(AssertionError):
    pass


class Seat:
    """One seat's client, its random player and what it learnt from the frames."""

    def __init__(self, client: Client, side: str, player: RandomPlayer) -> None:
        self.client, self.side, self.player = client, side, player
        self.read = 0
        """How many of ``client.frames`` were looked at."""
        self.result: dict[str, Any] | None = None
        self.commands = 0
        self.refused_offers: list[str] = []

    def digest(self) -> None:
        """Look at the frames received since last time: events for the player, the end."""
        for frame in self.client.frames[self.read:]:
            if isinstance(frame, Events):
                for event in frame.events:
                    assert event is not None
                    self.player.observe(str(event["type"]))
                    if event["type"] == "game_ended":
                        self.result = event["result"]
        self.read = len(self.client.frames)

    async def options(self) -> dict[str, Any]:
        """The options at the version this seat holds (asked again if events came first)."""
        while True:
            await self.client.send(OptionsRequest())
            answer = await self.client.until(Options)
            self.digest()
            if answer.version == self.client.version:
                return answer.options

    async def snapshot(self) -> dict[str, Any]:
        await self.client.send(Sync(None))
        frame = await self.client.until(Snapshot)
        self.digest()
        return frame.state

    async def next_frame(self) -> None:
        """Wait for the other seat's move: the next frame that brings events."""
        held = self.client.version
        while self.client.version == held:
            await self.client.next()
        self.digest()

    async def choose_army(self, armies: list[str], entropy: str) -> None:
        """Pick a list of the game's format once the seat holds the latest version (the
        other seat may choose first: a command against an older version is refused)."""
        while True:
            answer = await self.client.command(
                {"type": "choose_army", "army": self.player.rng.choice(armies), "entropy": entropy})
            self.digest()
            if isinstance(answer, Accepted):
                return
            assert answer.code == "stale_version", answer
            await self.snapshot()

    async def play(self) -> None:
        self.digest()
        while self.result is None:
            assert self.commands < MAX_COMMANDS, f"{self.side}: the game does not end"
            choices = await self.options()
            if self.result is not None:
                return
            if not waits_on(choices):
                await self.next_frame()
                continue
            view = await self.snapshot() if _needs_view(choices) else {}
            await self.act(choices, view)

    async def act(self, choices: dict[str, Any], view: dict[str, Any]) -> None:
        for body in self.player.candidates(choices, lambda: view):
            answer = await self.client.command(body)
            self.digest()
            if isinstance(answer, Accepted):
                self.player.accepted(body)
                self.commands += 1
                return
            if not drawn(body):
                self.refused_offers.append(f"{body}: {answer.code} {answer.message}")
        raise SoftLock(f"{self.side}: every option was refused: {choices}")


def _needs_view(choices: dict[str, Any]) -> bool:
    """Deployment points, routes and Dodge moves are drawn from the seat's own view, and
    the trooper to activate is sometimes the one nearest an enemy."""
    return any(choices.get(key) for key in ("deploy", "skills", "aros", "activate"))


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisProcess]:
    server = RedisProcess(Path(tmp_path_factory.mktemp("liveness-redis")))
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def play_game(redis_server: RedisProcess, ruleset: str, seed: int) -> list[Seat]:
    store = RedisRoomStore.from_url(redis_server.url)
    # The bots ask for options at every version at machine speed: the rate limit and the
    # queries' loop-time budgets (tests/transport/test_work_budget.py) would only slow them.
    app_settings = settings(rate_burst=100_000, allow_fixed_seed=True, work_seat_ms_per_s=0,
                            work_spectators_ms_per_s=0, work_node_share=0)
    app = create_app(app_settings, store=store)
    rng = random.Random(seed)
    try:
        async with running_server(app_settings, app=app) as base, \
                httpx.AsyncClient(base_url=base) as http:
            created = await http.post("/api/rooms", json={
                "ruleset": ruleset, "aro_window_s": 600, "visibility": "private", "seed": seed})
            assert created.status_code == 201, created.text
            room = created.json()
            listed = await http.get("/api/armies", params={"ruleset": ruleset})
            armies = [army["id"] for army in listed.json()["armies"]]
            seats = []
            for side in ("A", "B"):
                client = await Client.connect(base, room["room"], room["seats"][side]["token"])
                seats.append(Seat(client, side, RandomPlayer(side, rng.randrange(2**32), 5)))
            await asyncio.gather(*(
                seat.choose_army(armies, hashlib.sha256(f"{seed} {seat.side}".encode()).hexdigest())
                for seat in seats))
            await asyncio.gather(*(seat.play() for seat in seats))
            for seat in seats:
                final = await seat.snapshot()
                assert final["phase"] == "game_over"
                assert final["result"] == seat.result
            for seat in seats:
                await seat.client.close()
            return seats
    finally:
        await store.close()


@pytest.mark.parametrize(("ruleset", "seed"), [("codeone", 5), ("n5", 6), ("codeone", 8)])
async def test_random_games_over_websockets_end_by_themselves_with_one_result(
        redis_server: RedisProcess, ruleset: str, seed: int) -> None:
    seats = await play_game(redis_server, ruleset, seed)
    a, b = seats
    assert a.result is not None and a.result == b.result
    assert a.result["reason"] in ("rounds_completed", "retreat")
    assert not a.refused_offers and not b.refused_offers, a.refused_offers + b.refused_offers
    assert a.commands > 20 and b.commands > 20
