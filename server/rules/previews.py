"""What a declaration would resolve as, shown before the player commits to it.

``preview(state, side, command)`` puts a ``declare_skill`` or ``declare_aro`` through the
rules core's own validation, applies the events it produces to a copy of the state, and
asks Resolution's planner (``attacks.plan_declaration``) what it makes of that
declaration as the Order stands: the roll with its attribute, every MOD (range band,
Partial Cover, Mimetism, Targeted, Stunned...) and the final Success Value, a Direct
Template hit, or the Idle it would become and why. Nothing here computes a MOD or a
Requirement itself, so a preview and the Resolution that follows agree on everything
known at declaration; what may still change after it is listed in docs/rules-decisions/README.md
("What options shows of a shot").

The answer uses only what the declaring seat may know: the shooter is its own trooper,
and every fact about the target a MOD reads (position, cover, Targeted, the Mimetism a
Camouflage Marker shows) is open information (``views.py``).
"""

from __future__ import annotations

from . import commands as c
from .apply import apply
from .armies.weapons import WeaponKind, template_length
from .combat.attacks import plan_declaration
from .combat.outcome import BecameIdle
from .combat.plan import Plan, PlannedRoll, TemplateHit
from .combat.rolls import needs_no_roll, total_mod
from .decision import Rejection
from .ids import Side, WeaponId
from .orders.activation import decide_declare_skill
from .orders.aro import decide_declare_aro
from .plain import Plain
from .state import GameState

ROUND_TO = 2
"""Inches are shown to the hundredth."""


def preview(state: GameState, side: Side, command: c.DeclareSkill | c.DeclareAro) -> Plan | None:
    """Resolution's plan for the declared skill, or None if the rules core refuses the
    command. For ``declare_skill`` ``state.order`` is the declaring trooper's own
    projection (``ActiveOrder.for_trooper``), as ``options`` judges it."""
    try:
        if isinstance(command, c.DeclareAro):
            events = decide_declare_aro(state, side, command)
            trooper = command.trooper
        else:
            events = decide_declare_skill(state, side, command)
            assert state.order is not None
            trooper = state.order.trooper
    except Rejection:
        return None
    for event in events:
        state = apply(state, event)
    return plan_declaration(state, trooper, command.skill)


def idle_reason(plan: Plan) -> str | None:
    """The reason the declaration would be Idle at Resolution, or None."""
    return next((e.reason for e in plan.effects if isinstance(e, BecameIdle)), None)


def shown(state: GameState, side: Side, plan: Plan) -> dict[str, Plain] | None:
    """The plain preview of a BS Attack or Discover (``options``; shape in
    docs/rules-commands.md), None when it would be Idle."""
    if idle_reason(plan) is not None:
        return None
    if plan.templates:
        return _template(state, side, plan.templates[0])
    if not plan.rolls:
        return None
    return _roll(plan.rolls[0])


def _template(state: GameState, side: Side, hit: TemplateHit) -> dict[str, Plain]:
    weapon = state.armies[side].weapon(WeaponId(hit.weapon))
    assert weapon.kind is WeaponKind.DIRECT_TEMPLATE and weapon.template is not None
    return {"template": True, "distance": _inches(hit.distance),
            "reach": template_length(weapon.template), "attribute": None, "base": None,
            "mods": [], "net_mod": 0, "sv": None, "burst": 1, "sustained_dice": 0,
            "range": None,
            "automatic_failure": None}


def _roll(roll: PlannedRoll) -> dict[str, Plain]:
    reading = roll.range
    band: Plain = None
    if reading is not None and reading.band is not None:
        band = {"from": reading.band_from, "up_to": reading.band.up_to, "mod": reading.band.mod}
    failure = ("out_of_range" if roll.out_of_range
               else "sv_below_1" if needs_no_roll(roll.success_value) else None)
    return {"template": False,
            "distance": _inches(reading.distance if reading is not None else None),
            "reach": None, "attribute": roll.attribute, "base": roll.base,
            "mods": [{"source": m.source, "value": m.value} for m in roll.mods],
            "net_mod": total_mod(roll.mods), "sv": roll.success_value, "burst": roll.burst,
            "sustained_dice": roll.sustained_dice,
            "range": band, "max_range": reading.max_range if reading is not None else None,
            "automatic_failure": failure}


def _inches(value: float | None) -> float | None:
    return None if value is None else round(value, ROUND_TO)

