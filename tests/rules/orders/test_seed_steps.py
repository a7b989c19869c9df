"""Seed steps that were partial for want of a test (docs/rules-coverage.md, "The five seeds,
step by step"): a Camouflage Marker's Order at the Order Count (002.10, 004.7), the CodeOne
ten-trooper pool of ten (004.12), ARO eligibility through a Direct Template alone (000.10),
and a skill turned Idle still generating AROs (000.37, 001.12)."""

from __future__ import annotations

import pytest

from server.rules.combat.outcome import BecameIdle
from server.rules.events import AroWindowOpened, OrderResolved, OrdersCounted
from server.rules.ids import Side, TrooperId, WeaponId
from server.rules.state import Eligibility
from tests.support.games import close_aro_window, play
from tests.support.scenarios import build_state
from tests.support.skirmish import Placement, skirmish

A, B = Side.A, Side.B
T = TrooperId
LIEUTENANTS: dict[str, Placement] = {"A-t1": (2.0, 2.0, 270.0), "B-t1": (2.0, 46.0, 90.0)}


# --- 002.10 / 004.7: "as a Model or Marker" -----------------------------------------------


def test_seed_002_marker_adds_its_order_at_the_order_count() -> None:
    """N5 helion-vanguard A-t3 is a Pathfinder Scout with Camouflage: deployed as a
    Camouflage Marker. The pool with it on the table is one Order more than without it."""
    without = skirmish({**LIEUTENANTS, "A-t7": (6.0, 2.0, 270.0)}, ruleset="n5")
    with_marker = skirmish({**LIEUTENANTS, "A-t7": (6.0, 2.0, 270.0), "A-t3": (10.0, 2.0, 270.0)},
                           ruleset="n5")
    assert with_marker.trooper(T("A-t3")).marker  # on the table as a Marker, not a Model
    assert dict(without.orders.pools) == {1: 2}
    assert dict(with_marker.orders.pools) == {1: 3}


def test_seed_004_marker_contributes_an_order_in_codeone_too() -> None:
    """Seed 004 step 7, CodeOne: helion-c1-patrol A-t2 (Pathfinder, Camouflage) as a Marker."""
    without = skirmish({**LIEUTENANTS, "A-t5": (6.0, 2.0, 270.0)})
    with_marker = skirmish({**LIEUTENANTS, "A-t5": (6.0, 2.0, 270.0), "A-t2": (10.0, 2.0, 270.0)})
    assert with_marker.trooper(T("A-t2")).marker
    assert dict(with_marker.orders.pools) == {1: dict(without.orders.pools)[1] + 1}


# --- 004.12: ten troopers, a pool of ten ----------------------------------------------------


def test_seed_004_codeone_ten_troopers_give_a_pool_of_ten() -> None:
    """Seed 004 step 12's list example: helion-c1-patrol holds ten Regular troopers and a
    Peripheral (the Gnat, p1). All eleven models on the table: a pool of ten Orders."""
    state = skirmish({"B-t1": (2.0, 46.0, 90.0)})
    entries = state.armies[A].entries
    troopers = [e for e in entries if e.controller is None]
    peripherals = [e for e in entries if e.controller is not None]
    assert len(troopers) == 10 and len(peripherals) == 1
    placements: dict[str, Placement] = {
        f"A-{e.id}": (2.0 + 3.0 * i, 3.0, 270.0) for i, e in enumerate(entries)}
    state = skirmish({**placements, "B-t1": (2.0, 46.0, 90.0)})
    on_table = [t for t in state.troopers_of(A) if t.on_table]
    assert len(on_table) == 11  # 11 models: 10 troopers and the Peripheral
    assert dict(state.orders.pools) == {1: 10}
    assert not state.orders.irregular


def test_seed_004_codeone_order_count_event_says_ten() -> None:
    """The same count, as the Order Count's event reports it at the start of a turn."""
    placements: dict[str, Placement] = {
        f"A-{e}": (2.0 + 3.0 * i, 3.0, 270.0)
        for i, e in enumerate(["t1", "t2", "t3", "p1", "t4", "t5", "t6", "t7", "t8", "t9", "t10"])}
    state = skirmish({**placements, "B-t1": (2.0, 46.0, 90.0)}, first=B)
    state, events = play(state, B, {"type": "end_turn"})
    (counted,) = [e for e in events if isinstance(e, OrdersCounted)]
    assert counted.side is A and dict(counted.pools) == {1: 10} and counted.irregular == ()
    assert dict(state.orders.pools) == {1: 10}
    assert state.active is A


# --- 000.10: eligible through a template alone ----------------------------------------------


@pytest.mark.parametrize(("ruleset", "army"), [("n5", "vesper-raiders"), ("codeone", "vesper-c1-cell")])
def test_seed_000_template_alone_makes_a_trooper_eligible(ruleset: str, army: str) -> None:
    """A Scorch Hose (large teardrop, 10 inches) on a trooper 9 inches away (edge to edge:
    outside the 8 inch ZoC) facing away from the shooter (no LoF): eligible, by the template
    alone."""
    hose, target = "A-t5", "B-t7"
    state = build_state({"ruleset": ruleset, "terrain": [], "armies": {"A": army},
                         "placements": {hose: [20, 10, 90], target: [20, 20, 90],
                                        "A-t1": [1, 1, 270], "B-t1": [46, 46, 90]}})
    state, _ = play(state, A, {"type": "activate", "trooper": hose, "order": "regular"})
    state, events = play(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "scorch_hose", "targets": [{"trooper": target, "burst": 1}]}})
    (opened,) = [e for e in events if isinstance(e, AroWindowOpened)]
    why = {e.trooper: e for e in opened.eligible}
    assert why.get(T(target)) == Eligibility(T(target), line_of_fire=False, zone_of_control=False,
                                             template=True)
    assert state.order is not None and T(target) in state.order.eligible


@pytest.mark.parametrize("ruleset", ["n5", "codeone"])
def test_seed_000_template_alone_control_the_same_trooper_not_under_it_is_not_eligible(
        ruleset: str) -> None:
    """Control: the same placement with an Idle instead of the template: no LoF, no ZoC, not
    eligible (so the template is what made it eligible above)."""
    army = "vesper-raiders" if ruleset == "n5" else "vesper-c1-cell"
    hose, target = "A-t5", "B-t7"
    state = build_state({"ruleset": ruleset, "terrain": [], "armies": {"A": army},
                         "placements": {hose: [20, 10, 90], target: [20, 20, 90],
                                        "A-t1": [1, 1, 270], "B-t1": [46, 46, 90]}})
    state, _ = play(state, A, {"type": "activate", "trooper": hose, "order": "regular"})
    state, events = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    (opened,) = [e for e in events if isinstance(e, AroWindowOpened)]
    assert T(target) not in {e.trooper for e in opened.eligible}


# --- 000.37 / 001.12: a skill turned Idle still generates AROs -------------------------------


@pytest.mark.parametrize("ruleset", ["n5", "codeone"])
def test_seed_000_skill_turned_idle_still_generates_aros(ruleset: str) -> None:
    """The active trooper shoots at a trooper behind it (no LoF): the BS Attack is Idle at
    Resolution, but its declaration opened the ARO window, and the Enforcer in front of it
    reacts with a BS Attack that resolves as a Normal Roll (nothing opposes it)."""
    shooter, behind, reactor = "A-t5", "B-t4", "B-t3"
    weapon = "rotary_repeater" if ruleset == "n5" else "line_rifle"
    state = skirmish({shooter: (22.5, 10.0, 90.0), behind: (40.0, 2.0, 270.0),
                      reactor: (22.5, 20.0, 270.0),
                      "A-t1": (3.5, 1.5, 90.0), "B-t1": (3.5, 46.5, 90.0)}, ruleset=ruleset,
                     dice=(1, 10))  # the ARO's die hits; then the shooter's save
    burst = state.armies[A].weapon(WeaponId(weapon)).burst
    state, _ = play(state, A, {"type": "activate", "trooper": shooter, "order": "regular"})
    state, events = play(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": weapon, "targets": [{"trooper": behind, "burst": burst}]}})
    (opened,) = [e for e in events if isinstance(e, AroWindowOpened)]
    assert T(reactor) in {e.trooper for e in opened.eligible}
    state, _ = play(state, B, {"type": "declare_aro", "trooper": reactor, "skill": {
        "type": "bs_attack", "weapon": "punch_carbine", "targets": [{"trooper": shooter, "burst": 1}]}})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    idle = [x for x in resolved.outcome.effects if isinstance(x, BecameIdle)]
    assert idle == [BecameIdle(T(shooter), "bs_attack", "no_line_of_fire", T(behind))]
    # The Idle rolls nothing (in N5 the shooter, hit, may still make its Guts Roll).
    assert all(r.trooper != shooter or r.skill == "guts" for r in resolved.outcome.rolls)
    (aro,) = [r for r in resolved.outcome.rolls if r.trooper == reactor]
    assert aro.skill == "bs_attack" and aro.target == shooter
    assert aro.opposed_by == ()  # a Normal Roll: the Idle shot opposes nothing
    assert aro.successes + aro.criticals == 1
    (save,) = resolved.outcome.saves  # the ARO's hit makes the shooter save
    assert save.trooper == shooter and save.attacker == reactor
