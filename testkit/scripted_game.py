"""The scripted game every benchmark room plays, planned once with the rules core itself.

All rooms are created with the same ruleset and seed, so the server's game is exactly the
one simulated here: every command of the script is known to be accepted. The script has
two parts: ``setup`` (armies, initiative, deployment -- as tests/support/games.py does it)
and ``orders``, one list of steps per Order: spend the Order, declare a short move, let the
reactive side pass one trooper and close the ARO window (or let the room's clock close it),
declare the move back, and the same for the second ARO window. A step is either a command
from a side or an ARO window that the driver closes one way or the other at run time (both
ways lead to the same state).

Every ARO step of every Order opens a window, even when nobody may react, and no window
closes by itself: the reactive side closes each one (``close_aro_window``) after its pass,
or the room's clock does at the deadline.

``bench.rules_cost`` hashes the rules core's decisions on this game (seed 7: 360 commands,
566 events, ``3bc28eb00d641b67``). The hash covers the repr of every decision, so a field
added to profiles or events changes it without changing the game: it was
``c6c46a8884fb9db9`` until the missions added the Objective Points (``op``) to
``GameEnded``'s result and then ``classified`` to ``GameEnded`` (both empty here, on the
game's last command; the same game). A change of the rules
changes the game and its fingerprint, and figures recorded under another
fingerprint are compared with care (docs/performance.md, "Method"); when and why it changed
is in git's history of this file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Accepted, System
from server.rules.ids import Side
from server.rules.orders.aro_eligibility import seen_by_opponent
from server.rules.orders.order_pool import orders_left
from server.rules.state import GameState, Phase

ARMIES = {Side.A: "helion-c1-patrol", Side.B: "vesper-c1-cell"}
BENCH_ENTROPY = "b3" * 32
"""Each side's contribution to the dice in the scripted games (fixed: the bench replays them)."""
RULESET = "codeone"
TABLE = "sample-open-codeone"
"""The sparse sample layout, named rather than left to defaults: the lobby's default is a
tournament layout, and the bench's figures stay comparable with those made before there
was a choice (docs/performance.md)."""
STEP_INCHES = 0.5  # short enough never to bump into a neighbour on the 2-inch deployment grid


@dataclass(frozen=True, slots=True)
class Send:
    """A command ``body`` sent by ``side`` ("A" or "B")."""

    side: str
    body: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Window:
    """An ARO window (order, step) opened for ``side``; ``trooper`` is one it may pass."""

    side: str
    order: int
    step: int
    trooper: str


Step = Send | Window


@dataclass(frozen=True, slots=True)
class Script:
    seed: int
    setup: tuple[Send, ...]
    orders: tuple[tuple[Step, ...], ...]

    def commands(self, *, clock_closes_windows: bool = False
                 ) -> list[tuple[str | None, dict[str, Any]]]:
        """The whole game as (seat, command body): each window's pass, then its close, sent
        by the reactive seat, or with ``clock_closes_windows`` by the room's clock (None)."""
        out: list[tuple[str | None, dict[str, Any]]] = [(s.side, s.body) for s in self.setup]
        for order in self.orders:
            for step in order:
                if isinstance(step, Send):
                    out.append((step.side, step.body))
                    continue
                if step.trooper:
                    out.append((step.side, {"type": "pass_aro", "trooper": step.trooper}))
                out.append((None if clock_closes_windows else step.side,
                            {"type": "close_aro_window", "order": step.order,
                             "step": step.step}))
        return out


class _Planner:
    def __init__(self, seed: int, ruleset: str, table: str) -> None:
        self.state: GameState = engine.new_game(engine.GameSetup(ruleset=ruleset, seed=seed,
                                                                    table=table))

    def try_play(self, side: Side | System, body: dict[str, Any]) -> bool:
        decision = engine.decide(self.state, side, c.parse_command(body))
        if not isinstance(decision, Accepted):
            return False
        self.state = engine.apply_all(self.state, decision.events)
        return True

    def play(self, side: Side, body: dict[str, Any], out: list[Send]) -> None:
        if not self.try_play(side, body):
            raise RuntimeError(f"script command refused: {side} {body}")
        out.append(Send(side.value, body))


def _setup(planner: _Planner, armies: Mapping[Side, str]) -> list[Send]:
    out: list[Send] = []
    for side in (Side.A, Side.B):
        planner.play(side, {"type": "choose_army", "army": armies[side], "entropy": BENCH_ENTROPY}, out)
    winner = planner.state.initiative.winner
    assert winner is not None
    planner.play(winner, {"type": "choose_initiative", "keep": "initiative",
                          "first": winner is Side.A}, out)
    planner.play(winner.other, {"type": "choose_remaining", "first": winner.other is Side.A,
                                "zone": "north" if winner is Side.A else "south"}, out)
    first = planner.state.initiative.deploys_first
    assert first is not None
    for step, side in enumerate((first, first.other, first, first.other), 1):
        state = planner.state
        facing = 90.0 if state.initiative.zones[side] == "south" else 270.0
        waiting = [t for t in state.troopers_of(side) if t.position is None]
        if step <= 2:  # keep one main trooper (and its peripherals) back for the second step
            reserve = [t for t in waiting if not t.entry.is_peripheral][-1]
            waiting = [t for t in waiting
                       if t.id != reserve.id and t.entry.controller != reserve.entry.id]
        zone = state.deployment_zones[state.initiative.zones[side]]
        spots = _grid(zone.x0, zone.y0, zone.x1, zone.y1)
        for trooper in waiting:
            while True:
                x, y = next(spots)
                body = {"type": "deploy", "trooper": trooper.id, "position": [x, y],
                        "facing": facing}
                if planner.try_play(side, body):
                    out.append(Send(side.value, body))
                    break
        planner.play(side, {"type": "end_deployment_step"}, out)
    return out


def _grid(x0: float, y0: float, x1: float, y1: float) -> Any:
    y = y0 + 1.5
    while y <= y1 - 1.5:
        x = x0 + 1.5
        while x <= x1 - 1.5:
            yield (x, y)
            x += 2.0
        y += 2.0


def _window_step(planner: _Planner, out: list[Step]) -> None:
    """Plan the ARO window the last skill opened (one opens at every ARO step, whoever may
    react): the reactive side passes one eligible model, if there is one, then the window
    is closed -- by the reactive side or by the room's clock, as the driver chooses at run
    time. The plan closes it as the clock: the state after is the same either way."""
    window = engine.pending_aro_window(planner.state)
    if window is None:
        raise RuntimeError("a declared skill opened no ARO window (every ARO step opens one)")
    order = planner.state.order
    assert order is not None
    # A model that may answer: a marker's (or a hidden trooper's) pass is its owner's alone,
    # and the bench's drivers wait for every viewer to hold each command's events.
    trooper = next((str(t) for t in order.unanswered()
                    if seen_by_opponent(planner.state.trooper(t))), "")
    if trooper and not planner.try_play(window.reactive, {"type": "pass_aro", "trooper": trooper}):
        trooper = ""
    if engine.pending_aro_window(planner.state) != window:
        raise RuntimeError("the ARO window closed before the reactive side closed it")
    if not planner.try_play(engine.SYSTEM, {"type": "close_aro_window", "order": window.order,
                                            "step": window.step}):
        raise RuntimeError("the planned ARO window did not close")
    out.append(Window(Side(window.reactive).value, window.order, window.step, trooper))


def _one_order(planner: _Planner, turn_index: int) -> list[Step] | None:
    state = planner.state
    side = state.active
    assert side is not None
    direction = 1.0 if state.initiative.zones[side] == "south" else -1.0
    troopers = [t for t in state.troopers_of(side) if t.on_table and not t.is_null]
    for k in range(len(troopers)):
        trooper = troopers[(turn_index + k) % len(troopers)]
        assert trooper.position is not None
        x, y = trooper.position
        there = [x, y + direction * STEP_INCHES]
        saved = planner.state
        steps: list[Step] = []
        ok = planner.try_play(side, {"type": "activate", "trooper": trooper.id,
                                     "order": "regular"})
        first = {"type": "declare_skill", "skill": {"type": "move", "route": [[x, y], there]}}
        if ok and planner.try_play(side, first):
            steps = [Send(side.value, {"type": "activate", "trooper": trooper.id,
                                       "order": "regular"}), Send(side.value, first)]
            _window_step(planner, steps)
            back = {"type": "declare_skill",
                    "skill": {"type": "move", "route": [there, [x, y]]}}
            if planner.try_play(side, back):
                steps.append(Send(side.value, back))
                _window_step(planner, steps)
                if planner.state.order is None:
                    return steps
        planner.state = saved
    return None


def plan(seed: int = 7, max_orders: int = 400, *, ruleset: str = RULESET, table: str = TABLE,
         armies: Mapping[Side, str] = ARMIES) -> Script:
    """Plan the setup and up to ``max_orders`` Orders (fewer if the game ends first); by
    default the benchmark's game (``RULESET`` on ``TABLE`` with ``ARMIES``), else the same
    steps with another ruleset, table and armies (``bench.abuse``'s flooding rooms)."""
    planner = _Planner(seed, ruleset, table)
    setup = _setup(planner, armies)
    orders: list[tuple[Step, ...]] = []
    index = 0
    while len(orders) < max_orders and planner.state.phase is not Phase.GAME_OVER:
        state = planner.state
        active = state.active
        assert active is not None
        if state.phase is Phase.IMPETUOUS:
            body: dict[str, Any] = {"type": "end_impetuous_phase"}
            planner.play(active, body, [])
            orders.append((Send(active.value, body),))
            continue
        steps = _one_order(planner, index) if orders_left(state.orders) > 0 else None
        index += 1
        if steps is None:
            body = {"type": "end_turn"}
            planner.play(active, body, [])
            orders.append((Send(active.value, body),))
            continue
        orders.append(tuple(steps))
    return Script(seed, tuple(setup), tuple(orders))
