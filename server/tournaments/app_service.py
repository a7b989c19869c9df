"""The app's tournaments (``server.tournaments.service.Tournaments``) and the node's writer
of the lobby's labels (``RoundLabels``), as ``server/app.py`` made them and kept them on
``app.state`` for the app's life (so the dashboard's kept folds, ``server.tournaments.folds``,
and the rounds seen labelled last from one request to the next). The tournaments' routes
and the lobby's room list (``server.tournaments.lobby_labels``) both use them."""

from __future__ import annotations

from starlette.requests import Request

from server.tournaments.lobby_labels import RoundLabels
from server.tournaments.service import Tournaments


def tournaments_of(request: Request) -> Tournaments:
    found = request.app.state.tournaments
    assert isinstance(found, Tournaments), "server/app.py puts the tournaments on app.state"
    return found


def labels_of(request: Request) -> RoundLabels:
    found = request.app.state.tournament_labels
    assert isinstance(found, RoundLabels), "server/app.py puts the labels on app.state"
    return found
