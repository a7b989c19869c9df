"""The events one command produces, folded into the state as they are produced.

``engine.decide`` must apply each event to know what follows it (the automatic steps read
the state), so the state it reaches is already at hand: ``Produced.state`` is
``apply_all(start, Produced.events)``, which ``Accepted.state`` carries so that the room
does not fold the same events a second time. The Suppressive Fire announcements
(``combat/suppressive_fire.py``: a ``SuppressiveFireChanged`` after each event that put a
trooper into the State or took one out of it) are made here too, as each event is folded,
rather than by folding the whole list again.
"""

from __future__ import annotations

from collections.abc import Iterable

from .apply import apply
from .combat import suppressive_fire
from .events import Event
from .missions import classified
from .orders.sequence import MAX_AUTOMATIC_STEPS, next_automatic
from .state import GameState


class Produced:
    __slots__ = ("events", "holding", "state")

    def __init__(self, start: GameState) -> None:
        self.state = start
        self.events: list[Event] = []
        self.holding = suppressive_fire.holding_any(start)
        """Some trooper is in Suppressive Fire: only then (or when an event may put one
        into it) can an event change the State, and is it looked for."""

    def add(self, event: Event) -> None:
        """Apply ``event``; log it and the Suppressive Fire changes it made."""
        before = self.state
        state = apply(before, event)
        self.events.append(event)
        if self.holding or suppressive_fire.may_enter(event):
            for change in suppressive_fire.changes(before, state, event):
                self.events.append(change)
                state = apply(state, change)  # (already so: it changes nothing)
            self.holding = suppressive_fire.holding_any(state)
        # Classified Objectives: the cards this event showed achieved follow it at once
        # (missions/classified.py); nothing to judge in a game without them.
        if state.classified:
            for achieved in classified.after_event(before, state, event):
                self.events.append(achieved)
                state = apply(state, achieved)
        self.state = state

    def add_all(self, events: Iterable[Event]) -> None:
        for event in events:
            self.add(event)

    def then_automatic(self, events: Iterable[Event]) -> None:
        """``events``, then the automatic steps they trigger (``orders/sequence.py``)."""
        self.add_all(events)
        for _ in range(MAX_AUTOMATIC_STEPS):
            follow_ups = next_automatic(self.state)
            if follow_ups is None:
                return
            self.add_all(follow_ups)
        raise RuntimeError("automatic steps did not settle")
