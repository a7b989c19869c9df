"""Seed 000 "Order Expenditure Sequence", the Requirements check and the ARO Check (issue 19
point 5): a declaration whose Requirement fails at the table is accepted and becomes Idle,
its Order (or ARO) spent; only impossible commands are refused (docs/rules-decisions/README.md,
"Refused or Idle").

Requirements a player learns only by trying: Line of Fire to the target of a BS Attack or a
Discover, a Comms Attack's target inside the Hacking Area, and an ARO's valid situation (the
ARO Check: LoF, ZoC, template, Comms Attack, Hacking Area, Sixth Sense). ``options`` still
offers only what will work, so the client is unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from server.rules import commands as c
from server.rules import engine
from server.rules.armies.weapons import WeaponKind
from server.rules.combat.outcome import BecameIdle
from server.rules.decision import Rejected
from server.rules.events import AroDeclared, Event, OrderResolved, SkillDeclared
from server.rules.ids import SPECTATOR, Side, TrooperId, WeaponId
from server.rules.options import seat_options
from server.rules.state import GameState
from server.rules.views import view_event, view_state
from tests.rules.combat.test_hacking import _camouflaged_hacker_army
from tests.support.games import close_aro_window, play
from tests.support.scenarios import build_state
from tests.support.skirmish import Placement, skirmish

A, B = Side.A, Side.B
MOVER = "A-t5"  # Lancer Line Trooper (line_rifle B3)
AWAY = "B-t4"  # far, facing away: never eligible
GHOST = "B-t2"  # vesper-raiders' Ghost: Hidden Deployment (N5)
TABLE: dict[str, Placement] = {
    MOVER: (22.5, 4.0, 90.0),
    AWAY: (1.5, 30.0, 90.0),
    "A-t1": (3.5, 1.5, 90.0),  # Lieutenants, out of the way
    "B-t1": (3.5, 30.5, 90.0),
}


def _refused(state: GameState, actor: Side, body: Mapping[str, object]) -> str:
    decision = engine.decide(state, actor, c.parse_command(body))
    assert isinstance(decision, Rejected), decision
    return decision.code


def _moved(state: GameState, route: list[list[float]] | None = None,
           skill: str = "move") -> tuple[GameState, tuple[Event, ...]]:
    state, _ = play(state, A, {"type": "activate", "trooper": MOVER, "order": "regular"})
    return play(state, A, {"type": "declare_skill", "skill": {
        "type": skill, "route": route or [[22.5, 4.0], [22.5, 6.0]]}})


def _finish(state: GameState) -> OrderResolved:
    """B closes the first window, A declares Idle, B closes the second: the Order resolves."""
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    return resolved


def _idle(resolved: OrderResolved) -> list[BecameIdle]:
    return [x for x in resolved.outcome.effects if isinstance(x, BecameIdle)]


# --- the ARO Check ------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ["n5", "codeone"])
def test_seed_000_aro_check_fails_an_ineligible_trooper_declares_and_its_aro_is_idle(
        ruleset: str) -> None:
    """Seed 000 step 5 (N5.2 ARO Check; CodeOne: the Resolution's Requirements check): a
    trooper in no valid situation may declare an ARO; it is Idle and its ARO lost."""
    state, _ = _moved(skirmish(TABLE, ruleset=ruleset))
    assert TrooperId(AWAY) not in state.order.eligible  # type: ignore[union-attr]
    assert AWAY not in seat_options(state, B)["aros"]  # options offer what will work
    state, events = play(state, B, {"type": "declare_aro", "trooper": AWAY, "skill": {"type": "dodge"}})
    assert events == (AroDeclared(1, 1, TrooperId(AWAY), events[0].skill, False),)  # type: ignore[attr-defined]
    for viewer in (A, B, SPECTATOR):  # an open declaration: everyone sees it
        assert view_event(events[0], viewer, state) is not None
    # One ARO per trooper per Order: it cannot try again at step 4.
    assert _refused(state, B, {"type": "declare_aro", "trooper": AWAY, "skill": {"type": "reset"}}) \
        == "aro_already_declared"
    resolved = _finish(state)
    assert _idle(resolved) == [BecameIdle(TrooperId(AWAY), "dodge", "aro_not_valid", None, aro=True)]
    assert all(r.trooper != AWAY for r in resolved.outcome.rolls)


def test_seed_000_aro_check_fails_a_bs_attack_aro_spends_nothing_but_the_aro() -> None:
    state, _ = _moved(skirmish(TABLE, ruleset="n5"))
    assert AWAY not in seat_options(state, B)["aros"]
    army = state.armies[B]
    rifle = next(w for w in state.trooper(TrooperId(AWAY)).profile.weapons
                 if army.weapon(WeaponId(w)).kind is WeaponKind.BALLISTIC)
    state, _ = play(state, B, {"type": "declare_aro", "trooper": AWAY, "skill": {
        "type": "bs_attack", "weapon": rifle, "targets": [{"trooper": MOVER, "burst": 1}]}})
    resolved = _finish(state)
    assert _idle(resolved) == [BecameIdle(TrooperId(AWAY), "bs_attack", "aro_not_valid",
                                          TrooperId(MOVER), aro=True)]
    assert resolved.outcome.rolls == () and resolved.outcome.saves == ()


def test_seed_000_aro_check_fails_an_aro_declared_before_the_trooper_became_eligible_is_valid() -> None:
    """The ARO Check asks whether the trooper "has been" in a valid situation in the Order:
    one that declares at step 2 and is brought into LoF by the second skill passes it."""
    table = {**TABLE, "B-t6": (40.0, 7.0, 90.0)}  # faces north: sees the second Move only
    state, _ = _moved(skirmish(table, ruleset="n5"), [[22.5, 4.0], [22.5, 5.0]])
    assert TrooperId("B-t6") not in state.order.eligible  # type: ignore[union-attr]
    state, _ = play(state, B, {"type": "declare_aro", "trooper": "B-t6", "skill": {"type": "dodge"}})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [[22.5, 5.0], [22.5, 9.0]]}})
    assert TrooperId("B-t6") in state.order.eligible  # type: ignore[union-attr]
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    assert _idle(resolved) == []
    assert any(r.trooper == "B-t6" and r.skill == "dodge" for r in resolved.outcome.rolls)


def test_seed_000_aro_check_fails_an_eligible_trooper_that_passed_may_not_declare_later() -> None:
    """A trooper that could declare and did not has lost its ARO (seed 000 step 2): still
    refused, the window told its player it was eligible."""
    table = {**TABLE, "B-t3": (22.5, 28.0, 270.0)}  # sees the Move
    state, _ = _moved(skirmish(table, ruleset="n5"))
    state, _ = play(state, B, {"type": "pass_aro", "trooper": "B-t3"})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    assert _refused(state, B, {"type": "declare_aro", "trooper": "B-t3", "skill": {"type": "dodge"}}) \
        == "not_eligible_for_aro"


def test_seed_000_aro_check_fails_a_hidden_trooper_reveals_itself_and_is_idle() -> None:
    """DIGEST 12: a trooper in Hidden Deployment reveals by declaring an ARO. Declaring is
    the owner's choice, so an ARO that then fails the ARO Check reveals it all the same
    (what it would cost at the table); the opponent learns only what it declared."""
    state, _ = _moved(skirmish({**TABLE, GHOST: (46.0, 46.0, 90.0, "hidden")}, ruleset="n5"))
    assert TrooperId(GHOST) not in state.order.eligible  # type: ignore[union-attr]
    state, events = play(state, B, {"type": "declare_aro", "trooper": GHOST, "skill": {"type": "dodge"}})
    (declared,) = events
    assert isinstance(declared, AroDeclared) and declared.revealed and declared.position == (46.0, 46.0)
    assert not state.trooper(TrooperId(GHOST)).hidden
    seen = view_event(declared, A, state)
    assert seen is not None and seen["trooper"] == GHOST
    resolved = _finish(state)
    assert _idle(resolved) == [BecameIdle(TrooperId(GHOST), "dodge", "aro_not_valid", None, aro=True)]


def test_seed_000_aro_check_fails_a_hidden_trooper_still_may_not_react_to_cautious_movement() -> None:
    """DIGEST 9/12: Hidden Deployment cannot react to Cautious Movement at all; the refusal
    goes to its owner only and says nothing new."""
    state, _ = _moved(skirmish({**TABLE, GHOST: (24.0, 20.0, 270.0, "hidden")}, ruleset="n5"),
                      skill="cautious_move")
    assert _refused(state, B, {"type": "declare_aro", "trooper": GHOST, "skill": {"type": "dodge"}}) \
        == "not_eligible_for_aro"


def _marker_behind_a_wall(mover_at: tuple[int, int]) -> GameState:
    """N5: B's Camouflage Marker (B-t14, the camouflaged hacker army) behind a wall; A's
    A-t3 at ``mover_at`` (facing 90)."""
    wall = {"id": "wall", "polygon": [[12, 30], [14, 30], [14, 46], [12, 46]], "height": 6,
            "gives_cover": True}
    return build_state({"ruleset": "n5", "terrain": [wall],
                        "armies": {"A": "vesper-raiders", "B": _camouflaged_hacker_army()},
                        "placements": {"A-t3": [*mover_at, 90], "B-t14": [10, 38, 90],
                                       "A-t1": [1, 1, 270], "B-t1": [1, 47, 90]}})


def test_seed_000_aro_check_fails_a_camouflage_marker_is_revealed() -> None:
    """A Camouflage Marker behind a wall, far from the Order: its ARO reveals it (as any ARO
    it declares does here) and then fails the ARO Check."""
    marker, mover = "B-t14", "A-t3"
    state = _marker_behind_a_wall((30, 18))
    assert state.trooper(TrooperId(marker)).marker
    state, _ = play(state, A, {"type": "activate", "trooper": mover, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "move", "route": [[30, 18], [30, 19]]}})
    assert TrooperId(marker) not in state.order.eligible  # type: ignore[union-attr]
    state, (declared,) = play(state, B, {"type": "declare_aro", "trooper": marker, "skill": {"type": "dodge"}})
    assert isinstance(declared, AroDeclared) and declared.revealed
    assert not state.trooper(TrooperId(marker)).marker
    # The opponent and spectators learn what their view of the trooper now holds.
    for viewer in (A, SPECTATOR):
        seen = view_event(declared, viewer, state)
        (on_table,) = [t for t in view_state(state, viewer)["troopers"] if t["id"] == marker]
        assert seen is not None and on_table["marker"] is False
        assert (seen["profile"], seen["combat_group"]) == (on_table["profile"], on_table["combat_group"])
    resolved = _finish(state)
    assert _idle(resolved) == [BecameIdle(TrooperId(marker), "dodge", "aro_not_valid", None, aro=True)]


@pytest.mark.parametrize(("body", "code"), [
    ({"type": "declare_aro", "trooper": MOVER, "skill": {"type": "dodge"}}, "not_your_trooper"),
    ({"type": "declare_aro", "trooper": "B-t9", "skill": {"type": "dodge"}}, "trooper_not_on_table"),
    ({"type": "declare_aro", "trooper": "B-nobody", "skill": {"type": "dodge"}}, "unknown_trooper"),
    ({"type": "declare_aro", "trooper": AWAY, "skill": {"type": "idle"}}, "skill_not_allowed"),
    ({"type": "declare_aro", "trooper": AWAY, "skill": {
        "type": "bs_attack", "weapon": "no_such_weapon", "targets": [{"trooper": MOVER, "burst": 1}]}},
     "unknown_weapon"),
])
def test_seed_000_aro_check_fails_impossible_aros_are_still_refused(
        body: Mapping[str, object], code: str) -> None:
    state, _ = _moved(skirmish(TABLE, ruleset="n5"))
    actor = A if code == "not_your_trooper" else B
    if actor is A:
        code = "not_your_turn"  # the active player never declares AROs
    assert _refused(state, actor, body) == code


# --- the active trooper's Requirements ---------------------------------------------------


def test_seed_000_requirement_fails_becomes_idle_bs_attack_without_line_of_fire() -> None:
    """The target is behind the shooter: no Line of Fire. Accepted, the BS Attack is Idle at
    Resolution and the Order is spent; options never offered it."""
    state = skirmish({**TABLE, MOVER: (22.5, 10.0, 90.0), AWAY: (40.0, 2.0, 90.0)})  # CodeOne
    state, _ = play(state, A, {"type": "activate", "trooper": MOVER, "order": "regular"})
    assert AWAY not in str(seat_options(state, A)["skills"]["bs_attack"])
    shot = {"type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": AWAY, "burst": 3}]}
    state, events = play(state, A, {"type": "declare_skill", "skill": shot})
    assert isinstance(events[0], SkillDeclared)
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    assert _idle(resolved) == [BecameIdle(TrooperId(MOVER), "bs_attack", "no_line_of_fire",
                                          TrooperId(AWAY))]
    assert all(r.trooper != MOVER for r in resolved.outcome.rolls)


def test_seed_000_requirement_fails_becomes_idle_comms_attack_outside_the_hacking_area() -> None:
    """DIGEST 10.3/13: the target is outside the Hacker's ZoC and its Repeaters': learned
    only by measuring at Resolution (seed 000 step 6 "measure all ... Zones of Control")."""
    state = build_state({"ruleset": "n5", "terrain": [],
                         "placements": {"A-t14": [10, 10, 90], "A-p1": [30, 30, 90],
                                        "A-t1": [1, 1, 270], "B-t1": [1, 47, 90]}})
    state, _ = play(state, A, {"type": "activate", "trooper": "A-t14", "order": "regular"})
    hack = {"type": "comms_attack", "program": "tracer_ping", "target": "B-t1"}
    assert "B-t1" not in str(seat_options(state, A)["skills"].get("comms_attack"))
    state, events = play(state, A, {"type": "declare_skill", "skill": hack})
    assert isinstance(events[0], SkillDeclared)
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    assert _idle(resolved) == [BecameIdle(TrooperId("A-t14"), "comms_attack", "outside_hacking_area",
                                          TrooperId("B-t1"))]


def test_seed_000_requirement_fails_impossible_declarations_are_still_refused() -> None:
    """A weapon the trooper does not carry, an own trooper as target: refused, no Idle."""
    state = skirmish({**TABLE, MOVER: (22.5, 10.0, 90.0), AWAY: (40.0, 2.0, 90.0)})  # CodeOne
    state, _ = play(state, A, {"type": "activate", "trooper": MOVER, "order": "regular"})
    assert _refused(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "no_such_weapon", "targets": [{"trooper": AWAY, "burst": 3}]}}) \
        == "unknown_weapon"
    assert _refused(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": "A-t1", "burst": 3}]}}) \
        == "bad_target"


def test_seed_000_requirement_fails_becomes_idle_aro_comms_attack_outside_the_hacking_area() -> None:
    """An eligible Hacker (a marker: 360 degree LoF) reacts with a Comms Attack on a trooper
    that never entered its Hacking Area: accepted, Idle at Resolution, the ARO lost."""
    marker, mover = "B-t14", "A-t3"
    state = build_state({"ruleset": "n5", "terrain": [],
                         "armies": {"A": "vesper-raiders", "B": _camouflaged_hacker_army()},
                         "placements": {mover: [30, 18, 90], marker: [30, 40, 270],
                                        "A-t1": [1, 1, 270], "B-t1": [1, 47, 90]}})
    state, _ = play(state, A, {"type": "activate", "trooper": mover, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "move", "route": [[30, 18], [30, 19]]}})
    assert state.order is not None and state.order.eligible[TrooperId(marker)].line_of_fire
    assert seat_options(state, B)["aros"][marker]["comms_attack"] == []  # not offered
    state, _ = play(state, B, {"type": "declare_aro", "trooper": marker, "skill": {
        "type": "comms_attack", "program": "tracer_ping", "target": mover}})
    resolved = _finish(state)
    assert _idle(resolved) == [BecameIdle(TrooperId(marker), "comms_attack", "outside_hacking_area",
                                          TrooperId(mover), aro=True)]


# --- a Direct Template's reach, base contact, the ZoC-only ARO (measured at Resolution) -------

HOSE, GANGER = "A-t5", "B-t7"  # vesper-raiders' Scorch Hose (large teardrop, 10 inches)


def _weapon_of(state: GameState, trooper: str, kind: WeaponKind) -> str:
    army = state.armies[state.trooper(TrooperId(trooper)).side]
    return next(w for w in state.trooper(TrooperId(trooper)).profile.weapons
                if army.weapon(WeaponId(w)).kind is kind)


def _hose_state(ruleset: str, placements: Mapping[str, list[float]]) -> GameState:
    army = "vesper-raiders" if ruleset == "n5" else "vesper-c1-cell"
    return build_state({"ruleset": ruleset, "terrain": [], "armies": {"A": army},
                        "placements": {**placements, "A-t1": [1, 1, 270], "B-t1": [46, 46, 90]}})


def _hose(*targets: str) -> dict[str, object]:
    return {"type": "bs_attack", "weapon": "scorch_hose",
            "targets": [{"trooper": t, "burst": 1} for t in targets]}


@pytest.mark.parametrize("ruleset", ["n5", "codeone"])
def test_seed_000_requirement_fails_becomes_idle_direct_template_beyond_its_reach(ruleset: str) -> None:
    """A Scorch Hose (10 inches) at a trooper 13 inches away, edge to edge: accepted (it was
    refused `out_of_range`), not offered, and Idle at Resolution ("measure all distances"):
    no hit, no save, and the target was not under the template, so it was not eligible."""
    state = _hose_state(ruleset, {HOSE: [20, 10, 90], GANGER: [20, 24.2, 90]})
    state, _ = play(state, A, {"type": "activate", "trooper": HOSE, "order": "regular"})
    assert GANGER not in str(seat_options(state, A)["skills"]["bs_attack"].get("scorch_hose"))
    state, events = play(state, A, {"type": "declare_skill", "skill": _hose(GANGER)})
    assert isinstance(events[0], SkillDeclared)
    assert TrooperId(GANGER) not in state.order.eligible  # type: ignore[union-attr]
    resolved = _finish(state)
    assert _idle(resolved) == [BecameIdle(TrooperId(HOSE), "bs_attack", "beyond_template_reach",
                                          TrooperId(GANGER))]
    assert resolved.outcome.saves == ()


def test_seed_000_requirement_fails_direct_template_main_target_beyond_reach_affects_no_one() -> None:
    """The template is aimed at its Main Target (GANGER, beyond reach): the attack fails, and
    B-t3, under the teardrop on the way, is neither hit nor eligible through it (N5: a Main
    Target outside the Area of Effect, no one affected). A Burst 1 template names one
    target (two were each hit: the teardrop is not a circle round the shooter)."""
    near = "B-t3"
    state = _hose_state("n5", {HOSE: [20, 10, 90], GANGER: [20, 24.2, 90], near: [20.5, 16, 90]})
    state, _ = play(state, A, {"type": "activate", "trooper": HOSE, "order": "regular"})
    assert _refused(state, A, {"type": "declare_skill", "skill": _hose(GANGER, near)}) == "bad_burst"
    state, _ = play(state, A, {"type": "declare_skill", "skill": _hose(GANGER)})
    assert not state.order.eligible[TrooperId(near)].template  # type: ignore[union-attr]
    resolved = _finish(state)
    assert _idle(resolved) == [BecameIdle(TrooperId(HOSE), "bs_attack", "beyond_template_reach",
                                          TrooperId(GANGER))]
    assert resolved.outcome.saves == ()


CHARGER = "A-t7"  # Lancer Line Trooper (combat_knife), N5 and CodeOne


def _charge(ruleset: str, end_y: float) -> OrderResolved:
    """A-t7 Moves from y=5 towards B-t3 (base at y=9) to ``end_y``, then CC Attacks it."""
    state = skirmish({**TABLE, CHARGER: (12.0, 5.0, 90.0), "B-t3": (12.0, 9.0, 270.0)},
                     ruleset=ruleset)
    state, _ = play(state, A, {"type": "activate", "trooper": CHARGER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [[12.0, 5.0], [12.0, end_y]]}})
    state, _ = close_aro_window(state)
    offered = str(seat_options(state, A)["skills"]["cc_attack"])
    state, events = play(state, A, {"type": "declare_skill", "skill": {
        "type": "cc_attack", "weapon": "combat_knife", "target": "B-t3"}})
    assert isinstance(events[0], SkillDeclared)
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    assert ("B-t3" in offered) == (_idle(resolved) == [])  # options offer what will work
    return resolved


@pytest.mark.parametrize("ruleset", ["n5", "codeone"])
def test_seed_000_requirement_fails_becomes_idle_cc_attack_where_the_move_ends_out_of_contact(
        ruleset: str) -> None:
    """Move + CC Attack whose Move ends an inch short of base contact: accepted (it was
    refused `not_in_base_contact`), not offered, Idle at Resolution, the Order spent."""
    resolved = _charge(ruleset, 7.0)
    assert _idle(resolved) == [BecameIdle(TrooperId(CHARGER), "cc_attack", "not_in_base_contact",
                                          TrooperId("B-t3"))]
    assert all(r.trooper != CHARGER for r in resolved.outcome.rolls)


def test_seed_000_requirement_fails_becomes_idle_cc_attack_in_contact_is_rolled() -> None:
    """Control: the same Move ending in base contact: the CC Attack is rolled."""
    resolved = _charge("n5", 9.0 - 2 * 0.4921259842519685)
    assert _idle(resolved) == []
    assert [r.skill for r in resolved.outcome.rolls if r.trooper == CHARGER][:1] == ["cc_attack"]


def test_seed_000_aro_check_fails_a_cc_attack_aro_out_of_contact() -> None:
    """A reactive trooper declares a CC Attack on a mover that never touches its base:
    accepted, not offered, Idle at Resolution, its ARO lost."""
    table = {**TABLE, "B-t3": (22.5, 12.0, 270.0)}  # sees the Move, 6 inches away
    state, _ = _moved(skirmish(table, ruleset="n5"))
    assert seat_options(state, B)["aros"]["B-t3"]["cc_attack"] == []
    state, _ = play(state, B, {"type": "declare_aro", "trooper": "B-t3", "skill": {
        "type": "cc_attack", "weapon": _weapon_of(state, "B-t3", WeaponKind.CLOSE_COMBAT),
        "target": MOVER}})
    resolved = _finish(state)
    assert _idle(resolved) == [BecameIdle(TrooperId("B-t3"), "cc_attack", "not_in_base_contact",
                                          TrooperId(MOVER), aro=True)]


@pytest.mark.parametrize("ruleset", ["n5", "codeone"])
def test_seed_000_aro_check_fails_zoc_only_bs_attack_is_idle(ruleset: str) -> None:
    """DIGEST 6.1: from ZoC without LoF only Dodge or Reset. A BS Attack declared all the
    same is accepted (it was refused `zoc_only_dodge_or_reset`: a free probe of LoF), not
    offered, and Idle: N5's ARO Check, CodeOne's Requirements check at Resolution."""
    table = {**TABLE, "B-t6": (20.0, 12.0, 90.0)}  # faces away, 6 inches from the route
    state, _ = _moved(skirmish(table, ruleset=ruleset), [[22.5, 4.0], [22.5, 7.0]])
    why = state.order.eligible[TrooperId("B-t6")]  # type: ignore[union-attr]
    assert why.zone_of_control and not why.line_of_fire
    offered = seat_options(state, B)["aros"]["B-t6"]
    assert offered["bs_attack"] == [] and offered["dodge"]
    state, events = play(state, B, {"type": "declare_aro", "trooper": "B-t6", "skill": {
        "type": "bs_attack", "weapon": _weapon_of(state, "B-t6", WeaponKind.BALLISTIC),
        "targets": [{"trooper": MOVER, "burst": 1}]}})
    assert isinstance(events[0], AroDeclared)
    assert _refused(state, B, {"type": "declare_aro", "trooper": "B-t6", "skill": {"type": "dodge"}}) \
        == "aro_already_declared"  # the ARO is spent
    resolved = _finish(state)
    assert _idle(resolved) == [BecameIdle(TrooperId("B-t6"), "bs_attack", "zone_of_control_only",
                                          TrooperId(MOVER), aro=True)]
    assert all(r.trooper != "B-t6" for r in resolved.outcome.rolls)


def test_seed_000_aro_check_fails_zoc_only_unless_the_second_skill_brings_line_of_fire() -> None:
    """The ARO Check asks whether the trooper "has been" in a valid situation: eligible by
    ZoC alone at step 2, it declares a BS Attack; the second Move walks into its LoF, so the
    shot is valid and resolves (taken at a point where it sees the mover)."""
    table = {**TABLE, "B-t6": (20.0, 12.0, 90.0)}  # faces north: sees y > 12 only
    state, _ = _moved(skirmish(table, ruleset="n5"), [[22.5, 4.0], [22.5, 9.0]])
    state, _ = play(state, B, {"type": "declare_aro", "trooper": "B-t6", "skill": {
        "type": "bs_attack", "weapon": _weapon_of(state, "B-t6", WeaponKind.BALLISTIC),
        "targets": [{"trooper": MOVER, "burst": 1}]}})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [[22.5, 9.0], [22.5, 13.0]]}})
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    assert _idle(resolved) == []
    assert [r.skill for r in resolved.outcome.rolls if r.trooper == "B-t6"] == ["bs_attack"]


def test_seed_000_aro_check_fails_zoc_only_camouflage_marker_reveals_itself() -> None:
    """What the player pays: a Camouflage Marker behind a wall with the mover in its ZoC
    (and Hacking Area) declares a BS Attack: it is revealed at declaration (an Attack reveals
    a marker, DIGEST 12) and the shot is Idle; its ARO is spent."""
    marker, mover = "B-t14", "A-t3"
    state = _marker_behind_a_wall((17, 33))
    state, _ = play(state, A, {"type": "activate", "trooper": mover, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "move", "route": [[17, 33], [17, 34]]}})
    why = state.order.eligible[TrooperId(marker)]  # type: ignore[union-attr]
    assert why.zone_of_control and not why.line_of_fire
    state, (declared,) = play(state, B, {"type": "declare_aro", "trooper": marker, "skill": {
        "type": "bs_attack", "weapon": "sidearm", "targets": [{"trooper": mover, "burst": 1}]}})
    assert isinstance(declared, AroDeclared) and declared.revealed
    assert not state.trooper(TrooperId(marker)).marker
    resolved = _finish(state)
    assert _idle(resolved) == [BecameIdle(TrooperId(marker), "bs_attack", "zone_of_control_only",
                                          TrooperId(mover), aro=True)]
