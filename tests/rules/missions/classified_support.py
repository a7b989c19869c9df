"""Helpers of the Classified Objectives tests: a scenario state holding given cards."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from server.rules import engine
from server.rules.events import ClassifiedAchieved, ClassifiedDrawn, Event
from server.rules.ids import Side
from server.rules.state import GameState
from tests.support.scenarios import build_state

A, B = Side.A, Side.B


def holding(cards: Mapping[Side, Sequence[str]], op: int = 1, **setup: Any) -> GameState:
    """A scenario (``build_state``; N5, an open table) at A's first Orders Phase, each side
    holding ``cards`` as if it had drawn them, each achieved card worth ``op``. A's
    Lieutenant stands in a corner unless ``placements`` says otherwise (no Loss of
    Lieutenant: Regular Orders)."""
    placements = {"A-t1": [2, 2, 90], **setup.pop("placements", {})}
    state = build_state({"ruleset": "n5", "terrain": [], "placements": placements, **setup})
    state = replace(state, classified_draw=max(len(c) for c in cards.values()), classified_op=op)
    for side, ids in cards.items():
        state = engine.apply(state, ClassifiedDrawn(side, tuple(ids), state.dice))
    return state


def achieved(events: Sequence[Event]) -> list[ClassifiedAchieved]:
    return [e for e in events if isinstance(e, ClassifiedAchieved)]
