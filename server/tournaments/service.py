"""Tournaments over their store and the rooms: read a tournament (recording the results of
games that ended since), and write one action, fenced by the version it was decided on and
applied once per action id (docs/tournaments.md, "Data model and storage").

No tournament state is kept in memory between requests: every answer is folded from the
log, so any node answers any request, after a restart or a takeover. The one thing kept is
``folds``, the dashboard's cache of each table's game (``server.tournaments.folds``): only a
cache, checked against the store at every read."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from server.rooms.engine_port import Engine
from server.rooms.rules_engine import ArmyCodeReader, RulesCoreEngine
from server.store import RoomStore
from server.store.tournament_store import TournamentStore
from server.tournaments import decide
from server.tournaments.folds import Folds
from server.tournaments.model import Entry, Tournament, apply, fold
from server.tournaments.refusals import Refused
from server.tournaments.results import read_outcome

ATTEMPTS = 20
"""Folds and decisions one write may take while other writes land between (then 503
``busy``)."""


@dataclass(frozen=True, slots=True)
class Written:
    state: Tournament
    duplicate: bool
    entry: Entry
    """The entry in the log with the action's id (the first one's, for a duplicate)."""


Decide = Callable[[Tournament], Awaitable[dict[str, Any]]]


class Tournaments:
    def __init__(self, store: TournamentStore, rooms: RoomStore,
                 clock: Callable[[], int] | None = None, engine: Engine | None = None,
                 army_codes: ArmyCodeReader | None = None) -> None:
        self.store = store
        self.army_codes = army_codes
        """How registrations' army codes are read: with the operator's army data
        (``REFEREE_ARMY_DATA``), as the rooms read them; None: codes are refused
        ``no_army_data``."""
        self.rooms = rooms
        self.clock = clock or (lambda: int(time.time() * 1000))
        self.folds = Folds(rooms, engine or RulesCoreEngine())
        """Each table's game as the dashboard shows it (tournament rooms always run the
        rules core)."""

    async def log(self, tournament_id: str) -> list[dict[str, Any]]:
        entries = await self.store.load(tournament_id)
        if entries is None:
            raise Refused("tournament_not_found", "no such tournament", 404)
        return entries

    async def read(self, tournament_id: str) -> Tournament:
        """The tournament now, with the result of every game that ended since the last read
        stored first."""
        return fold(await self._refreshed(tournament_id))

    async def _refreshed(self, tournament_id: str) -> list[dict[str, Any]]:
        for _ in range(ATTEMPTS):
            entries = await self.log(tournament_id)
            current = fold(entries).current
            pending = [] if current is None else [t for t in current.tables if t.result is None]
            moved = False
            for table in pending:
                assert current is not None
                outcome = await read_outcome(self.rooms, table, self.clock())
                if outcome is None:
                    continue
                entry = decide.game_result(current.number, table.number, outcome.winner,
                                           outcome.vp, outcome.op, outcome.reason)
                done = await self.store.append(tournament_id, expected_version=len(entries),
                                               action_id=entry["action_id"], entry=entry)
                if done.status != "appended":  # another reader stored it, or the log moved
                    moved = True
                    break
                entries.append(entry)
            if not moved:
                return entries
        raise Refused("busy", "the tournament changed too often while it was read: try again",
                      503)

    async def write(self, tournament_id: str, action_id: str, decide_entry: Decide) -> Written:
        """Decide an action on the state now and append it; a log that moved meanwhile is
        folded again and the action decided again. An action id already in the log is not
        decided again: the answer says ``duplicate``."""
        for _ in range(ATTEMPTS):
            entries = await self._refreshed(tournament_id)
            first = _entry_with(entries, action_id)
            if first is not None:
                return Written(fold(entries), True, first)
            state = fold(entries)
            entry = await decide_entry(state)
            apply(state, entry)  # an entry the fold cannot take never reaches the log
            done = await self.store.append(tournament_id, expected_version=len(entries),
                                           action_id=action_id, entry=entry)
            if done.status == "appended":
                entries.append(entry)
                return Written(fold(entries), False, entry)
            if done.status == "duplicate":
                entries = await self.log(tournament_id)
                found = _entry_with(entries, action_id)
                assert found is not None
                return Written(fold(entries), True, found)
        raise Refused("busy", "the tournament changed under this action too often: try again",
                      503)


def _entry_with(entries: list[dict[str, Any]], action_id: str) -> Mapping[str, Any] | None:
    return next((e for e in entries if e.get("action_id") == action_id), None)
