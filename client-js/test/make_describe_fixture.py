"""Write client-js/test/fixtures/events.json: real event shapes for the unit tests of
client-js/app/describe.js (the words of the event log and of the results panel).

Each game is a scenario of tests/rules/scenarios (or one written here) played through the
real rules engine; every event is projected for each viewer by ``server.rules.views`` exactly
as the room sends it (``view_event``), with the viewer's snapshot before the first Order
(``view_state``, only the troopers' names kept), so the tests read what a seat or a spectator really receives.

Run from the repository root: ``.venv/bin/python client-js/test/make_describe_fixture.py``.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from server.rules import commands as c  # noqa: E402
from server.rules import engine  # noqa: E402
from server.rules.decision import Accepted  # noqa: E402
from server.rules.combat.dice import inject  # noqa: E402
from server.rules.ids import SPECTATOR, Side  # noqa: E402
from server.rules.views import view_event, view_state  # noqa: E402
from tests.support.scenarios import SCENARIO_DIR, build_state, load_scenario  # noqa: E402

SCENARIOS = (
    "shot_and_counter_shot",
    "dodge",
    "direct_template",
    "comms_attack",
    "guts_roll",
    "coup_de_grace",
    "discover_then_shoot_camouflage",
    "aro_lost_by_not_declaring",
    "zoc_only_dodge_and_reset",
    "sixth_sense",
)

OUT_OF_RANGE: dict[str, Any] = {
    "title": "A BS Attack beyond the weapon's longest range band: no die, automatic failure (DIGEST 5.2)",
    "setup": {
        "ruleset": "n5", "terrain": [],
        "placements": {"A-t7": [2, 2, 45], "B-t3": [46, 46, 225], "A-t1": [1, 47, 270], "B-t1": [47, 1, 90]},
    },
    "steps": [
        {"as": "A", "command": {"type": "activate", "trooper": "A-t7", "order": "regular"}},
        {"as": "A", "command": {"type": "declare_skill", "skill": {
            "type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": "B-t3", "burst": 3}]}}},
        {"as": "B", "command": {"type": "close_aro_window", "order": 1, "step": 1}},
        {"as": "A", "command": {"type": "declare_skill", "skill": {"type": "idle"}}},
        {"as": "B", "command": {"type": "close_aro_window", "order": 1, "step": 2}},
    ],
}

STUN: dict[str, Any] = {
    "title": "The Warden's Stunner (Stun) on an Enforcer: two failed saves make it Stunned, its Guts "
             "Roll fails without a die; ending the turn runs the States Phase, which cancels it",
    "setup": {
        "ruleset": "n5", "terrain": [],
        "placements": {"A-t1": [20, 20, 90], "B-t3": [20, 30, 270], "B-t1": [1, 47, 90]},
    },
    "steps": [
        {"dice": [1, 2, 20, 20]},
        {"as": "A", "command": {"type": "activate", "trooper": "A-t1", "order": "regular"}},
        {"as": "A", "command": {"type": "declare_skill", "skill": {
            "type": "bs_attack", "weapon": "stunner", "targets": [{"trooper": "B-t3", "burst": 2}]}}},
        {"as": "B", "command": {"type": "close_aro_window", "order": 1, "step": 1}},
        {"as": "A", "command": {"type": "declare_skill", "skill": {"type": "idle"}}},
        {"as": "B", "command": {"type": "close_aro_window", "order": 1, "step": 2}},
        {"as": "A", "command": {"type": "end_turn"}},
    ],
}

VIEWERS = {"A": Side.A, "B": Side.B, "spectator": SPECTATOR}


def play(name: str, setup: dict[str, Any], steps: list[dict[str, Any]]) -> dict[str, Any]:
    state = build_state(setup)
    games: dict[str, Any] = {who: {"state": _names_only(view_state(state, viewer)), "events": []}
                             for who, viewer in VIEWERS.items()}
    for step in steps:
        if "dice" in step:
            state = replace(state, dice=inject(state.dice, step["dice"]))
        if "command" not in step or "rejected" in step:
            continue
        actor = engine.SYSTEM if step["as"] == "system" else Side(step["as"])
        decision = engine.decide(state, actor, c.parse_command(step["command"]))
        assert isinstance(decision, Accepted), f"{name}: {step['command']} was refused: {decision}"
        for event in decision.events:
            state = engine.apply(state, event)
            for who, viewer in VIEWERS.items():
                seen = view_event(event, viewer, state)
                if seen is not None:
                    games[who]["events"].append(seen)
    return {"ruleset": setup.get("ruleset", "codeone"), "viewers": games}


def _names_only(state: dict[str, Any]) -> dict[str, Any]:
    """What the words need of a snapshot: who is on the table and what the viewer knows of it."""
    troopers = [{key: t[key] for key in ("id", "side", "marker", "position") if key in t}
                | ({"profile": {"name": t["profile"]["name"]}} if "profile" in t else {})
                for t in state["troopers"]]
    return {"ruleset": state["ruleset"], "troopers": troopers}


def main() -> None:
    fixture: dict[str, Any] = {}
    for name in SCENARIOS:
        scenario = load_scenario(SCENARIO_DIR / f"{name}.json")
        fixture[name] = play(name, dict(scenario.setup), list(scenario.steps))
    fixture["out_of_range"] = play("out_of_range", OUT_OF_RANGE["setup"], OUT_OF_RANGE["steps"])
    fixture["stun"] = play("stun", STUN["setup"], STUN["steps"])
    out = ROOT / "client-js" / "test" / "fixtures" / "events.json"
    out.write_text(json.dumps(fixture, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
