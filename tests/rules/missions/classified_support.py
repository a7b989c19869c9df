"""Helpers of the Classified Objectives tests: a scenario state holding given cards."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from importlib import resources
from typing import Any

from server.rules import engine
from server.rules.events import ClassifiedAchieved, ClassifiedDrawn, Event
from server.rules.ids import Side
from server.rules.missions import mission_catalogue
from server.rules.ruleset import Ruleset
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
    draw = max(len(c) for c in cards.values())
    state = replace(state, mission=mission_catalogue.choose(
        classified_mission(state.ruleset.value, draw, op), state.ruleset))
    for side, ids in cards.items():
        state = engine.apply(state, ClassifiedDrawn(side, tuple(ids), state.dice))
    return state


def classified_mission(ruleset: str, draw: int, op: int = 1) -> dict[str, Any]:
    """A shipped mission of ``ruleset`` whose players draw ``draw`` Classified Objectives
    worth ``op`` each (a whole document, as ``GameSetup.mission`` takes one)."""
    shipped = next(iter(mission_catalogue.missions(Ruleset(ruleset))))
    folder = resources.files("server.rules.data").joinpath("missions")
    document = json.loads(folder.joinpath(f"{shipped.id}.json").read_text(encoding="utf-8"))
    return {**document, "id": f"{shipped.id}-classified-{draw}",
            "classified": {"draw": draw, "op": op}}


def achieved(events: Sequence[Event]) -> list[ClassifiedAchieved]:
    return [e for e in events if isinstance(e, ClassifiedAchieved)]
