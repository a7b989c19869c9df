"""Game Rounds and Player Turns (seed 002): Tactical Phase, Impetuous Phase, Orders Phase,
States Phase, End of Turn; three Game Rounds; victory on points (DIGEST 1.1, 11.5)."""

from __future__ import annotations

from ..combat.dice import dice_reveal
from ..commands import Concede, EndImpetuousPhase, EndTurn
from ..decision import require
from ..events import (
    Event,
    GameEnded,
    LossOfLieutenant,
    PhaseStarted,
    RetreatDeclared,
    TurnEnded,
    TurnStarted,
)
from ..evolve import replace
from ..ids import Side
from ..missions.mission import GAME_END, ROUND_END
from ..missions.scoring import (
    apply_objective_points_scored,
    conceded,
    final_points,
    scored,
    winner_by_points,
)
from ..plain import to_plain
from ..reasons import Reason
from ..ruleset import options
from ..state import GameResult, GameState, OrderCount, Phase
from .airborne import final_victory_points
from .chain_of_command import take_over
from .lieutenant import appoint, lieutenant_at_end_of_turn
from .order_pool import count_orders, orders_left
from .retreat import retreat_threshold


def first_turn(state: GameState) -> TurnStarted:
    first = state.initiative.first_player
    assert first is not None
    return TurnStarted(round=1, turn=1, active=first)


def apply_turn_started(state: GameState, event: TurnStarted) -> GameState:
    troopers = {
        tid: replace(t, failed_discover=frozenset()) if t.failed_discover else t
        for tid, t in state.troopers.items()
    }
    return replace(
        state,
        round=event.round,
        turn=event.turn,
        active=event.active,
        phase=Phase.TACTICAL,
        troopers=troopers,
        orders=OrderCount(),
    )


def victory_points(state: GameState, side: Side) -> int:
    """Army points of own troopers not in a Null state (off-table troopers count)."""
    return sum(t.profile.cost for t in state.troopers_of(side) if not t.is_null)


def tactical_phase(state: GameState) -> list[Event]:
    """The automatic checks at the start of a turn, ending with the Order Count."""
    side = state.active
    assert side is not None
    events: list[Event] = []
    if options(state.ruleset).retreat and side not in state.retreat:
        points = victory_points(state, side)
        threshold = retreat_threshold(state.armies[side].points)
        if points <= threshold:
            events.append(RetreatDeclared(side, points, threshold))
    lieutenant = next((t for t in state.troopers_of(side) if t.entry.lieutenant), None)
    if side not in state.loss_of_lieutenant and (
            lieutenant is None or not lieutenant.can_act or lieutenant.isolated):
        # Retreat! puts the whole army in Loss of Lieutenant: no Chain of Command then.
        successor = None if events else take_over(state, side)
        events.append(successor or LossOfLieutenant(side))
    return events


def apply_retreat_declared(state: GameState, event: RetreatDeclared) -> GameState:
    return replace(
        state,
        retreat=state.retreat | {event.side},
        loss_of_lieutenant=state.loss_of_lieutenant | {event.side},
    )


def apply_loss_of_lieutenant(state: GameState, event: LossOfLieutenant) -> GameState:
    return replace(state, loss_of_lieutenant=state.loss_of_lieutenant | {event.side})


def order_count(state: GameState) -> list[Event]:
    assert state.active is not None
    counted = count_orders(state, state.active)
    phase = Phase.IMPETUOUS if counted.impetuous else Phase.ORDERS
    return [counted, PhaseStarted(phase)]


def apply_phase_started(state: GameState, event: PhaseStarted) -> GameState:
    return replace(state, phase=event.phase)


def decide_end_impetuous_phase(
    state: GameState, side: Side, command: EndImpetuousPhase
) -> list[Event]:
    require(state.active is side, Reason.NOT_YOUR_TURN, "It is not your turn.")
    require(state.phase is Phase.IMPETUOUS, Reason.WRONG_PHASE, "This is not the Impetuous Phase.")
    require(state.order is None, Reason.ORDER_IN_PROGRESS, "Finish the current activation first.")
    return [PhaseStarted(Phase.ORDERS)]


def decide_end_turn(state: GameState, side: Side, command: EndTurn) -> list[Event]:
    require(state.active is side, Reason.NOT_YOUR_TURN, "It is not your turn.")
    require(
        state.phase in (Phase.ORDERS, Phase.IMPETUOUS),
        Reason.WRONG_PHASE,
        "The turn can only end in the Impetuous or Orders Phase.",
    )
    require(state.order is None, Reason.ORDER_IN_PROGRESS, "Finish the current Order first.")
    return [end_turn(state)]


def end_turn(state: GameState) -> PhaseStarted:
    """The end of the Orders Phase, on the Active Player's ``end_turn`` (with Orders left or
    none: the game never ends it by itself when the public Orders run out, see
    ``sequence.py``) or when its chess clock ran out: the States Phase starts (seed 002); its
    checks and the End of the Turn follow (``states_phase_checks`` and ``end_of_turn``, run
    by ``sequence.py``)."""
    return PhaseStarted(Phase.STATES)


def end_of_turn(state: GameState) -> TurnEnded:
    """The End of the Turn, once the States Phase's checks are applied (``sequence.py``):
    unused Order tokens are removed and lost, and a player in Loss of Lieutenant (not in
    Retreat!) has its new Lieutenant take office, whoever it is after those checks."""
    side = state.active
    assert side is not None
    appointed, lieutenant = None, None
    if side in state.loss_of_lieutenant and side not in state.retreat:
        lieutenant = lieutenant_at_end_of_turn(state, side)
        appointed = lieutenant is not None
    return TurnEnded(state.round, state.turn, side, orders_left(state.orders),
                     lieutenant_appointed=appointed, new_lieutenant=lieutenant)


def apply_turn_ended(state: GameState, event: TurnEnded) -> GameState:
    troopers, lost = state.troopers, state.loss_of_lieutenant
    if event.side in state.loss_of_lieutenant and event.side not in state.retreat:
        # A record made before the event said whom (``lieutenant_appointed`` None): the
        # same rule finds whom it appointed.
        lieutenant = (event.new_lieutenant if event.lieutenant_appointed is not None
                      else lieutenant_at_end_of_turn(state, event.side))
        if lieutenant is not None:
            troopers = appoint(state, event.side, lieutenant)
            lost = lost - {event.side}
    choice = {side: t for side, t in state.lieutenant_choice.items() if side is not event.side}
    return replace(state, orders=OrderCount(), troopers=troopers, loss_of_lieutenant=lost,
                   phase=Phase.END_OF_TURN, lieutenant_choice=choice)


def next_turn(state: GameState) -> Event:
    """After End of Turn: the other player's turn, the next Round, or the end of the game."""
    assert state.active is not None
    if state.active in state.retreat:
        return game_over(state, "retreat")
    if state.turn == 1:
        return TurnStarted(state.round, 2, state.active.other)
    if state.round >= last_round(state):
        return game_over(state, "rounds_completed")
    first = state.initiative.first_player
    assert first is not None
    return TurnStarted(state.round + 1, 1, first)


def last_round(state: GameState) -> int:
    """The game's last Game Round: the mission's, or the ruleset's (three)."""
    return state.mission.rounds if state.mission is not None else options(state.ruleset).rounds


def turn_over(state: GameState) -> list[Event]:
    """After End of Turn: on a mission, the objectives scored at the end of the Game Round
    and of the game (``missions/scoring.py``), then ``next_turn``'s event (the game's end
    decided with the OP just scored)."""
    following = next_turn(state)
    if state.mission is None:
        return [following]
    ending = isinstance(following, GameEnded)
    events: list[Event] = []
    for when in ((ROUND_END, GAME_END) if ending else (ROUND_END,) if state.turn == 2 else ()):
        points = scored(state, when)
        if points is not None:
            events.append(points)
            state = apply_objective_points_scored(state, points)
    if ending:
        assert isinstance(following, GameEnded)
        following = game_over(state, following.result.reason)
    return [*events, following]


def game_over(state: GameState, reason: str, loser: Side | None = None) -> GameEnded:
    """The end of the game and its result. Victory Points are the points of each side's
    surviving troopers (DIGEST 11.5; a trooper still in Airborne Deployment never reached
    the table: killed, ``airborne.py``). A side that concedes (``loser``) leaves the battle
    with no survivor: 0 VP, whatever stood on the table, so the result reads as the defeat
    it is and never credits the conceding side with points (docs/rules-decisions/README.md,
    "Victory Points of a concession")."""
    points = {side: final_victory_points(state, side) for side in (Side.A, Side.B)}
    objective_points = final_points(state, loser) if state.mission is not None else {}
    if loser is not None:
        points[loser] = 0
        winner: Side | None = loser.other
    elif state.mission is not None:  # by OP, then VP (missions/scoring.py)
        winner = winner_by_points(objective_points, points)
    elif points[Side.A] == points[Side.B]:
        winner = None
    else:
        winner = Side.A if points[Side.A] > points[Side.B] else Side.B
    revealed = {
        t.id: {"entry": t.entry.id, "name": t.profile.name, "lieutenant": t.entry.lieutenant}
        for t in state.troopers.values()
    }
    return GameEnded(GameResult(winner, points, reason, objective_points), to_plain(revealed),
                     to_plain(dice_reveal(state.dice_source)),
                     classified=dict(state.classified))  # every Classified Objective opens


def decide_concede(state: GameState, side: Side, command: Concede) -> list[Event]:
    require(state.phase is not Phase.GAME_OVER, Reason.GAME_OVER, "The game is over.")
    awarded: list[Event] = []
    points = conceded(state, side)  # on a mission: the other side scores the maximum
    if points is not None:
        awarded.append(points)
        state = apply_objective_points_scored(state, points)
    return [*awarded, game_over(state, "concession", loser=side)]


def apply_game_ended(state: GameState, event: GameEnded) -> GameState:
    return replace(state, phase=Phase.GAME_OVER, result=event.result, order=None, active=None)
