"""A checked record folded with the rules core into every state of the game and, per view,
the steps that viewer saw.

The states are the rules core's own fold (``engine.apply``, event by event from the first
state), the one a room makes when it is loaded again, so a replay runs no second
implementation of the rules. They are kept whole (a state is immutable and shares what an
event did not change with the one before it); each viewer's projection of one is made when
a step is asked for (``documents``). Each view's events, as that viewer received them, are
made here once (they are shallow: a view shares the record's nested values), so the steps
listing carries them all and the viewer's log needs no request per step.

Views (``VIEWS``): ``"A"``, ``"B"`` and ``"spectator"`` are what that viewer was sent live.
Its sequence holds only the events it may know of, numbered 1, 2, ... as the room numbered
them for it (``server.rooms.numbering``), each judged, as the room judged it, against the
state after its commit. Its step ``i`` (``i`` its version) stands where the game stood
while that viewer held version ``i``: after its ``i``-th event and any event it may not
know of that followed, up to its next one -- the state its snapshot at that version
showed. ``"revealed"`` is every event with the whole game shown: the casters' projection,
which hides nothing (``server.rules.views``), numbered as the record numbers them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from server.replay.record_input import BadRecord, CheckedRecord
from server.replay.timing import Timing
from server.rules import engine, views
from server.rules.engine import AroWindow
from server.rules.ids import CASTER, SPECTATOR, Side, Viewer
from server.rules.state import GameState

VIEWS: Mapping[str, Viewer] = {"A": Side.A, "B": Side.B, "spectator": SPECTATOR,
                               "revealed": CASTER}
"""The views a replay offers, by the name a request uses, and whose projection each is."""
T = TypeVar("T")
REVEALED = "revealed"
ORDER_STARTED = "order_spent"
"""The event that starts an Order (open to every viewer): a step's ``order`` counts them."""


@dataclass(frozen=True, slots=True)
class ViewSteps:
    """One view's steps: step 0 before its first event, step ``k`` after its ``k``-th."""

    name: str
    viewer: Viewer
    events_at: tuple[int, ...]
    """The global version of the view's ``k``-th event at index ``k - 1``."""
    orders: tuple[int, ...]
    """Per step, how many Orders had started in this view (0: none yet)."""
    events: tuple[dict[str, Any] | None, ...]
    """Per step, its event as the viewer received it (None for step 0): made once here, so
    the steps listing and each step's answer carry the same one."""
    last: int
    """The game's last global version."""

    def __len__(self) -> int:
        return len(self.events_at) + 1

    def event_at(self, index: int) -> int:
        """The global version of step ``index``'s event (0 for step 0)."""
        return self.events_at[index - 1] if index else 0

    def state_at(self, index: int) -> int:
        """The global version whose state step ``index`` shows: the last one before the
        view's next event (the game's last after its last event)."""
        return self.events_at[index] - 1 if index < len(self.events_at) else self.last


@dataclass(frozen=True, slots=True)
class Replay:
    record: CheckedRecord
    timing: Timing
    states: tuple[GameState, ...]
    """The state at each global version (0: the first state)."""
    windows: tuple[AroWindow | None, ...]
    """The timed window open in each state."""
    deadlines: tuple[int | None, ...]
    """The deadline the room gave that window (None: none open, or not known)."""
    views: Mapping[str, ViewSteps]


def fold(record: CheckedRecord, timing: Timing) -> Replay:
    """Every state, window and view of the game; ``BadRecord`` when an event does not fold
    (an uploaded record that was changed by hand, or made by another program)."""
    states = [record.first_state]
    for version, event in enumerate(record.events, 1):
        try:
            states.append(engine.apply(states[-1], event))
        except Exception as error:  # whatever an event that does not follow raises
            raise BadRecord(f"event {version} ({record.plains[version - 1]['type']}) does not "
                            f"follow from the events before it: {error!r}") from None
    windows = tuple(_window(states, version) for version in range(len(states)))
    steps = {name: _steps(record, states, timing, name, viewer) for name, viewer in VIEWS.items()}
    for viewer in VIEWS.values():  # every view of the end can be drawn
        _checked(len(record.events), "", partial(views.view_state, states[-1], viewer))
    return Replay(record, timing, tuple(states), windows, _deadlines(windows, timing), steps)


def _window(states: list[GameState], version: int) -> AroWindow | None:
    return _checked(version, "the ARO window", partial(engine.pending_aro_window, states[version]))


def _steps(record: CheckedRecord, states: list[GameState], timing: Timing, name: str,
           viewer: Viewer) -> ViewSteps:
    seen: list[int] = []
    orders = [0]
    events: list[dict[str, Any] | None] = [None]
    for version, (event, plain) in enumerate(zip(record.events, record.plains, strict=True), 1):
        # Judged against the state after its commit, as the room judged it.
        seen_as = _checked(version, f"{name}'s view", partial(
            views.view_event_from_plain, event, plain, viewer,
            states[timing.commit_end[version - 1]]))
        if name == REVEALED:  # every event, with the dice the record has for it
            if seen_as is not None and "dice" in plain:
                seen_as = {**seen_as, "dice": plain["dice"]}
        elif seen_as is None:
            continue  # not in this viewer's sequence
        seen.append(version)
        orders.append(orders[-1] + (plain["type"] == ORDER_STARTED))
        events.append(seen_as)
    return ViewSteps(name, viewer, tuple(seen), tuple(orders), tuple(events),
                     len(record.events))


def _deadlines(windows: tuple[AroWindow | None, ...], timing: Timing) -> tuple[int | None, ...]:
    """Each window's deadline: the timeline stores, with each commit, the deadline of the
    window open after it. A window stays open over consecutive versions; its deadline is
    the one stored with a commit that ended while it was open."""
    deadlines: list[int | None] = [None] * len(windows)
    start = 0
    while start < len(windows):
        window = windows[start]
        end = start
        while end + 1 < len(windows) and window is not None and windows[end + 1] == window:
            end += 1
        if window is not None:
            stored = [timing.window_ms[v - 1] for v in range(max(start, 1), end + 1)
                      if timing.commit_end[v - 1] == v and timing.window_ms[v - 1]]
            if stored:
                deadlines[start:end + 1] = [stored[0]] * (end + 1 - start)
        start = end + 1
    return tuple(deadlines)


def _checked(version: int, what: str, make: Callable[[], T]) -> T:
    """``make()``; what it raises on a state or event the rules core cannot read (an uploaded
    record's) is the record's problem, named by the event it follows."""
    try:
        return make()
    except BadRecord:
        raise
    except Exception as error:
        where = f"after event {version}" if version else "at the start"
        raise BadRecord(f"{what or 'the game'} cannot be read {where}: {error!r}") from None
