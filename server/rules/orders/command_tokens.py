"""Command Tokens (DIGEST 3.3; N4/N5, not CodeOne).

Each player holds 4 Command Tokens for the game (the army data has no Lieutenant option
that would add one; docs/rules-decisions/README.md), open information in ``GameState
.command_tokens`` and in every view. Spending one is the ``spend_command_token`` command and
the ``command_token_spent`` event. The uses built:

* Strategic, by the player with the second turn, in the first player's first Player Turn
  right after the Order Count (before its first Order or Impetuous activation; the game
  does not wait for it), each at most once per game:
  ``remove_orders``: 2 Regular Orders leave the opponent's pools (named by the spender),
  only if the opponent's Regular + Irregular + Tactical Orders exceed 10. Troopers not on
  the table (Hidden Deployment, Airborne) added no Orders to the count, so they are left
  out by construction; the Lieutenant Special Order is not part of the sum (DIGEST W6:
  7 + 1 + 1 = 9).
  ``limit_tokens``: the opponent may spend one Command Token in that turn.
  ``suppressive_fire``: one own trooper on the table as a Model (and those of its Peripherals
  that may) enters Suppressive Fire State, as the skill's Activation would put it there
  (``combat/suppressive_fire.py``: an SF weapon, nothing that would cancel it at once).
* Strategic, by the player with the first turn, during its own deployment step (1 or 2):
  ``hold_back``, one extra trooper (with its Peripherals) waits to deploy with the reserve
  in that player's reserve step (``deployment.reserve_count``), once per game, if at least one
  trooper still deploys in the main step.
* Executive (seed 002, Tactical Phase): ``transfer_trooper``, by the Active Player while
  no Order of its turn is spent yet: one own trooper on the table as a Model (not a
  Peripheral) joins another Combat Group of its list that has fewer than 10 members; its
  Peripherals follow it, and its Regular Order, if counted this turn, moves with it.

* Operational: the Coordinated Order (DIGEST 3.4, ``coordinate_order``), in the Active
  Player's Orders Phase: 1 token and 1 Regular Order of their Combat Group activate 2 to 4
  Regular troopers of that group (not Peripherals, Controllers or Isolated troopers), one of
  them the Spearhead. They act as a joint activation does (``ActiveOrder.peripherals`` holds
  the others): each declares the Spearhead's skill, every attack on the same single target;
  a BS Attack's Burst is half the weapon's, rounded up, for the Spearhead and 1 for the
  others (``required_burst``). Each reactive trooper has its one ARO against one activated
  trooper of its choice, as in any joint activation. A CC Attack: every trooper declares it
  on the same target, only the Spearhead rolls, +1 B per other trooper of the Order in base
  contact with the target (``coordinated_cc_burst``).

Not built: the other Operational uses, the "Logistical" Strategic use (its text is not
available: DIGEST 3.3 marks it UNCERTAIN and the official page reached is cut off),
cancelling Possessed (no such State here); see docs/rules-coverage.md and
docs/rules-decisions/README.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..armies.profiles import Training
from ..armies.skills import BsAttack, CcAttack, CommsAttack, Discover, PeripheralSkill, Skill
from ..combat.suppressive_fire import check_may_enter as check_may_enter_suppressive_fire
from ..combat.wounds import Condition
from ..commands import CoordinateOrder, SpendCommandToken
from ..decision import require
from ..events import CommandTokenSpent, Event, OrderSpent, TurnStarted
from ..evolve import replace
from ..ids import Side, TrooperId
from ..reasons import Reason
from ..ruleset import Ruleset, options
from ..state import ActiveOrder, CommandTokens, GameState, OrderCount, OrderType, Phase, TrooperState
from .declarations import coordinated
from .deployment import HOLD_BACK, deployer, placed
from .fireteams import team_of
from .named_troopers import own_trooper

TOKENS_PER_GAME = 4
"""Command Tokens each player holds at the start of an N5 game (DIGEST 3.3)."""
STRATEGIC_REMOVAL_THRESHOLD = 10
"""The opponent needs more than this many Regular + Irregular + Tactical Orders."""
REGULAR_ORDERS_REMOVED = 2
COMBAT_GROUP_MEMBERS = 10
"""A Combat Group holds at most 10 members; Peripherals take no place (DIGEST 3.2)."""

REMOVE_ORDERS = "remove_orders"
LIMIT_TOKENS = "limit_tokens"
TRANSFER_TROOPER = "transfer_trooper"
SUPPRESSIVE_FIRE = "suppressive_fire"
COORDINATED_ORDER = "coordinated_order"
COORDINATED_MAX = 4
"""A Coordinated Order activates up to 4 troopers (DIGEST 3.4)."""
STRATEGIC_USES = (REMOVE_ORDERS, LIMIT_TOKENS, SUPPRESSIVE_FIRE, HOLD_BACK)


def initial_tokens(ruleset: Ruleset) -> CommandTokens:
    """Each player's tokens at the start of a game: none in CodeOne."""
    if not options(ruleset).command_tokens:
        return CommandTokens()
    return CommandTokens(held={Side.A: TOKENS_PER_GAME, Side.B: TOKENS_PER_GAME})


def orders_for_strategic_removal(count: OrderCount) -> int:
    """Regular (every pool), Irregular and Tactical Orders of an Order Count."""
    return sum(count.pools.values()) + len(count.irregular) + len(count.tactical)


def strategic_window(state: GameState, side: Side) -> bool:
    """Whether ``side`` is the second player and its opponent is in its first turn of the
    game with its Orders just counted (no Order spent yet), in a ruleset with Command
    Tokens."""
    opponent = side.other
    return (
        options(state.ruleset).command_tokens
        and state.round == 1
        and state.turn == 1
        and state.active is opponent
        and state.initiative.first_player is opponent
        and state.phase in (Phase.IMPETUOUS, Phase.ORDERS)
        and state.order is None
        and state.orders_spent == 0
    )


def may_remove_two_regular_orders(state: GameState, side: Side) -> bool:
    """Whether the timing and the opponent's Order Count allow ``side`` the Strategic
    "remove 2 Regular Orders" now (DIGEST 3.3): the count exceeds
    ``STRATEGIC_REMOVAL_THRESHOLD``."""
    return (
        strategic_window(state, side)
        and orders_for_strategic_removal(state.orders) > STRATEGIC_REMOVAL_THRESHOLD
    )


def executive_window(state: GameState, side: Side) -> bool:
    """The Active Player's Executive use (seed 002, Tactical Phase): open from its Order
    Count until it spends its first Order or Impetuous activation of the turn."""
    return (
        options(state.ruleset).command_tokens
        and state.active is side
        and state.phase in (Phase.IMPETUOUS, Phase.ORDERS)
        and state.order is None
        and state.orders_spent == state.command_tokens.turn_start_orders
    )


def _members(state: GameState, side: Side, group: int) -> int:
    return sum(1 for t in state.troopers_of(side)
               if t.entry.combat_group == group and not t.entry.is_peripheral)


def decide_spend_command_token(
    state: GameState, side: Side, command: SpendCommandToken
) -> list[Event]:
    require(options(state.ruleset).command_tokens, Reason.NOT_ALLOWED_BY_RULESET,
            "This ruleset has no Command Tokens.")
    tokens = state.command_tokens
    require(state.order is None, Reason.ORDER_IN_PROGRESS, "Finish the current Order first.")
    left = tokens.held.get(side, 0)
    require(left > 0, Reason.NO_COMMAND_TOKEN, "You have no Command Tokens left.")
    require(side not in tokens.limited or tokens.spent_this_turn.get(side, 0) < 1,
            Reason.NO_COMMAND_TOKEN, "You may spend only one Command Token this turn.")
    if command.use == TRANSFER_TROOPER:
        return [_transfer(state, side, command, left - 1)]
    if command.use == HOLD_BACK:
        return [_hold_back(state, side, command, left - 1)]
    require(strategic_window(state, side), Reason.WRONG_PHASE,
            "Strategic uses are made by the second player, in the first player's first turn, "
            "right after its Order Count.")
    require(command.use not in tokens.strategic_used, Reason.COMMAND_TOKEN_USE_UNAVAILABLE,
            "That Strategic use has already been made.")
    if command.use == LIMIT_TOKENS:
        require(not command.combat_groups and command.trooper is None
                and command.combat_group is None, Reason.BAD_COMMAND,
                "Limiting the opponent's Command Tokens takes no other field.")
        return [CommandTokenSpent(side, LIMIT_TOKENS, left - 1)]
    if command.use == SUPPRESSIVE_FIRE:
        return [_suppressive_fire(state, side, command, left - 1)]
    return [_remove_orders(state, side, command, left - 1)]


def _suppressive_fire(state: GameState, side: Side, command: SpendCommandToken,
                      left: int) -> CommandTokenSpent:
    require(command.trooper is not None and command.combat_group is None
            and not command.combat_groups, Reason.BAD_COMMAND,
            "Name the trooper that enters Suppressive Fire.")
    assert command.trooper is not None
    trooper = own_trooper(state, side, command.trooper)
    require(trooper.on_table and not trooper.marker, Reason.TROOPER_NOT_ON_TABLE,
            "Only a trooper on the table as a Model enters Suppressive Fire this way.")
    require(not trooper.suppressive_fire, Reason.COMMAND_TOKEN_USE_UNAVAILABLE,
            "That trooper is already in Suppressive Fire.")
    check_may_enter_suppressive_fire(state, trooper)
    return CommandTokenSpent(side, SUPPRESSIVE_FIRE, left, trooper=trooper.id)


def _hold_back(state: GameState, side: Side, command: SpendCommandToken,
               left: int) -> CommandTokenSpent:
    require(not command.combat_groups and command.trooper is None
            and command.combat_group is None, Reason.BAD_COMMAND,
            "Holding back a trooper takes no other field.")
    require(may_hold_back(state, side), Reason.COMMAND_TOKEN_USE_UNAVAILABLE,
            "The player with the first turn may hold back one extra trooper once, during its "
            "own deployment step, while one more than the reserve is still waiting and at "
            "least one other trooper deploys in that step.")
    return CommandTokenSpent(side, HOLD_BACK, left)


def may_hold_back(state: GameState, side: Side) -> bool:
    """The first player's Strategic hold-back (DIGEST 3.3, 11.1): in its own main deployment
    step, not made yet, with two main troopers still waiting and three or more in the list
    (so one at least deploys in the main step). A trooper kept in Airborne Deployment is
    done with, not waiting: counted (it has no position), it let the hold-back ask for two
    reserves with one left, a step that could neither deploy nor end."""
    if (not options(state.ruleset).command_tokens or HOLD_BACK in state.command_tokens.strategic_used
            or state.initiative.first_player is not side or deployer(state) is not side
            or state.deployment.step > 2):
        return False
    mains = [t for t in state.troopers_of(side) if not t.entry.is_peripheral]
    waiting = [t for t in mains if not placed(t)]
    return len(mains) >= 3 and len(waiting) >= 2


def _remove_orders(state: GameState, side: Side, command: SpendCommandToken,
                   left: int) -> CommandTokenSpent:
    require(command.trooper is None and command.combat_group is None, Reason.BAD_COMMAND,
            "Removing Orders names only the opponent's Combat Groups.")
    count = state.orders
    require(orders_for_strategic_removal(count) > STRATEGIC_REMOVAL_THRESHOLD,
            Reason.COMMAND_TOKEN_USE_UNAVAILABLE,
            "The opponent's Regular, Irregular and Tactical Orders must be more than "
            f"{STRATEGIC_REMOVAL_THRESHOLD}.")
    removable = min(REGULAR_ORDERS_REMOVED, sum(count.pools.values()))
    require(removable > 0, Reason.COMMAND_TOKEN_USE_UNAVAILABLE,
            "The opponent has no Regular Orders to remove.")
    require(len(command.combat_groups) == removable, Reason.BAD_COMMAND,
            f"Name the Combat Group of each of the {removable} Regular Orders to remove.")
    for group in set(command.combat_groups):
        require(count.pools.get(group, 0) >= command.combat_groups.count(group),
                Reason.NO_ORDER_AVAILABLE,
                f"The opponent's Combat Group {group} has not that many Regular Orders.")
    return CommandTokenSpent(side, REMOVE_ORDERS, left, tuple(sorted(command.combat_groups)))


def _transfer(state: GameState, side: Side, command: SpendCommandToken,
              left: int) -> CommandTokenSpent:
    require(executive_window(state, side), Reason.WRONG_PHASE,
            "Executive uses are made by the Active Player before its first Order of the turn.")
    require(command.trooper is not None and command.combat_group is not None
            and not command.combat_groups, Reason.BAD_COMMAND,
            "Name the trooper and the Combat Group it joins.")
    assert command.trooper is not None and command.combat_group is not None
    trooper = own_trooper(state, side, command.trooper)
    require(not trooper.entry.is_peripheral, Reason.COMMAND_TOKEN_USE_UNAVAILABLE,
            "A Peripheral follows its Controller's Combat Group.")
    require(trooper.condition is not Condition.DEAD, Reason.TROOPER_NULL, "That trooper is Dead.")
    require(trooper.on_table and not trooper.marker, Reason.TROOPER_NOT_ON_TABLE,
            "Only a trooper on the table as a Model changes Combat Group.")
    group = command.combat_group
    require(group in state.armies[side].combat_groups() and group != trooper.entry.combat_group,
            Reason.COMMAND_TOKEN_USE_UNAVAILABLE,
            "Name another Combat Group of your list.")
    require(_members(state, side, group) < COMBAT_GROUP_MEMBERS,
            Reason.COMMAND_TOKEN_USE_UNAVAILABLE,
            f"Combat Group {group} already has {COMBAT_GROUP_MEMBERS} members.")
    return CommandTokenSpent(side, TRANSFER_TROOPER, left, trooper=trooper.id, combat_group=group)


def apply_command_token_spent(state: GameState, event: CommandTokenSpent) -> GameState:
    tokens = state.command_tokens
    side = event.side
    tokens = replace(
        tokens,
        held={**tokens.held, side: event.left},
        spent_this_turn={**tokens.spent_this_turn,
                         side: tokens.spent_this_turn.get(side, 0) + 1},
    )
    if event.use in STRATEGIC_USES:
        tokens = replace(tokens, strategic_used=tokens.strategic_used | {event.use})
    if event.use == LIMIT_TOKENS:
        tokens = replace(tokens, limited=tokens.limited | {side.other})
    if event.use == COORDINATED_ORDER:  # the Order spent right after it
        tokens = replace(tokens, coordinated_order=state.orders_spent + 1, spearhead=event.trooper)
    state = replace(state, command_tokens=tokens)
    if event.use == REMOVE_ORDERS:
        pools = dict(state.orders.pools)
        for group in event.combat_groups:
            pools[group] -= 1
        state = replace(state, orders=replace(state.orders, pools=pools))
    elif event.use == TRANSFER_TROOPER:
        assert event.trooper is not None and event.combat_group is not None
        state = _apply_transfer(state, state.trooper(event.trooper), event.combat_group)
    return state


def _apply_transfer(state: GameState, trooper: TrooperState, group: int) -> GameState:
    old = trooper.entry.combat_group
    moved: dict[TrooperId, TrooperState] = {
        t.id: replace(t, entry=replace(t.entry, combat_group=group))
        for t in state.troopers_of(trooper.side)
        if t.id == trooper.id or (t.entry.controller is not None
                                  and t.entry.controller == trooper.entry.id)
    }
    state = replace(state, troopers={**state.troopers, **moved})
    pools = _pools_after_transfer(state, trooper, old, group)
    if pools is not None:
        state = replace(state, orders=replace(state.orders, pools=pools))
    return state


def _pools_after_transfer(state: GameState, trooper: TrooperState, old: int,
                          group: int) -> Mapping[int, int] | None:
    """The Regular Order the trooper added to its old pool this turn goes with it (if the
    pool still holds one); a trooper that added none to the count moves alone."""
    counted = state.orders
    if state.active is not trooper.side or old not in counted.pools:
        return None
    if trooper.id in counted.irregular or not trooper.can_act:
        return None
    pools = dict(counted.pools)
    if pools[old] <= 0:
        return None
    pools[old] -= 1
    pools[group] = pools.get(group, 0) + 1
    return pools


def apply_turn_started(state: GameState, event: TurnStarted) -> GameState:
    """A new Player Turn: no token spent in it yet, no limit, the Executive window opens
    with its Order Count. Applied after ``game_sequence.apply_turn_started``."""
    tokens = state.command_tokens
    if not tokens.held:
        return state
    return replace(state, command_tokens=replace(
        tokens, spent_this_turn={}, limited=frozenset(), turn_start_orders=state.orders_spent))


def _token_left(state: GameState, side: Side) -> int:
    """The tokens ``side`` holds, or the command is refused (none left, or held to one)."""
    tokens = state.command_tokens
    require(options(state.ruleset).command_tokens, Reason.NOT_ALLOWED_BY_RULESET,
            "This ruleset has no Command Tokens.")
    left = tokens.held.get(side, 0)
    require(left > 0, Reason.NO_COMMAND_TOKEN, "You have no Command Tokens left.")
    require(side not in tokens.limited or tokens.spent_this_turn.get(side, 0) < 1,
            Reason.NO_COMMAND_TOKEN, "You may spend only one Command Token this turn.")
    return left


def may_coordinate(state: GameState, trooper: TrooperState) -> bool:
    """Whether the trooper may take part in a Coordinated Order at all: Regular, on the table
    and not Null, not a Peripheral or a Controller, not Isolated (DIGEST 3.4), and its army
    not in Loss of Lieutenant (all its troopers are then Irregular)."""
    army = state.armies[trooper.side]
    return (trooper.can_act and trooper.profile.training is Training.REGULAR
            and not trooper.entry.is_peripheral and not army.peripherals_of(trooper.entry.id)
            and not trooper.isolated and trooper.side not in state.loss_of_lieutenant
            and team_of(state, trooper.id) is None)  # a Fireteam member: never (fireteams.py)


def decide_coordinate_order(state: GameState, side: Side, command: CoordinateOrder) -> list[Event]:
    left = _token_left(state, side)
    require(state.active is side, Reason.NOT_YOUR_TURN, "Only the active player spends Orders.")
    require(state.order is None, Reason.ORDER_IN_PROGRESS, "Finish the current Order first.")
    require(state.phase is Phase.ORDERS, Reason.WRONG_PHASE,
            "A Coordinated Order is spent in the Orders Phase.")
    named = (command.spearhead, *command.troopers)
    require(len(set(named)) == len(named) and 2 <= len(named) <= COORDINATED_MAX,
            Reason.BAD_COMMAND,
            f"Name the Spearhead and 1 to {COORDINATED_MAX - 1} other troopers, each once.")
    spearhead = own_trooper(state, side, command.spearhead)
    group = spearhead.entry.combat_group
    for trooper_id in named:
        trooper = own_trooper(state, side, trooper_id)
        require(trooper.can_act, Reason.TROOPER_NULL if trooper.on_table else Reason.TROOPER_NOT_ON_TABLE,
                f"{trooper_id} cannot act.")
        require(may_coordinate(state, trooper), Reason.COMMAND_TOKEN_USE_UNAVAILABLE,
                f"{trooper_id} may not take part in a Coordinated Order (Regular troopers only; "
                "no Peripheral, Controller or Isolated trooper).")
        require(trooper.entry.combat_group == group, Reason.ORDER_NOT_FOR_TROOPER,
                "Every trooper of a Coordinated Order belongs to the same Combat Group.")
    require(state.orders.pools.get(group, 0) > 0, Reason.NO_ORDER_AVAILABLE,
            f"Combat Group {group} has no Regular Orders left.")
    number = state.orders_spent + 1
    return [CommandTokenSpent(side, COORDINATED_ORDER, left - 1, trooper=spearhead.id,
                              combat_group=group),
            OrderSpent(number, spearhead.id, OrderType.REGULAR, group, command.troopers)]


def _targets(skill: Skill) -> tuple[TrooperId, ...]:
    if isinstance(skill, BsAttack):
        return tuple(a.trooper for a in skill.targets)
    if isinstance(skill, CcAttack | Discover | CommsAttack):
        return (skill.target,)
    return ()


def check_coordinated_skills(state: GameState, order: ActiveOrder, skill: Skill,
                             declared: Sequence[PeripheralSkill]) -> None:
    """In a Coordinated Order every trooper declares the Spearhead's skill (checked with the
    joint activation's) and, if it needs a target, the same single target (a CC Attack too:
    the Spearhead's is the one rolled, ``coordinated_cc_burst``)."""
    if not coordinated(state, order):
        return
    targets = _targets(skill)
    require(len(targets) <= 1, Reason.BAD_TARGET,
            "A Coordinated Order's attack has one single target.")
    for entry in declared:
        if entry.skill.TYPE == "idle" and skill.TYPE != "idle":
            continue  # a participant whose state forbids the skill performs Idle (activation.py)
        require(_targets(entry.skill) == targets, Reason.BAD_TARGET,
                f"{entry.trooper} must declare the same single target as the Spearhead.")
