"""The Order Count and spending Orders (seeds 002 and 004).

Per Combat Group: one Regular Order into the group's pool for each Regular trooper on the
table (Model or Marker) not in a Null state; one Irregular Order for each such Irregular
trooper, usable by it alone; the Lieutenant Special Order; one Tactical Order per trooper
with Tactical Awareness. Troopers not on the table add nothing to the pools. A trooper in
Hidden Deployment or in Airborne Deployment (not Null, not a Peripheral) brings its own
Order, private to its owner and usable only to reveal it or to enter by Combat Jump
(``OrderCount.hidden``, ``hidden_deployment``, ``airborne``; seeds 002/004, DIGEST 12).
In Loss of Lieutenant every trooper counts as Irregular and there is no Lieutenant Order.
An Isolated trooper brings an Irregular Order and receives no Order from the pool
(``isolated.py``).
"""

from __future__ import annotations

from ..armies.profiles import Training
from ..commands import Activate
from ..decision import require
from ..events import Event, OrdersCounted, OrderSpent
from ..evolve import replace
from ..ids import Side, TrooperId
from ..reasons import Reason
from ..ruleset import options
from ..state import ActiveOrder, GameState, OrderCount, OrderStep, OrderType, Phase, TrooperState
from ..table.geometry import Point
from . import warhorse
from .fireteams import solo_activation
from .named_troopers import own_trooper


def count_orders(state: GameState, side: Side) -> OrdersCounted:
    lost_lieutenant = side in state.loss_of_lieutenant
    pools: dict[int, int] = {}
    irregular: list[TrooperId] = []
    tactical: list[TrooperId] = []
    impetuous: list[TrooperId] = []
    lieutenant: TrooperId | None = None
    hidden: list[TrooperId] = []
    for trooper in state.troopers_of(side):
        off_table = trooper.hidden or trooper.airborne
        if off_table and not trooper.is_null and not trooper.entry.is_peripheral:
            hidden.append(trooper.id)
        if not trooper.can_act or trooper.entry.is_peripheral:
            continue
        profile = trooper.profile
        group = trooper.entry.combat_group
        pools.setdefault(group, 0)
        regular = not lost_lieutenant or warhorse.keeps_regular(profile)
        if profile.training is Training.REGULAR and regular and not trooper.isolated:
            pools[group] += 1
        else:
            irregular.append(trooper.id)
        if trooper.entry.lieutenant and not lost_lieutenant and not trooper.isolated:
            lieutenant = trooper.id
        if profile.tactical_awareness:
            tactical.append(trooper.id)
        if profile.impetuous and options(state.ruleset).impetuous and side not in state.retreat:
            impetuous.append(trooper.id)
    return OrdersCounted(
        side, pools, tuple(sorted(irregular)), tuple(sorted(tactical)), lieutenant, tuple(sorted(impetuous)),
        tuple(sorted(hidden)),
    )


def apply_orders_counted(state: GameState, event: OrdersCounted) -> GameState:
    count = OrderCount(
        pools=dict(event.pools),
        irregular=frozenset(event.irregular),
        tactical=frozenset(event.tactical),
        lieutenant=event.lieutenant,
        impetuous=frozenset(event.impetuous),
        hidden=frozenset(event.hidden),
    )
    return replace(state, orders=count)


def orders_left(count: OrderCount) -> int:
    """The Orders left that both players know of: private Orders (``count.hidden``) are
    left out, so nothing the opponent sees (``turn_ended.unused_orders``) depends on them;
    the Orders Phase does not end by itself when this reaches 0 (``sequence.py``)."""
    return (
        sum(count.pools.values())
        + len(count.irregular)
        + len(count.tactical)
        + (1 if count.lieutenant is not None else 0)
    )


def _acting_trooper(state: GameState, trooper: TrooperState) -> TrooperState:
    """Peripherals act on their Controller's Order: the Controller's Order is the one spent."""
    controller_id = trooper.entry.controller
    if controller_id is None:
        return trooper
    return next(t for t in state.troopers_of(trooper.side) if t.entry.id == controller_id)


def decide_activate(state: GameState, side: Side, command: Activate) -> list[Event]:
    require(state.active is side, Reason.NOT_YOUR_TURN, "Only the active player spends Orders.")
    require(state.order is None, Reason.ORDER_IN_PROGRESS, "Finish the current Order first.")
    trooper = own_trooper(state, side, command.trooper)
    require(not trooper.is_null, Reason.TROOPER_NULL, "That trooper is in a Null state.")
    require(trooper.on_table, Reason.TROOPER_NOT_ON_TABLE, "That trooper is not on the table.")
    owner = _acting_trooper(state, trooper)
    require(not owner.is_null, Reason.TROOPER_NULL, "Its Controller is in a Null state.")
    group = _check_order_source(state, trooper, owner, command)
    _check_peripherals(state, trooper, command.peripherals)
    return [*solo_activation(state, trooper, command.order),  # a member alone leaves its team
            OrderSpent(state.orders_spent + 1, trooper.id, command.order, group, command.peripherals)]


def _check_peripherals(
    state: GameState, controller: TrooperState, peripherals: tuple[TrooperId, ...]
) -> None:
    """A joint activation names Peripherals of the activated Controller, on the table and
    not Null, each once (DIGEST 2: they activate on the Controller's Order)."""
    require(
        len(set(peripherals)) == len(peripherals),
        Reason.ORDER_NOT_FOR_TROOPER,
        "Name each Peripheral once.",
    )
    for peripheral_id in peripherals:
        peripheral = state.troopers.get(peripheral_id)
        require(
            peripheral is not None
            and peripheral.side is controller.side
            and peripheral.entry.controller is not None
            and peripheral.entry.controller == controller.entry.id,
            Reason.ORDER_NOT_FOR_TROOPER,
            f"{peripheral_id} is not a Peripheral of {controller.id}.",
        )
        assert peripheral is not None
        require(not peripheral.is_null, Reason.TROOPER_NULL, f"{peripheral_id} is in a Null state.")
        require(peripheral.on_table, Reason.TROOPER_NOT_ON_TABLE, f"{peripheral_id} is not on the table.")


def _check_order_source(
    state: GameState, trooper: TrooperState, owner: TrooperState, command: Activate
) -> int:
    count, kind = state.orders, command.order
    own_group = owner.entry.combat_group
    if kind is OrderType.IMPETUOUS:
        require(
            state.phase is Phase.IMPETUOUS,
            Reason.WRONG_PHASE,
            "Impetuous activations happen in the Impetuous Phase.",
        )
        require(
            trooper.id in count.impetuous,
            Reason.ORDER_NOT_FOR_TROOPER,
            "That trooper has no Impetuous activation left.",
        )
        return own_group
    require(state.phase is Phase.ORDERS, Reason.WRONG_PHASE, "Orders are spent in the Orders Phase.")
    if kind is OrderType.REGULAR:
        group = command.combat_group if command.combat_group is not None else own_group
        require(
            group == own_group,
            Reason.ORDER_NOT_FOR_TROOPER,
            "A Regular Order only activates troopers of its own Combat Group.",
        )
        require(
            not owner.isolated,
            Reason.ORDER_NOT_FOR_TROOPER,
            f"{owner.id} is Isolated: it receives no Orders from the pool, only its own "
            "Irregular Order.",
        )
        require(
            count.pools.get(group, 0) > 0,
            Reason.NO_ORDER_AVAILABLE,
            f"Combat Group {group} has no Regular Orders left.",
        )
    elif kind is OrderType.IRREGULAR:
        require(
            owner.id in count.irregular,
            Reason.ORDER_NOT_FOR_TROOPER,
            "An Irregular Order only activates the trooper that generated it.",
        )
    elif kind is OrderType.LIEUTENANT:
        require(
            count.lieutenant is not None and count.lieutenant == owner.id,
            Reason.ORDER_NOT_FOR_TROOPER,
            "The Lieutenant Special Order only activates the Lieutenant.",
        )
    elif kind is OrderType.TACTICAL:
        require(
            owner.id in count.tactical,
            Reason.ORDER_NOT_FOR_TROOPER,
            "A Tactical Order only activates the trooper with Tactical Awareness.",
        )
    return own_group


def spend(count: OrderCount, event: OrderSpent, owner: TrooperId) -> OrderCount:
    kind = event.order_type
    if event.private:
        return replace(count, hidden=count.hidden - {event.trooper})
    if kind is OrderType.REGULAR:
        pools = dict(count.pools)
        pools[event.combat_group] -= 1
        return replace(count, pools=pools)
    if kind is OrderType.IRREGULAR:
        return replace(count, irregular=count.irregular - {owner})
    if kind is OrderType.TACTICAL:
        return replace(count, tactical=count.tactical - {owner})
    if kind is OrderType.LIEUTENANT:
        return replace(count, lieutenant=None)
    return replace(count, impetuous=count.impetuous - {event.trooper})


def apply_order_spent(state: GameState, event: OrderSpent) -> GameState:
    trooper = state.troopers[event.trooper]
    owner = _acting_trooper(state, trooper)
    assert trooper.position is not None
    order = ActiveOrder(
        number=event.order,
        trooper=trooper.id,
        order_type=event.order_type,
        combat_group=event.combat_group,
        step=OrderStep.FIRST_SKILL,
        start=trooper.position,
        path=(trooper.position,),
        peripherals=event.peripherals,
        peripheral_paths={p: (_position(state, p),) for p in event.peripherals},
        start_facings={t: state.trooper(t).facing for t in (trooper.id, *event.peripherals)},
    )
    return replace(
        state,
        orders=spend(state.orders, event, owner.id),
        order=order,
        orders_spent=event.order,
    )


def _position(state: GameState, trooper_id: TrooperId) -> Point:
    position = state.trooper(trooper_id).position
    assert position is not None, f"{trooper_id} is not on the table"
    return position
