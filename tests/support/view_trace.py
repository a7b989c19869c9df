"""``python -m tests.support.view_trace``: a whole bot-vs-bot game as each viewer receives
it, for the browser client's folds to be checked against (client-js/test/folds.test.js).

Writes one JSON document (to ``--out``, else to stdout): per viewer (seat A, seat B, a spectator, a caster), its view of
the new game (what its first snapshot holds) and, per accepted command, the events it may
see (its own numbering: the events it may not know of are left out, as the room leaves
them out) and its whole view after them (what a snapshot then holds).

The game is ``tests/support/bot_games.py``'s: two sensible bots, by default on a CodeOne
mission whose objectives they score at the ends of rounds."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from server.rules import engine
from server.rules.events import Event
from server.rules.ids import CASTER, SPECTATOR, Side, Viewer
from server.rules.state import GameState
from server.rules.views import view_event, view_state
from tests.support.bot_games import play_bot_game

VIEWERS: dict[str, Viewer] = {"A": Side.A, "B": Side.B, "spectator": SPECTATOR,
                              "caster": CASTER}


def trace(ruleset: str, seed: int, table: str, mission: str,
          armies: tuple[str, str]) -> dict[str, Any]:
    steps: list[tuple[GameState, list[Event]]] = []
    game = play_bot_game(ruleset, seed, table=table, mission=mission, armies=armies,
                         on_accepted=lambda after, events: steps.append((after, events)))
    start = engine.new_game(engine.GameSetup(ruleset=ruleset, seed=seed, table=table,
                                             mission=mission))
    assert game.state.result is not None
    return {name: {"start": view_state(start, viewer),
                   "steps": [{"events": [seen for event in events
                                         if (seen := view_event(event, viewer, after))
                                         is not None],
                              "state": view_state(after, viewer)}
                             for after, events in steps]}
            for name, viewer in VIEWERS.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ruleset", default="codeone")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--table", default="codeone-orbital-medlab")
    parser.add_argument("--mission", default="codeone-cold-storage")
    parser.add_argument("--armies", default="helion-c1-patrol,orrery-c1-veil")
    parser.add_argument("--out", type=Path, help="write the JSON here (default: stdout)")
    args = parser.parse_args()
    first, second = args.armies.split(",")
    traced = trace(args.ruleset, args.seed, args.table, args.mission, (first, second))
    if args.out is None:
        json.dump(traced, sys.stdout, separators=(",", ":"))
    else:
        args.out.write_text(json.dumps(traced, separators=(",", ":")))


if __name__ == "__main__":
    main()
