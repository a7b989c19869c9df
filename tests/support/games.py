"""Drive games through the real engine for tests (the benchmark's scripted game is ``testkit.scripted_game``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from server.rules import commands as c
from server.rules import engine
from server.rules.combat.effects import apply_effect
from server.rules.decision import Accepted, Rejected
from server.rules.events import Event, OrderResolved
from server.rules.ids import Side, TrooperId, Viewer
from server.rules.options import seat_options
from server.rules.plain import Plain
from server.rules.state import GameState, Phase
from server.rules.views import view_event

ARMIES = {
    "n5": {Side.A: "helion-vanguard", Side.B: "vesper-raiders"},
    "codeone": {Side.A: "helion-c1-patrol", Side.B: "vesper-c1-cell"},
}


TEST_ENTROPY = "5e" * 32
"""A player's contribution to the dice in scripted games (a real client draws its own)."""


class CommandRejected(AssertionError):
    pass


def play(state: GameState, actor: Side | engine.System, command: c.Command | Plain) -> tuple[GameState, tuple[Event, ...]]:
    """Decide and apply; fail the test on a rejection."""
    if not isinstance(command, c.Command):
        command = c.parse_command(command)
    decision = engine.decide(state, actor, command)
    if isinstance(decision, Rejected):
        raise CommandRejected(f"{command!r} rejected: {decision.code}: {decision.message}")
    assert isinstance(decision, Accepted)
    return engine.apply_all(state, decision.events), decision.events


def decide(state: GameState, side: Side, body: dict[str, Any]) -> Accepted | Rejected:
    """The engine's decision on ``body`` from ``side``, accepted or not (``play`` fails the
    test on a rejection)."""
    decision = engine.decide(state, side, c.parse_command(body))
    assert isinstance(decision, Accepted | Rejected)
    return decision


def fold_effects(state: GameState, effects: Iterable[Any]) -> GameState:
    """``state`` after each of a resolution's effects, in order."""
    for effect in effects:
        state = apply_effect(state, effect)
    return state


def close_aro_window(
    state: GameState, actor: Side | engine.System | None = None
) -> tuple[GameState, tuple[Event, ...]]:
    """Close the open ARO window as its reactive player (``actor`` None), or as ``actor``
    (``engine.SYSTEM``: the room's clock at the deadline). A window never closes by itself,
    even when nobody is eligible or every eligible trooper has answered. Fails the test
    when no window is open."""
    window = engine.pending_aro_window(state)
    if window is None:
        raise CommandRejected("no ARO window is open")
    closer = window.reactive if actor is None else actor
    return play(state, closer, c.CloseAroWindow(window.order, window.step))


def idle_out(state: GameState) -> tuple[GameState, list[Event]]:
    """Run the current Order to its end: the active trooper declares Idle at each of its
    skills and the reactive player closes each ARO window without declaring."""
    produced: list[Event] = []
    while state.order is not None:
        if engine.pending_aro_window(state) is not None:
            state, events = close_aro_window(state)
        else:
            assert state.active is not None
            state, events = play(state, state.active, {"type": "declare_skill", "skill": {"type": "idle"}})
        produced += events
    return state, produced


def shoot_and_resolve(state: GameState, side: Side, shooter: str, weapon: str, target: str,
                      burst: int) -> tuple[GameState, OrderResolved]:
    """``shooter`` spends a Regular Order on a BS Attack with its whole ``burst`` on
    ``target``, then Idle, with no ARO (each window closed as it opens); the state after
    the Order and its resolution."""
    state, _ = play(state, side, {"type": "activate", "trooper": shooter, "order": "regular"})
    shot = {"type": "bs_attack", "weapon": weapon, "targets": [{"trooper": target, "burst": burst}]}
    state, _ = play(state, side, {"type": "declare_skill", "skill": shot})
    state, _ = close_aro_window(state)
    state, _ = play(state, side, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    return state, resolved


def spend_public_orders(
    state: GameState, side: Side, outsiders: Sequence[Viewer],
    seen: Callable[[GameState, Viewer], Plain],
) -> tuple[GameState, list[tuple[str, object]]]:
    """``side`` spends every public Order of its turn on Idle (the first trooper it may
    activate each time, until none may be activated); what each of ``outsiders`` receives
    meanwhile (the events as it sees them, then ``seen`` of the state) and the opponent's
    options after each Order. Two games whose records are equal tell the outsiders nothing
    apart (private Orders). The turn does not end by itself: ``side`` still holds it."""
    received: list[tuple[str, object]] = []
    while state.phase is Phase.ORDERS and state.active is side:
        activations = seat_options(state, side)["activate"]
        if not activations:
            break
        trooper = sorted(activations)[0]
        state, events = play(state, side, {"type": "activate", "trooper": trooper,
                                           "order": activations[trooper][0]})
        state, more = idle_out(state)
        for viewer in outsiders:
            received.append((viewer.value, [view_event(e, viewer, state) for e in (*events, *more)]))
            received.append((viewer.value, seen(state, viewer)))
        received.append(("options", seat_options(state, side.other)))
    return state, received

def deployment_spots(state: GameState, side: Side) -> list[tuple[float, float]]:
    """Grid points inside the side's zone, clear of terrain, 2 inches apart."""
    zone = state.deployment_zones[state.initiative.zones[side]]
    spots = []
    y = zone.y0 + 1.5
    while y <= zone.y1 - 1.5:
        x = zone.x0 + 1.5
        while x <= zone.x1 - 1.5:
            spots.append((x, y))
            x += 2.0
        y += 2.0
    return spots


def deploy_all(state: GameState, side: Side, troopers: Sequence[TrooperId], facing: float) -> GameState:
    spots = iter(deployment_spots(state, side))
    for trooper_id in troopers:
        for spot in spots:
            decision = engine.decide(state, side, c.Deploy(trooper_id, spot, facing))
            if isinstance(decision, Accepted):
                state = engine.apply_all(state, decision.events)
                break
        else:
            raise AssertionError(f"no room to deploy {trooper_id}")
    return state


def new_game_in_deployment(ruleset: str = "codeone", seed: int = 7, dice: Sequence[int] = (),
                           *, a_deploys_first: bool = True) -> GameState:
    """Armies chosen, initiative settled: A plays first, A south; A deploys first unless
    told otherwise. Returns the state at the start of the Deployment Phase."""
    state = engine.new_game(engine.GameSetup(ruleset=ruleset, seed=seed, injected_dice=tuple(dice)))
    for side in (Side.A, Side.B):
        state, _ = play(state, side, c.ChooseArmy(ARMIES[ruleset][side], TEST_ENTROPY))
    winner = state.initiative.winner
    assert winner is not None
    if winner is Side.A:
        state, _ = play(state, Side.A, {"type": "choose_initiative", "keep": "initiative", "first": True})
        state, _ = play(state, Side.B, {"type": "choose_remaining", "first": not a_deploys_first,
                                         "zone": "north"})
    else:
        state, _ = play(state, Side.B, {"type": "choose_initiative", "keep": "initiative", "first": False})
        state, _ = play(state, Side.A, {"type": "choose_remaining", "first": a_deploys_first,
                                         "zone": "south"})
    return state


def new_game_in_orders_phase(ruleset: str = "codeone", seed: int = 7, dice: Sequence[int] = ()) -> GameState:
    """Armies chosen, initiative settled (A plays first, A south), every trooper deployed
    openly in the Order of the rules; returns the state at A's first Orders Phase."""
    state = new_game_in_deployment(ruleset, seed, dice)
    first = state.initiative.deploys_first
    assert first is not None
    order = [first, first.other, first, first.other]
    for step, side in enumerate(order, 1):
        facing = 90.0 if state.initiative.zones[side] == "south" else 270.0
        waiting = [t for t in state.troopers_of(side) if t.position is None]
        if step <= 2:
            mains = [t for t in waiting if not t.entry.is_peripheral]
            reserve = mains[-1]
            waiting = [t for t in waiting if t.id != reserve.id and t.entry.controller != reserve.entry.id]
        state = deploy_all(state, side, [t.id for t in waiting], facing)
        state, _ = play(state, side, c.EndDeploymentStep())
    assert state.phase in (Phase.ORDERS, Phase.IMPETUOUS), state.phase
    return state
