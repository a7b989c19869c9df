"""Properties the random games of ``tests/support/liveness.py`` check at every step.

* No Attack at a Camouflage Marker is offered nor accepted (seeds 000.22 / 003.11; the
  Camouflaged State): an ARO never names a trooper that is a marker at its declaration; the
  active trooper names one only after declaring Discover on it in the same Order (the
  Discover + Attack manoeuvre).
* No two bases on the table overlap, after any event (General Movement Rules; Dodge moves
  in the Effects step, ``resolution._dodge_moves``).

Each check returns what is wrong, as sentences (empty: the property holds).

Not covered by the rules core yet, so a game could still break the second property there:
an enemy moving onto the written-down position of a trooper in Hidden Deployment, which
then reveals itself (the Hidden Deployment rules for that case are not built). The random
games have not met it.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any

from server.rules import commands as c
from server.rules.armies.skills import BsAttack, CcAttack, CommsAttack, Discover, Skill
from server.rules.combat.camouflage import camouflaged
from server.rules.combat.wounds import Condition
from server.rules.ids import TrooperId
from server.rules.state import GameState
from server.rules.table.geometry import point_distance
from server.rules.table.routes import OVERLAP_TOLERANCE


def _discovering(state: GameState) -> set[TrooperId]:
    """Markers the active troopers declared Discover on in this Order."""
    order = state.order
    if order is None:
        return set()
    return {s.target for t in order.activated for s in order.for_trooper(t).skills
            if isinstance(s, Discover)}


def _names(options: Any) -> Iterator[str]:
    """Every trooper id an options map or list names (targets lists, nested maps)."""
    if isinstance(options, dict):
        for value in options.values():
            yield from _names(value)
    elif isinstance(options, list):
        for value in options:
            if isinstance(value, str):
                yield value
            else:
                yield from _names(value)


def _attack_offers(choices: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(who, target) of every Attack the seat's options offer: the active trooper's (and its
    Peripherals', from any firing point) and each reacting trooper's."""
    skills = choices.get("skills")
    if skills:
        for each in (skills, *skills.get("peripherals", {}).values()):
            offers = [each.get("bs_attack", {}), each.get("cc_attack", {}), each.get("comms_attack", {}),
                      [point["bs_attack"] for point in each.get("firing_points", [])]]
            yield from (("active", t) for t in _names(offers))
    for reactor, offer in choices.get("aros", {}).items():
        targets = offer["targets"]
        offers = [targets["bs_attack"], targets["cc_attack"], targets["comms_attack"]]
        yield from ((reactor, t) for t in _names(offers))


def attacks_offered_at_markers(state: GameState, choices: dict[str, Any]) -> list[str]:
    allowed = _discovering(state)
    return [f"{who} is offered an Attack at the Camouflage Marker {target}"
            for who, target in _attack_offers(choices)
            if TrooperId(target) in state.troopers and camouflaged(state, TrooperId(target))
            and not (who == "active" and TrooperId(target) in allowed)]


def _attack_targets(skill: Skill) -> tuple[TrooperId, ...]:
    if isinstance(skill, BsAttack):
        return tuple(a.trooper for a in skill.targets)
    if isinstance(skill, CcAttack | CommsAttack):
        return (skill.target,)
    return ()


def attack_accepted_at_marker(state: GameState, command: c.Command) -> list[str]:
    """``command`` was accepted in ``state``: an Attack it declares at a marker (an ARO's at
    any, the active trooper's at one it is not Discovering) breaks the property."""
    if isinstance(command, c.DeclareAro):
        allowed: set[TrooperId] = set()
        skills = [command.skill]
    elif isinstance(command, c.DeclareSkill):
        allowed = _discovering(state)
        skills = [command.skill, *(p.skill for p in command.peripherals)]
    else:
        return []
    return [f"{type(command).__name__} {skill.TYPE} at the Camouflage Marker {t} was accepted"
            for skill in skills for t in _attack_targets(skill)
            if t in state.troopers and camouflaged(state, t) and t not in allowed]


def overlapping_bases(state: GameState) -> list[str]:
    """Pairs of bases on the table (not hidden, not Null: what blocks movement,
    ``movement_checks.obstacles``) pressing into each other beyond the route tolerance."""
    bodies = [(t.id, t.body()) for t in state.troopers.values()
              if t.position is not None and not t.hidden and t.condition is Condition.NORMAL]
    return [f"the bases of {a} and {b} overlap"
            for (a, one), (b, other) in combinations(bodies, 2)
            if point_distance(one.position, other.position)
            < one.radius + other.radius - OVERLAP_TOLERANCE]
