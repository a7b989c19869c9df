"""``apply(state, event)``: fold one event into the next state, by event type."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import events as e
from .armies.army_selection import apply_armies_accepted, apply_army_chosen
from .combat.effects import apply_effect
from .combat.guts_choice import apply_guts_failure_chosen
from .combat.guts_window import (
    apply_conclusion_waits,
    apply_guts_reacted,
    apply_guts_window_opened,
    apply_order_concluded,
)
from .combat.mines import apply_mine_placed, apply_mine_triggered, apply_mines_lost
from .combat.suppressive_fire import after_event as suppressive_fire_after
from .evolve import replace
from .missions.classified import apply_classified_achieved, apply_classified_drawn
from .missions.consoles import apply_objective_activated
from .missions.scoring import apply_objective_points_scored
from .orders.activation import apply_skill_declared
from .orders.airborne import apply_combat_jump_landed, apply_trooper_kept_airborne
from .orders.aro import (
    apply_aro_declared,
    apply_aro_passed,
    apply_aro_window_closed,
    apply_aro_window_opened,
)
from .orders.chain_of_command import apply_chain_of_command_took_over
from .orders.clocks import apply_clock_ran_out, apply_clock_switched, apply_clocks_held
from .orders.command_tokens import apply_command_token_spent
from .orders.command_tokens import apply_turn_started as tokens_at_turn_start
from .orders.deployment import apply_deployment_step_ended, apply_trooper_deployed
from .orders.fireteams import apply_fireteam_activated, apply_fireteam_formed, apply_fireteam_left
from .orders.game_sequence import (
    apply_game_ended,
    apply_loss_of_lieutenant,
    apply_phase_started,
    apply_retreat_declared,
    apply_turn_ended,
    apply_turn_started,
)
from .orders.hidden_deployment import apply_trooper_revealed
from .orders.initiative import apply_initiative_chosen, apply_initiative_rolled, apply_initiative_settled
from .orders.lieutenant import apply_lieutenant_appointed
from .orders.order_pool import apply_order_spent, apply_orders_counted
from .orders.states_phase import apply_states_phase_checked
from .orders.terrain_skill import apply_terrain_type_chosen
from .state import GameState


def _order_spent(state: GameState, event: e.OrderSpent) -> GameState:
    return apply_fireteam_activated(apply_order_spent(state, event), event)


def apply_order_resolved(state: GameState, event: e.OrderResolved) -> GameState:
    for effect in event.outcome.effects:
        state = apply_effect(state, effect)
    if event.conclusion is not None:  # the Conclusion waits on a Guts movement
        return replace(apply_conclusion_waits(state, event), dice=event.dice.settled())
    return replace(state, order=None, dice=event.dice.settled())


def _turn_started(state: GameState, event: e.TurnStarted) -> GameState:
    return tokens_at_turn_start(apply_turn_started(state, event), event)


def _with_dice(fold: Callable[[GameState, Any], GameState]) -> Callable[[GameState, Any], GameState]:
    def folded(state: GameState, event: Any) -> GameState:
        return replace(fold(state, event), dice=event.dice.settled())

    return folded


APPLIERS: dict[type[e.Event], Callable[[GameState, Any], GameState]] = {
    e.ArmyChosen: apply_army_chosen,
    e.ArmiesAccepted: apply_armies_accepted,
    e.LieutenantAppointed: apply_lieutenant_appointed,
    e.InitiativeRolled: apply_initiative_rolled,
    e.InitiativeChosen: apply_initiative_chosen,
    e.InitiativeSettled: apply_initiative_settled,
    e.TrooperDeployed: apply_trooper_deployed,
    e.TerrainTypeChosen: apply_terrain_type_chosen,
    e.InfiltrationRolled: _with_dice(lambda state, _: state),  # trooper_deployed places it
    e.MinePlaced: apply_mine_placed,
    e.MineTriggered: apply_mine_triggered,
    e.MinesLost: apply_mines_lost,
    e.ChainOfCommandTookOver: apply_chain_of_command_took_over,
    e.DeploymentStepEnded: apply_deployment_step_ended,
    e.TurnStarted: _turn_started,
    e.CommandTokenSpent: apply_command_token_spent,
    e.LossOfLieutenant: apply_loss_of_lieutenant,
    e.RetreatDeclared: apply_retreat_declared,
    e.OrdersCounted: apply_orders_counted,
    e.PhaseStarted: apply_phase_started,
    e.OrderSpent: _order_spent,
    e.FireteamFormed: apply_fireteam_formed,
    e.FireteamLeft: apply_fireteam_left,
    e.SkillDeclared: apply_skill_declared,
    e.AroWindowOpened: apply_aro_window_opened,
    e.AroDeclared: apply_aro_declared,
    e.AroPassed: apply_aro_passed,
    e.AroWindowClosed: apply_aro_window_closed,
    e.OrderResolved: apply_order_resolved,
    e.TrooperRevealed: apply_trooper_revealed,
    e.TrooperKeptAirborne: apply_trooper_kept_airborne,
    e.CombatJumpLanded: _with_dice(apply_combat_jump_landed),
    e.StatesPhaseChecked: apply_states_phase_checked,
    e.TurnEnded: apply_turn_ended,
    e.ObjectiveActivated: apply_objective_activated,
    e.ObjectivePointsScored: apply_objective_points_scored,
    e.GameEnded: apply_game_ended,
    e.GutsFailureChosen: apply_guts_failure_chosen,
    e.GutsWindowOpened: apply_guts_window_opened,
    e.GutsReacted: apply_guts_reacted,
    e.OrderConcluded: apply_order_concluded,
    e.SuppressiveFireChanged: lambda state, _: state,  # suppressive_fire_after sets it
    e.ClockSwitched: apply_clock_switched,
    e.ClockRanOut: apply_clock_ran_out,
    e.ClocksHeld: apply_clocks_held,
    # Classified Objectives (missions/classified.py)
    e.ClassifiedDrawn: apply_classified_drawn,
    e.ClassifiedAchieved: apply_classified_achieved,
}


def apply(state: GameState, event: e.Event) -> GameState:
    # Suppressive Fire starts and ends on what the event did (combat/suppressive_fire.py).
    return suppressive_fire_after(APPLIERS[type(event)](state, event), event)
