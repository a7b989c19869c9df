"""The lobby's list of public rooms names the tables of public tournaments: "Winter Cup --
round 2, table 3", with a link to the tournament's public page (docs/tournaments.md, "The
lobby's room list").

A round's labels are stored (``TournamentStore.label_rooms``) once its ``round_started``
entry is in the log, and again when that action is sent again (a retry finds it as a
duplicate): the label is made from the log, so every node stores the same one. The label is
not in the append's own script (the index is a key of another Cluster slot, as the public
list of tournaments is). Only public tournaments' rooms are labelled: a private tournament's
rooms are private, never listed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.store.tournament_store import TournamentStore
from server.tournaments.model import Tournament
from server.tournaments.views import public_link


def round_labels(state: Tournament, entry: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Room id -> label for each table of a ``round_started`` entry ({} for a private
    tournament)."""
    if state.settings.visibility != "public" or entry.get("type") != "round_started":
        return {}
    return {str(table["room"]): {"tournament": state.id, "name": state.name,
                                 "round": int(entry["round"]), "table": int(table["table"])}
            for table in entry["tables"]}


async def label_round(store: TournamentStore, state: Tournament,
                      entry: Mapping[str, Any]) -> None:
    await store.label_rooms(round_labels(state, entry))


async def lobby_fields(store: TournamentStore, room_ids: Sequence[str]
                       ) -> list[dict[str, Any] | None]:
    """The ``tournament`` field of each room of the lobby's list, in order: None, or
    ``{"tournament", "name", "round", "table", "link"}``."""
    return [None if label is None else {**label, "link": public_link(str(label["tournament"]))}
            for label in await store.room_labels(room_ids)]
