"""The lobby's list of public rooms names the tables of public tournaments: "Winter Cup --
round 2, table 3", with a link to the tournament's public page (docs/tournaments.md, "The
lobby's room list").

A round's labels are stored (``TournamentStore.label_rooms``) once its ``round_started``
entry is in the log, and again when that action is sent again (a retry finds it as a
duplicate): the label is made from the log, so every node stores the same one. The label is
not in the append's own script (the index is a key of another Cluster slot, as the public
list of tournaments is), so a node may stop between the two, and tournaments made before
labels existed have none: the labels heal at the next read of the tournament, on any node
(``RoundLabels.heal``). Only public tournaments' rooms are labelled: a private tournament's
rooms are private, never listed."""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from server.store.interface import StorageUnavailable
from server.store.tournament_store import TournamentStore
from server.tournaments.model import Round, Tournament
from server.tournaments.views import public_link

log = logging.getLogger(__name__)

ROUNDS_KEPT = 1024
"""Rounds a node remembers as labelled (the public list of tournaments reads 200 at once)."""


def round_labels(state: Tournament, played: Round) -> dict[str, dict[str, Any]]:
    """Room id -> label for each table of a round of the folded state ({} for a private
    tournament)."""
    if state.settings.visibility != "public":
        return {}
    return {table.room: table_label(state, played.number, table.number) for table in played.tables}


def table_label(state: Tournament, round_number: int, table_number: int) -> dict[str, Any]:
    return {"tournament": state.id, "name": state.name, "round": round_number,
            "table": table_number}


class RoundLabels:
    """One node's writer of the labels, made by ``server/app.py`` for the app's life.

    It remembers the rounds it has seen labelled (stored them, or found them all stored), at
    most ``ROUNDS_KEPT``, least recently read forgotten first: a tournament read every few
    seconds by its players' and viewers' pages costs the labels' index one ``HMGET`` per
    node and round, not one per read. A label lost after a node saw it (a Redis that lost
    acknowledged writes) is healed by a node that has not seen that round yet, or by this
    one once it has forgotten it or restarted, or by the organizer's retry of the start."""

    def __init__(self, store: TournamentStore, capacity: int = ROUNDS_KEPT) -> None:
        self._store = store
        self._capacity = capacity
        self._seen: OrderedDict[tuple[str, int], None] = OrderedDict()

    async def label_round(self, state: Tournament, round_number: int) -> None:
        """Store a round's labels without asking what is there (the round was just started,
        or its start sent again)."""
        played = next(played for played in state.rounds if played.number == round_number)
        labels = round_labels(state, played)
        if labels and await self._stored(labels):
            self._remember((state.id, round_number))

    async def heal(self, *states: Tournament) -> None:
        """Store the labels missing from the current round of each public tournament of
        ``states`` (one ``HMGET`` for all, and one ``HSET`` of the missing ones, if any);
        rounds this node has seen labelled, private tournaments and tournaments with no
        round cost nothing."""
        wanted: dict[str, dict[str, Any]] = {}
        rounds: list[tuple[str, int]] = []
        for state in states:
            current = state.current
            if current is None:
                continue
            key = (state.id, current.number)
            if key in self._seen:
                self._seen.move_to_end(key)
                continue
            labels = round_labels(state, current)
            if labels:
                wanted.update(labels)
                rounds.append(key)
        if not wanted:
            return
        try:
            found = await self._store.room_labels(list(wanted))
        except StorageUnavailable as error:
            # The labels' index may be on another Cluster node than the tournament: the
            # read answers without them, and the next read tries again.
            log.warning("tournament labels not checked: %s", error)
            return
        missing = {room: made for (room, made), stored in zip(wanted.items(), found, strict=True)
                   if stored is None}
        if not missing or await self._stored(missing):
            for key in rounds:
                self._remember(key)

    async def _stored(self, labels: Mapping[str, Mapping[str, Any]]) -> bool:
        try:
            await self._store.label_rooms(labels)
        except StorageUnavailable as error:
            # The round is started all the same (its entry is in the log): not remembered,
            # so the next read of the tournament, on any node, stores the labels.
            log.warning("tournament labels not stored: %s", error)
            return False
        return True

    def _remember(self, key: tuple[str, int]) -> None:
        self._seen[key] = None
        self._seen.move_to_end(key)
        while len(self._seen) > self._capacity:
            self._seen.popitem(last=False)


async def lobby_fields(store: TournamentStore, room_ids: Sequence[str]
                       ) -> list[dict[str, Any] | None]:
    """The ``tournament`` field of each room of the lobby's list, in order: None, or
    ``{"tournament", "name", "round", "table", "link"}``."""
    return [None if label is None else {**label, "link": public_link(str(label["tournament"]))}
            for label in await store.room_labels(room_ids)]
