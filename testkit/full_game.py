"""A whole game with many dice, chosen move by move from the game's own state.

``next_command(state)`` answers the next command of a game that shoots whenever it can:
setup (armies, initiative, deployment), then Orders that each open with a BS Attack, AROs
that shoot back, a failed Guts Roll's default movement, and ``end_turn`` when nobody can
shoot. Every choice is asked of the rules
core first (``engine.decide``), so it does not depend on the dice, on trooper ids or on who
won the initiative: it drives a room whose dice come from a secret it does not know, by
reading the room's state in the test's process. Such a game ends by itself after its last
round (``whole_game`` plays one with the rules core alone).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Accepted
from server.rules.events import Event
from server.rules.ids import Side
from server.rules.options import seat_options
from server.rules.orders.deployment import deployer
from server.rules.state import GameState, Phase

ARMIES = {
    "n5": {Side.A: "helion-vanguard", Side.B: "vesper-raiders"},
    "codeone": {Side.A: "helion-c1-patrol", Side.B: "vesper-c1-cell"},
}
Move = tuple[Side, dict[str, Any]]


class Stuck(AssertionError):
    """No command this planner knows is accepted now."""


def accepted(state: GameState, side: Side, body: dict[str, Any]) -> bool:
    return isinstance(engine.decide(state, side, c.parse_command(body)), Accepted)


def next_command(state: GameState, entropy: dict[Side, str], ruleset: str) -> Move:
    """The next command of the game (see the module docstring)."""
    for side, body in _candidates(state, entropy, ruleset):
        if accepted(state, side, body):
            return side, body
    raise Stuck(f"nothing to play in phase {state.phase} (order {state.order})")


def _candidates(state: GameState, entropy: dict[Side, str], ruleset: str) -> Iterator[Move]:
    if state.phase is Phase.ARMY_SELECTION:
        for side in Side:
            # a tournament table holds each side to its player's registered army
            army = state.registered_armies.get(side, ARMIES[ruleset][side])
            yield side, {"type": "choose_army", "army": army, "entropy": entropy[side]}
    elif state.phase is Phase.INITIATIVE:
        winner = state.initiative.winner
        assert winner is not None
        yield winner, {"type": "choose_initiative", "keep": "initiative",
                       "first": winner is Side.A}
        yield winner.other, {"type": "choose_remaining", "first": winner.other is Side.A,
                             "zone": "north" if winner is Side.A else "south"}
    elif state.phase is Phase.DEPLOYMENT:
        yield from _deployment(state)
    elif state.active is not None:
        yield from _turn(state, state.active)


def _deployment(state: GameState) -> Iterator[Move]:
    side = deployer(state)
    assert side is not None
    yield side, {"type": "end_deployment_step"}
    zone_name = state.initiative.zones[side]
    zone = state.deployment_zones[zone_name]
    facing = 90.0 if zone_name == "south" else 270.0
    taken = {t.position for t in state.troopers.values() if t.position is not None}
    for trooper in state.troopers_of(side):
        if trooper.position is not None:
            continue
        y = zone.y0 + 1.5
        while y <= zone.y1 - 1.5:
            x = zone.x0 + 1.5
            while x <= zone.x1 - 1.5:
                if (x, y) not in taken:
                    yield side, {"type": "deploy", "trooper": trooper.id, "position": [x, y],
                                 "facing": facing}
                x += 2.0
            y += 2.0


def _turn(state: GameState, active: Side) -> Iterator[Move]:
    if state.order is not None and state.order.guts_window:
        # A failed Guts Roll's owner takes the default movement (options.guts_move).
        for side in Side:
            offer = seat_options(state, side).get("guts_move")
            if offer:
                yield side, {"type": "choose_guts_move", "order": offer["order"],
                             "trooper": offer["trooper"]}
        return
    window = engine.pending_aro_window(state)
    if window is not None:
        reactive = Side(window.reactive)
        for trooper, choices in seat_options(state, reactive)["aros"].items():
            for weapon, targets in choices["targets"]["bs_attack"].items():
                yield reactive, {"type": "declare_aro", "trooper": trooper, "skill": {
                    "type": "bs_attack", "weapon": weapon,
                    "targets": [{"trooper": targets[0], "burst": 1}]}}
        yield reactive, {"type": "close_aro_window", "order": window.order,
                         "step": window.step}
        return
    if state.phase is Phase.IMPETUOUS:
        yield active, {"type": "end_impetuous_phase"}
        return
    options = seat_options(state, active)
    if state.order is not None:
        skills = options["skills"] or {}
        yield from ((active, {"type": "declare_skill", "skill": shot})
                    for shot in _shots(skills.get("bs_attack") or {}))
        yield active, {"type": "declare_skill", "skill": {"type": "idle"}}
        return
    for trooper, kinds in options["activate"].items():
        body = {"type": "activate", "trooper": trooper, "order": kinds[0]}
        decision = engine.decide(state, active, c.parse_command(body))
        if not isinstance(decision, Accepted):
            continue
        activated = engine.apply_all(state, decision.events)
        skills = seat_options(activated, active)["skills"] or {}
        if any(True for _ in _shots(skills.get("bs_attack") or {})):
            yield active, body
    yield active, {"type": "end_turn"}


def _shots(weapons: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for weapon, info in weapons.items():
        burst = 1 if info["template"] else info["burst"]
        for target in info["targets"]:
            yield {"type": "bs_attack", "weapon": weapon,
                   "targets": [{"trooper": target, "burst": burst}]}


def whole_game(ruleset: str, dice_secret: str, entropy: dict[Side, str],
               id_key: str = "1d" * 32) -> tuple[GameState, list[Event]]:
    """Play a game to its end with the rules core alone; the state at the end and every
    event, in order."""
    state = engine.new_game(engine.GameSetup(ruleset=ruleset, dice_secret=dice_secret,
                                             id_key=id_key))
    log: list[Event] = []
    while state.phase is not Phase.GAME_OVER:
        side, body = next_command(state, entropy, ruleset)
        decision = engine.decide(state, side, c.parse_command(body))
        assert isinstance(decision, Accepted)
        log.extend(decision.events)
        state = engine.apply_all(state, decision.events)
    return state, log
