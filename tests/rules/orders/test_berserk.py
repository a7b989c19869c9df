"""Berserk (infinitythewiki "Berserk", N5; ``orders/berserk.py``): one Entire Order that moves
the trooper, both MOV values added, into Silhouette contact with its target, then attacks it
in CC with the MOD in brackets; an Idle (no move, no attack) when it cannot reach. The page's
cases, played through the engine: reaching contact beyond the first MOV value, failing to
reach, the MOD, the AROs along the route, and ``options`` offering it only when it works.
DIGEST 4.2 classes it a Long Skill (an Entire Order here); DIGEST 7.4 gives the Normal Roll
instead of the Face to Face Roll to N3/N4 only, so N5's target answers Face to Face; DIGEST 8
lets an Engaged trooper declare it.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.rules import commands as c
from server.rules import engine
from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
from server.rules.armies.not_refereed import ItemKind
from server.rules.combat.outcome import BecameIdle
from server.rules.combat.rolls import Mod
from server.rules.decision import Rejected
from server.rules.events import OrderResolved, SkillDeclared
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import GameState
from tests.rules.combat.fighting_builders import with_skills
from tests.support.games import close_aro_window, play
from tests.support.skirmish import Placement, skirmish

A, B = Side.A, Side.B
BERSERKER = "A-t7"  # Lancer Line Trooper, MOV 4-4, CC 13, combat_knife
TARGET = "B-t3"  # Syndicate Enforcer, CC 14
RADII = 2 * 0.4921259842519685  # two S2 bases: centres this far apart touch
TABLE: dict[str, Placement] = {
    BERSERKER: (12.0, 5.0, 90.0),
    "A-t1": (3.5, 1.5, 90.0),  # Lieutenants, out of the way
    "B-t1": (3.5, 30.5, 90.0),
}


def _game(target_y: float, mod: int = 3, extra: dict[str, Placement] | None = None,
          ruleset: str = "n5") -> GameState:
    """The berserker (Berserk with ``mod``) 12 inches in from the edge, facing its target
    straight ahead at ``target_y``; activated, about to declare."""
    state = skirmish({**TABLE, TARGET: (12.0, target_y, 270.0), **(extra or {})}, ruleset=ruleset)
    berserker = with_skills(state.trooper(TrooperId(BERSERKER)), berserk=True, berserk_mod=mod)
    state = replace(state, troopers={**state.troopers, berserker.id: berserker})
    state, _ = play(state, A, {"type": "activate", "trooper": BERSERKER, "order": "regular"})
    return state


def _berserk(target_y: float) -> dict[str, object]:
    """Straight at the target, to where the bases touch."""
    return {"type": "berserk", "weapon": "combat_knife", "target": TARGET,
            "route": [[12.0, 5.0], [12.0, target_y - RADII]]}


def _resolve(state: GameState) -> OrderResolved:
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    return resolved


def test_reaches_contact_with_both_mov_values_added_and_attacks_with_its_mod() -> None:
    """7 inches to contact: more than the first MOV value (4), within both added (8). The
    trooper ends in contact and its CC Attack takes the +3 in brackets: 13 + 3 = 16."""
    state = _game(13.0)
    state, events = play(state, A, {"type": "declare_skill", "skill": _berserk(13.0)})
    assert isinstance(events[0], SkillDeclared) and events[0].skill.TYPE == "berserk"
    assert state.trooper(TrooperId(BERSERKER)).position == (12.0, 13.0 - RADII)
    assert state.order is not None and len(state.order.path) == 2  # the Move was made
    resolved = _resolve(state)
    (attack,) = [r for r in resolved.outcome.rolls if r.trooper == BERSERKER]
    assert attack.skill == "cc_attack" and attack.target == TARGET
    assert Mod("berserk", 3) in attack.mods and attack.success_value == 16


def test_a_berserk_without_a_mod_rolls_the_plain_cc() -> None:
    state = _game(13.0, mod=0)
    state, _ = play(state, A, {"type": "declare_skill", "skill": _berserk(13.0)})
    (attack,) = [r for r in _resolve(state).outcome.rolls if r.trooper == BERSERKER]
    assert attack.mods == () and attack.success_value == 13


def test_cannot_reach_contact_is_an_idle_it_neither_moves_nor_attacks() -> None:
    """9 inches to contact, beyond both MOV values: the Order is an Idle. The trooper stays
    where it stood, no CC roll is made, and the record says why."""
    state = _game(15.0, extra=WATCHING)
    assert seat_options(state, A)["skills"]["berserk"] == {}  # not offered
    state, _ = play(state, A, {"type": "declare_skill", "skill": _berserk(15.0)})
    assert state.trooper(TrooperId(BERSERKER)).position == (12.0, 5.0)
    assert state.order is not None and TrooperId(WATCHER) not in state.order.eligible  # no route
    resolved = _resolve(state)
    assert [e for e in resolved.outcome.effects if isinstance(e, BecameIdle)] == [
        BecameIdle(TrooperId(BERSERKER), "berserk", "berserk_out_of_reach", TrooperId(TARGET))]
    assert all(r.trooper != BERSERKER for r in resolved.outcome.rolls)


def test_a_route_that_stops_short_of_contact_is_an_idle_too() -> None:
    state = _game(13.0)
    skill = {**_berserk(13.0), "route": [[12.0, 5.0], [12.0, 10.0]]}
    state, _ = play(state, A, {"type": "declare_skill", "skill": skill})
    assert state.trooper(TrooperId(BERSERKER)).position == (12.0, 5.0)
    (idle,) = [e for e in _resolve(state).outcome.effects if isinstance(e, BecameIdle)]
    assert idle.reason == "berserk_out_of_reach"


def test_a_target_out_of_line_of_fire_at_declaration_is_an_idle() -> None:
    """Requirement: the target is in LoF when Berserk is declared. Behind the trooper (it
    faces away) the target is not, though a route reaches it."""
    state = skirmish({**TABLE, BERSERKER: (12.0, 5.0, 270.0), TARGET: (12.0, 9.0, 270.0)},
                     ruleset="n5")
    berserker = with_skills(state.trooper(TrooperId(BERSERKER)), berserk=True)
    state = replace(state, troopers={**state.troopers, berserker.id: berserker})
    state, _ = play(state, A, {"type": "activate", "trooper": BERSERKER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": _berserk(9.0)})
    assert state.trooper(TrooperId(BERSERKER)).position == (12.0, 5.0)
    (idle,) = [e for e in _resolve(state).outcome.effects if isinstance(e, BecameIdle)]
    assert idle.reason == "no_line_of_fire"


WATCHER = "B-t4"
"""Beside the far end of the route, its back to the start and beyond Zone of Control of it:
it sees the Berserker only once it has moved."""
WATCHING: dict[str, Placement] = {WATCHER: (20.0, 11.0, 90.0)}


def test_aros_along_the_route_as_a_moves_are() -> None:
    """The watcher gets an ARO as it would against a Move along the same route; the target,
    charged, may answer with a CC Attack, Face to Face with the Berserker's."""
    state = _game(13.0, extra=WATCHING)
    state, _ = play(state, A, {"type": "declare_skill", "skill": _berserk(13.0)})
    assert state.order is not None
    assert TrooperId(WATCHER) in state.order.eligible and TrooperId(TARGET) in state.order.eligible
    state, _ = play(state, B, {"type": "declare_aro", "trooper": TARGET, "skill": {
        "type": "cc_attack", "weapon": "combat_knife", "target": BERSERKER}})
    resolved = _resolve(state)
    attack = next(r for r in resolved.outcome.rolls if r.trooper == BERSERKER)
    parry = next(r for r in resolved.outcome.rolls if r.trooper == TARGET)
    assert attack.opposed_by and parry.opposed_by  # N5: still a Face to Face Roll


def test_options_offer_it_with_the_route_and_the_final_success_value() -> None:
    state = _game(13.0)
    offered = seat_options(state, A)["skills"]["berserk"]
    (offer,) = offered["combat_knife"].values()
    assert list(offered["combat_knife"]) == [TARGET]
    assert offer["allowance"] == 8.0 and offer["route"][-1] == pytest.approx([12.0, 13.0 - RADII])
    assert offer["attribute"] == "CC" and offer["sv"] == 16
    assert {"source": "berserk", "value": 3} in offer["mods"]
    command = {"type": "berserk", "weapon": "combat_knife", "target": TARGET, "route": offer["route"]}
    play(state, A, {"type": "declare_skill", "skill": command})  # what it offers is accepted


def test_a_trooper_without_berserk_is_refused() -> None:
    state = skirmish({**TABLE, TARGET: (12.0, 13.0, 270.0)}, ruleset="n5")
    state, _ = play(state, A, {"type": "activate", "trooper": BERSERKER, "order": "regular"})
    decision = engine.decide(state, A, c.parse_command(
        {"type": "declare_skill", "skill": _berserk(13.0)}))
    assert isinstance(decision, Rejected) and decision.code == "skill_not_allowed"
    assert seat_options(state, A)["skills"]["berserk"] == {}


def test_a_route_through_a_model_is_refused_as_a_moves_is() -> None:
    state = _game(13.0, extra={"B-t4": (12.0, 8.0, 270.0)})
    decision = engine.decide(state, A, c.parse_command(
        {"type": "declare_skill", "skill": _berserk(13.0)}))
    assert isinstance(decision, Rejected) and decision.code == "bad_route"


@pytest.mark.parametrize(("written", "mod"), [("Berserk", 0), ("Berserk (+3)", 3), ("Berserk (+6)", 6)])
def test_the_data_writes_the_mod_in_brackets(written: str, mod: int) -> None:
    flags = TrooperFlags()
    assert apply_item(DataItem(ItemKind.SKILL, written), flags) is None
    assert flags.fields == {"berserk": True, "berserk_mod": mod}


def test_digest_8_an_engaged_trooper_may_declare_berserk_on_another_enemy() -> None:
    """DIGEST 8, Engaged: in its Active Turn it may declare Berserk (and CC Attack, Dodge,
    Idle, Reset). In contact with one enemy, it charges another within reach."""
    holder = "B-t4"
    state = _game(13.0, extra={holder: (12.0 - RADII, 5.0, 0.0)})
    route = [[12.0, 5.0], [12.0, 13.0 - RADII]]
    state, _ = play(state, A, {"type": "declare_skill", "skill": {**_berserk(13.0), "route": route}})
    assert state.trooper(TrooperId(BERSERKER)).position == (12.0, 13.0 - RADII)


def test_codeone_has_no_berserk() -> None:
    """The wiki's Berserk page (N4): not used in CodeOne."""
    state = _game(13.0, ruleset="codeone")
    decision = engine.decide(state, A, c.parse_command(
        {"type": "declare_skill", "skill": _berserk(13.0)}))
    assert isinstance(decision, Rejected) and decision.code == "not_allowed_by_ruleset"
    assert seat_options(state, A)["skills"]["berserk"] == {}
