"""How many tournaments one client address may create: a token bucket per address on each
node (``client_tournament_burst`` at once, ``client_tournaments_per_hour`` sustained); over
it, 429 ``too_many_tournaments`` with ``Retry-After``. A tournament costs nothing until its
rounds make rooms, and those count against the lobby's room limits
(``RoomAdmission.admit_round``); this keeps one address from making tournaments by the
thousand (each a log kept for ever)."""

from __future__ import annotations

from server.config import Settings
from server.lobby.admission import AddressBudget


class TournamentCreations(AddressBudget):
    def __init__(self, settings: Settings) -> None:
        super().__init__(settings.client_tournaments_per_hour, settings.client_tournament_burst,
                         settings.client_table_size, "too_many_tournaments",
                         "tournaments created")


def tournament_creations_for(state: object, settings: Settings) -> TournamentCreations:
    """The app's one ``TournamentCreations`` (on ``app.state``, made at first use)."""
    limits = getattr(state, "tournament_creations", None)
    if not isinstance(limits, TournamentCreations):
        limits = TournamentCreations(settings)
        setattr(state, "tournament_creations", limits)  # noqa: B010 (Starlette's State)
    return limits
