"""The app's tournaments (``server.tournaments.service.Tournaments``): on the rooms' Redis when
the rooms are on Redis, made at first use and kept on ``app.state`` (so the dashboard's kept
folds, ``server.tournaments.folds``, last from one request to the next). The tournaments'
routes and the lobby's room list (``server.tournaments.lobby_labels``) both use it, and the
tournaments' routes the node's writer of the lobby's labels (``labels_of``), kept beside it
so that the rounds it has seen labelled last from one request to the next."""

from __future__ import annotations

from starlette.requests import Request

from server.rooms.registry import RoomRegistry
from server.store.redis_store import RedisRoomStore
from server.store.tournament_store import (
    MemoryTournamentStore,
    RedisTournamentStore,
    TournamentStore,
)
from server.tournaments.lobby_labels import RoundLabels
from server.tournaments.service import Tournaments


def tournaments_of(request: Request) -> Tournaments:
    state = request.app.state
    found = getattr(state, "tournaments", None)
    registry: RoomRegistry = state.registry
    if not isinstance(found, Tournaments):
        store: TournamentStore
        if isinstance(registry.store, RedisRoomStore):
            store = RedisTournamentStore(registry.store.client)
        else:
            store = MemoryTournamentStore()
        found = Tournaments(store, registry.store, lambda: registry.clock())  # tests move it
        setattr(state, "tournaments", found)  # noqa: B010 (Starlette's State)
    return found


def labels_of(request: Request) -> RoundLabels:
    state = request.app.state
    found = getattr(state, "tournament_labels", None)
    if not isinstance(found, RoundLabels):
        found = RoundLabels(tournaments_of(request).store)
        setattr(state, "tournament_labels", found)  # noqa: B010 (Starlette's State)
    return found
