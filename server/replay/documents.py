"""The JSON answers of a replay (docs/replays.md): the game with one view's steps (each with
its event), and one step's state, event, ARO window and chess clocks, as that viewer's
frames carried them.

A step's window and clocks are made as the live frames make theirs (``window_fields``,
``clocks_fields``) at the step's time: when its event was committed, so the window's
``remaining_ms`` and the clocks are what the viewer was sent with it. Where the time is not
known (an uploaded record), the window's ``deadline_ms`` and ``remaining_ms`` are null and
the clocks are read as of their last switch.
"""

from __future__ import annotations

from typing import Any

from protocol.messages import window_fields
from server.replay.fold import Replay, ViewSteps
from server.rules import engine, views

REPLAY_FORMAT = "infinity-referee-replay/1"
"""Bumped whenever a field changes meaning or goes away (docs/replays.md)."""


def replay_document(replay: Replay, view: str) -> dict[str, Any]:
    """The game and every step of ``view`` (a name of ``fold.VIEWS``)."""
    record = replay.record
    steps = replay.views[view]
    return {
        "format": REPLAY_FORMAT,
        "room": record.room,
        "view": view,
        "settings": record.settings,
        "armies": record.armies,
        "result": record.result,
        "dice": record.dice,
        "steps": [_step(replay, steps, index) for index in range(len(steps))],
    }


def _step(replay: Replay, steps: ViewSteps, index: int) -> dict[str, Any]:
    state = replay.states[steps.state_at(index)]
    event_at = steps.event_at(index)
    return {
        "index": index,
        "version": index,  # each event of the view is one version of its own numbering
        "type": replay.record.plains[event_at - 1]["type"] if event_at else None,
        "round": state.round,
        "turn": state.turn,
        "active": state.active.value if state.active is not None else None,
        "order": steps.orders[index] or None,
        "at_ms": replay.timing.at_ms(event_at),
        "text": None,
        # The step's event as the viewer received it (as its state answer has it): the
        # viewer builds its log from the listing, without a request per step.
        "event": steps.events[index],
    }


def step_document(replay: Replay, view: str, index: int) -> dict[str, Any]:
    """Step ``index`` (0 <= index < the view's step count) of ``view``."""
    steps = replay.views[view]
    at = steps.state_at(index)
    state = replay.states[at]
    event_at = steps.event_at(index)
    at_ms = replay.timing.at_ms(event_at)
    return {
        "index": index,
        "version": index,
        "state": views.view_state(state, steps.viewer),
        "event": steps.events[index],
        "window": _window(replay, at, at_ms),
        "clocks": _clocks(replay, at, at_ms),
    }


def _window(replay: Replay, at: int, at_ms: int | None) -> dict[str, Any] | None:
    window = replay.windows[at]
    if window is None:
        return None
    deadline = replay.deadlines[at]
    if deadline is not None and at_ms is not None:
        return window_fields(window.order, window.step, window.reactive.value, deadline,
                             max(0, deadline - at_ms), window.guts)
    fields: dict[str, Any] = {"order": window.order, "step": window.step,
                              "reactive": window.reactive.value, "deadline_ms": deadline,
                              "remaining_ms": None}
    if window.guts is not None:
        fields["guts"] = window.guts
    return fields


def _clocks(replay: Replay, at: int, at_ms: int | None) -> dict[str, Any] | None:
    state = replay.states[at]
    if state.clocks is None:
        return None
    return engine.clocks_fields(state, state.clocks.since_ms if at_ms is None else at_ms)
