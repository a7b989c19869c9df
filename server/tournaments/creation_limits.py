"""How many tournaments one client address may create: a token bucket per address on each
node (``client_tournament_burst`` at once, ``client_tournaments_per_hour`` sustained); over
it, 429 ``too_many_tournaments`` with ``Retry-After``. A tournament costs nothing until its
rounds make rooms, and those count against the lobby's room limits
(``RoomAdmission.admit_round``); this keeps one address from making tournaments by the
thousand (each a log kept for ever)."""

from __future__ import annotations

import time

from server.config import Settings
from server.lobby.admission import ClientBuckets, Refusal, _whole


class TournamentCreations:
    def __init__(self, settings: Settings) -> None:
        self._buckets = (
            ClientBuckets(settings.client_tournaments_per_hour / 3600.0,
                          settings.client_tournament_burst, settings.client_table_size)
            if settings.client_tournament_burst > 0 else None)

    def admit(self, client: str, now: float | None = None) -> Refusal | None:
        if self._buckets is None:
            return None
        wait = self._buckets.take(client, time.monotonic() if now is None else now)
        if wait <= 0:
            return None
        return Refusal(429, "too_many_tournaments", "too many tournaments created from this "
                       f"address; try again in {_whole(wait)} s", _whole(wait))


def tournament_creations_for(state: object, settings: Settings) -> TournamentCreations:
    """The app's one ``TournamentCreations`` (on ``app.state``, made at first use)."""
    limits = getattr(state, "tournament_creations", None)
    if not isinstance(limits, TournamentCreations):
        limits = TournamentCreations(settings)
        setattr(state, "tournament_creations", limits)  # noqa: B010 (Starlette's State)
    return limits
