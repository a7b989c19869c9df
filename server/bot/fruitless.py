"""What the bot remembers between its decisions: the troopers that found nothing useful to
do in the current Player Turn (no shot worth taking, no close combat, no route the referee
took, no marker), so that the turn ends instead of spending Order after Order on their
Idle. Its view keeps no record of the turn's earlier Orders, so the bot keeps this itself
(``seat_client`` for a seat's whole game, ``tests/support/bot_games`` per seat)."""

from __future__ import annotations

from typing import Any


class Fruitless:
    """The troopers that had nothing to do this Player Turn (forgotten when it changes)."""

    def __init__(self) -> None:
        self._turn: tuple[Any, ...] | None = None
        self._troopers: set[str] = set()

    def of(self, view: dict[str, Any]) -> set[str]:
        """This Player Turn's fruitless troopers (a new turn starts with none)."""
        turn = (view.get("round"), view.get("turn"), view.get("active"))
        if turn != self._turn:
            self._turn, self._troopers = turn, set()
        return self._troopers
