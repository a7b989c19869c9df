"""A tournament driven through its HTTP API, as an organizer and its players would; the app
served in the test's loop and the settings it runs with."""

from __future__ import annotations

import contextlib
import itertools
from typing import Any

import httpx
from starlette.applications import Starlette

from server.config import Settings
from testkit.serving import running_server
from testkit.wsclient import Client

_ids = itertools.count(1)


def action_id() -> str:
    return f"test-action-{next(_ids):08d}"


class Organizer:
    def __init__(self, http: httpx.AsyncClient, tournament: str, token: str) -> None:
        self.http, self.tournament, self.token = http, tournament, token

    @classmethod
    async def create(cls, http: httpx.AsyncClient, **fields: Any) -> tuple[Organizer, dict[str, Any]]:
        body = {"action_id": action_id(), "name": "Test Open", "rounds": 2,
                "ruleset": "codeone", "aro_window_s": 600, **fields}
        response = await http.post("/api/tournaments", json=body)
        assert response.status_code == 201, response.text
        made = response.json()
        return cls(http, made["tournament"], made["organizer"]["token"]), made

    async def act(self, kind: str, *, status: int = 200, id: str | None = None,
                  **fields: Any) -> dict[str, Any]:
        response = await self.http.post(
            f"/api/tournaments/{self.tournament}/actions",
            json={"organizer": self.token, "action_id": id or action_id(), "type": kind,
                  **fields})
        assert response.status_code == status, response.text
        return response.json()  # type: ignore[no-any-return]

    async def dashboard(self) -> dict[str, Any]:
        response = await self.http.post(f"/api/tournaments/{self.tournament}/dashboard",
                                        json={"organizer": self.token})
        assert response.status_code == 200, response.text
        return response.json()  # type: ignore[no-any-return]

    async def view(self) -> dict[str, Any]:
        response = await self.http.get(f"/api/tournaments/{self.tournament}")
        assert response.status_code == 200, response.text
        return response.json()  # type: ignore[no-any-return]

    async def register(self, name: str, army: str, *, organizer: bool = False,
                       status: int = 201) -> dict[str, Any]:
        body: dict[str, Any] = {"action_id": action_id(), "name": name, "army": army}
        if organizer:
            body["organizer"] = self.token
        response = await self.http.post(f"/api/tournaments/{self.tournament}/players",
                                        json=body)
        assert response.status_code == status, response.text
        return response.json()  # type: ignore[no-any-return]

    async def me(self, token: str) -> dict[str, Any]:
        response = await self.http.post(f"/api/tournaments/{self.tournament}/me",
                                        json={"token": token})
        assert response.status_code == 200, response.text
        return response.json()  # type: ignore[no-any-return]


async def concede(base: str, page: dict[str, Any]) -> None:
    """The player of ``page`` concedes its current game over its seat's websocket."""
    current = page["current"]
    client = await Client.connect(base, current["room"], current["seat_token"])
    try:
        answer = await client.command({"type": "concede"})
        assert type(answer).__name__ == "Accepted", answer
    finally:
        await client.close()


def serving(app: Starlette, app_settings: Settings) -> contextlib.AbstractAsyncContextManager[str]:
    """The app on 127.0.0.1:<free port> in the test's loop (testkit.serving's running_server)."""
    return running_server(app_settings, app=app)


def app_settings(**overrides: Any) -> Settings:
    """Test settings; every test's organizer and players are at 127.0.0.1, so the limits
    per address (registrations, tournaments, rooms) are off unless a test sets them
    (test_registration_limits.py, test_round_limits.py)."""
    return Settings(**{"freeze_gc": False, "grace_s": 30.0, "static_dir": None,
                       "rate_burst": 10_000, "client_registration_burst": 0,
                       "registrations_per_address": 0, "client_tournament_burst": 0,
                       "client_room_burst": 0, **overrides})
