"""The Isolated state (``isolated.py``): E/M ammunition causes it (DIGEST 7.6), it counts in
the Loss of Lieutenant check (DIGEST 11.3), and DIGEST 8's states table: it acts on its own
Irregular Order, has no Comms (no Comms Attack, no Hacking Area), resets at WIP -9, and a
successful Reset cancels it. E/M also makes a HI, TAG or REM Immobilized-B
(``immobilized.py``): Reset only, Reset -3, no Guts Roll. No sample weapon fires E/M, so
these tests build one."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from server.rules import commands as c
from server.rules.armies.profiles import TroopType
from server.rules.armies.skills import Reset
from server.rules.armies.weapons import Weapon
from server.rules.combat.hacking import in_hacking_area
from server.rules.combat.outcome import (
    ImmobilizedBCleared,
    ImmobilizedBSet,
    IsolatedCleared,
    IsolatedSet,
    Wounded,
)
from server.rules.combat.resolution import resolve_order
from server.rules.combat.rolls import Mod
from server.rules.combat.wounds import Condition
from server.rules.decision import Accepted, Rejected
from server.rules.events import LossOfLieutenant, OrderResolved, OrdersCounted
from server.rules.ids import SPECTATOR, Side, TrooperId, WeaponId
from server.rules.options import seat_options
from server.rules.state import GameState
from server.rules.views import view_event, view_state
from tests.support.games import decide as _decide
from tests.support.games import fold_effects as _fold
from tests.support.games import play, shoot_and_resolve
from tests.support.scenarios import build_state

from .resolution_builders import RIFLE, RIFLE_BANDS, resolving, shoot, trooper

A, B = Side.A, Side.B
T = TrooperId
EM_RIFLE = Weapon(WeaponId("test_em_rifle"), "E/M Rifle (test)", RIFLE.kind, 3, 7, "E/M",
                  RIFLE_BANDS, save_attribute="BTS")
"""A test-built E/M weapon: no weapon of the shipped data fires E/M."""


def _armed_with_em(state: GameState, trooper_id: str) -> GameState:
    """``trooper_id``'s army carries ``EM_RIFLE`` and the trooper has it."""
    shooter = state.trooper(T(trooper_id))
    army = state.armies[shooter.side]
    entry = replace(shooter.entry, profile=replace(
        shooter.profile, weapons=(*shooter.profile.weapons, EM_RIFLE.id)))
    army = replace(army, arsenal=(*army.arsenal, EM_RIFLE),
                   entries=tuple(entry if e.id == entry.id else e for e in army.entries))
    state = replace(state, armies={**state.armies, shooter.side: army})
    return state.with_trooper(replace(shooter, entry=entry))


# --- E/M causes it -------------------------------------------------------------------------


def test_digest_7_6_em_failed_bts_save_makes_the_trooper_isolated_not_wounded() -> None:
    """E/M: 2 saves per hit against BTS halved (3 -> 2, + PS 7 = 9); a failed one makes the
    trooper Isolated and deals no wound."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (16, 10), 180.0, bts=3)
    state = _armed_with_em(resolving(shooter, [shoot(EM_RIFLE, (target, 1))], [target],
                                     faces=[4, 20, 3, 1]), "A-s")
    outcome, _ = resolve_order(state)
    (save,) = outcome.saves
    assert save.ammo == "E/M" and save.target == 9 and save.failed == 1
    assert IsolatedSet(target.id, EM_RIFLE.id) in outcome.effects
    assert not any(isinstance(e, Wounded | ImmobilizedBSet) for e in outcome.effects)
    after = _fold(state, outcome.effects).trooper(target.id)
    assert after.isolated and after.wounds == 0 and after.condition is Condition.NORMAL
    # Both saves made: not Isolated.
    saved = _armed_with_em(resolving(shooter, [shoot(EM_RIFLE, (target, 1))], [target],
                                     faces=[4, 2, 3, 1]), "A-s")
    outcome, _ = resolve_order(saved)
    assert not any(isinstance(e, IsolatedSet) for e in outcome.effects)


def test_digest_8_isolated_reset_is_at_wip_minus_9_and_a_success_cancels_it() -> None:
    """Isolated row: Reset -9 (with Targeted's -3 they add up); a successful Reset cancels
    Isolated (and Targeted)."""
    isolated = replace(trooper("r", A, (10, 10), 0.0, targeted=True), isolated=True)
    state = resolving(isolated, [Reset()], faces=[1])
    outcome, _ = resolve_order(state)
    (reset,) = outcome.rolls
    assert reset.mods == (Mod("targeted", -3), Mod("isolated", -9))
    assert reset.success_value == 13 - 12 and reset.successes + reset.criticals == 1
    assert IsolatedCleared(isolated.id) in outcome.effects
    assert not _fold(state, outcome.effects).trooper(isolated.id).isolated
    failed = resolving(replace(isolated, targeted=False), [Reset()], faces=[5])
    outcome, _ = resolve_order(failed)
    assert outcome.rolls[0].success_value == 4 and outcome.rolls[0].successes == 0
    assert not any(isinstance(e, IsolatedCleared) for e in outcome.effects)


# --- a played Order, the views, the next Order Count -----------------------------------------


def _em_shot_in_play() -> tuple[GameState, OrderResolved]:
    """A's Lancer shoots B's Enforcer B-t3 (BTS 0) with the E/M rifle: three hits, six failed
    saves (BTS 0 halved + PS 7 = 7), a passed Guts Roll."""
    placements = {"A-t7": [20, 20, 90], "A-t1": [2, 2, 270], "B-t3": [20, 30, 270],
                  "B-t1": [1, 47, 90]}
    state = build_state({"ruleset": "n5", "terrain": [], "placements": placements,
                         "dice": [1, 2, 3, 20, 20, 20, 20, 20, 20, 1]})
    state = _armed_with_em(state, "A-t7")
    return shoot_and_resolve(state, A, "A-t7", EM_RIFLE.id, "B-t3", 3)


def test_digest_8_isolated_is_open_information_in_every_view() -> None:
    state, resolved = _em_shot_in_play()
    target = state.trooper(T("B-t3"))
    assert target.isolated and target.wounds == 0 and target.condition is Condition.NORMAL
    for viewer in (A, B, SPECTATOR):
        (row,) = [t for t in view_state(state, viewer)["troopers"] if t["id"] == "B-t3"]
        assert row["isolated"] is True, viewer
        plain = view_event(resolved, viewer, state)
        assert plain is not None
        effects = plain["outcome"]["effects"]
        assert {"type": "isolated_set", "trooper": "B-t3", "weapon": EM_RIFLE.id} in effects


def test_digest_8_isolated_trooper_brings_an_irregular_order_and_gets_none_from_the_pool() -> None:
    """At B's Order Count the Isolated Enforcer (Regular) brings an Irregular Order, not a
    Regular one to its group's pool; it may not be activated with a Regular Order."""
    state, _ = _em_shot_in_play()
    state, events = play(state, A, c.EndTurn())
    (counted,) = [e for e in events if isinstance(e, OrdersCounted)]
    assert "B-t3" in counted.irregular
    assert counted.pools == {1: 1}  # the Boss B-t1 alone: B-t3 adds nothing to the pool
    decision = _decide(state, B, {"type": "activate", "trooper": "B-t3", "order": "regular"})
    assert isinstance(decision, Rejected) and decision.code in ("order_not_for_trooper",
                                                                "no_order_available")
    assert seat_options(state, B)["activate"]["B-t3"] == ["irregular"]
    assert isinstance(_decide(state, B, {"type": "activate", "trooper": "B-t3",
                                         "order": "irregular"}), Accepted)


def test_digest_8_isolated_trooper_refused_the_pool_even_with_regular_orders_left() -> None:
    """Made Isolated after the Order Count, a Regular trooper still gets no pool Order."""
    placements = {"A-t7": [20, 20, 90], "A-t8": [24, 20, 90], "A-t1": [2, 2, 270],
                  "B-t1": [1, 47, 90]}
    state = build_state({"ruleset": "n5", "terrain": [], "placements": placements})
    assert state.orders.pools[1] >= 3
    state = state.with_trooper(replace(state.trooper(T("A-t7")), isolated=True))
    decision = _decide(state, A, {"type": "activate", "trooper": "A-t7", "order": "regular"})
    assert isinstance(decision, Rejected) and decision.code == "order_not_for_trooper"
    assert "Isolated" in decision.message
    assert "A-t7" not in seat_options(state, A)["activate"]
    assert isinstance(_decide(state, A, {"type": "activate", "trooper": "A-t8",
                                         "order": "regular"}), Accepted)


# --- Loss of Lieutenant ----------------------------------------------------------------------


def test_digest_11_3_isolated_lieutenant_means_loss_of_lieutenant() -> None:
    placements = {"A-t1": [2, 2, 270], "B-t1": [1, 47, 90], "B-t3": [10, 47, 90],
                  "B-t14": [14, 47, 90]}
    calm = build_state({"ruleset": "n5", "terrain": [], "placements": placements})
    _, events = play(calm, A, c.EndTurn())
    assert LossOfLieutenant(B) not in events
    state = build_state({"ruleset": "n5", "terrain": [], "placements": placements,
                         "troopers": {"B-t1": {"isolated": True}, "B-t3": {"isolated": True}}})
    state, events = play(state, A, c.EndTurn())
    assert LossOfLieutenant(B) in events and B in state.loss_of_lieutenant
    (counted,) = [e for e in events if isinstance(e, OrdersCounted)]
    assert counted.lieutenant is None
    # An Isolated trooper is not appointed the new Lieutenant.
    decision = _decide(state, B, {"type": "appoint_lieutenant", "trooper": "B-t3"})
    assert isinstance(decision, Rejected) and decision.code == "bad_target"
    assert "B-t3" not in seat_options(state, B)["appoint_lieutenant"]
    assert isinstance(_decide(state, B, {"type": "appoint_lieutenant", "trooper": "B-t14"}),
                      Accepted)


# --- no Comms ------------------------------------------------------------------------------


HACKER, TARGET = "A-t14", "B-t3"
HACKING: dict[str, Any] = {
    HACKER: [10, 10, 90], "A-p1": [30, 30, 90], TARGET: [30, 36, 90],
    "A-t1": [1, 1, 270], "B-t1": [1, 47, 90], "B-t2": [40, 47, 90],
}
HACK = {"type": "comms_attack", "program": "tracer_ping", "target": TARGET}


def test_digest_8_isolated_hacker_cannot_declare_a_comms_attack() -> None:
    """No Comms: the Isolated Hacker's Comms Attack is refused (``skill_not_allowed``) and
    not offered; it has no Hacking Area (its Repeater's neither)."""
    state = build_state({"ruleset": "n5", "terrain": [], "placements": HACKING,
                         "troopers": {HACKER: {"isolated": True}}})
    hacker, target = state.trooper(T(HACKER)), state.trooper(T(TARGET))
    assert not in_hacking_area(state, hacker, target.body())
    assert in_hacking_area(state, replace(hacker, isolated=False), target.body())
    state, _ = play(state, A, {"type": "activate", "trooper": HACKER, "order": "irregular"})
    decision = _decide(state, A, {"type": "declare_skill", "skill": HACK})
    assert isinstance(decision, Rejected) and decision.code == "skill_not_allowed"
    assert "Isolated" in decision.message
    assert seat_options(state, A)["skills"]["comms_attack"] == {}
    calm = state.with_trooper(replace(state.trooper(T(HACKER)), isolated=False))
    assert isinstance(_decide(calm, A, {"type": "declare_skill", "skill": HACK}), Accepted)


def test_digest_8_isolated_hacker_cannot_comms_attack_in_aro() -> None:
    """A reacting Hacker that sees the active trooper may not answer with a Comms Attack
    while Isolated (nor react through a Hacking Area it no longer has)."""
    placements = {"A-t3": [30, 18, 90], "B-t14": [10, 38, 300], "B-p1": [30, 30, 90],
                  "A-t1": [1, 1, 270], "B-t1": [1, 47, 90]}
    setup: dict[str, Any] = {"ruleset": "n5", "terrain": [], "placements": placements,
                             "armies": {"A": "vesper-raiders", "B": "helion-vanguard"}}
    for isolated in (False, True):
        state = build_state({**setup, "troopers": {"B-t14": {"isolated": isolated}}})
        state, _ = play(state, A, {"type": "activate", "trooper": "A-t3", "order": "regular"})
        move = {"type": "move", "route": [[30, 18], [30, 22]]}
        state, _ = play(state, A, {"type": "declare_skill", "skill": move})
        assert state.order is not None
        why = state.order.eligible["B-t14"]
        assert why.line_of_fire and why.hacking_area is not isolated
        aro = {"type": "declare_aro", "trooper": "B-t14",
               "skill": {"type": "comms_attack", "program": "tracer_ping", "target": "A-t3"}}
        decision = _decide(state, B, aro)
        row = seat_options(state, B)["aros"]["B-t14"]
        if isolated:
            assert isinstance(decision, Rejected) and decision.code == "skill_not_allowed"
            assert row["comms_attack"] == [] and row["reset"] is True
        else:
            assert isinstance(decision, Accepted) and row["comms_attack"] == ["tracer_ping"]


# --- Immobilized-B: E/M on HI, TAG, REM ---------------------------------------------------------


def test_digest_7_6_em_also_makes_a_hi_tag_or_rem_immobilized_b_and_it_makes_no_guts_roll() -> None:
    shooter = trooper("s", A, (10, 10), 0.0)
    plain = trooper("t", B, (16, 10), 180.0, bts=3)
    heavy = replace(plain, entry=replace(plain.entry, profile=replace(
        plain.profile, troop_type=TroopType.HI)))
    state = _armed_with_em(resolving(shooter, [shoot(EM_RIFLE, (heavy, 1))], [heavy],
                                     faces=[4, 20, 3]), "A-s")
    outcome, _ = resolve_order(state)
    assert IsolatedSet(heavy.id, EM_RIFLE.id) in outcome.effects
    assert ImmobilizedBSet(heavy.id, EM_RIFLE.id) in outcome.effects
    assert [r.skill for r in outcome.rolls] == ["bs_attack"]  # no Guts Roll (DIGEST 7.8)
    after = _fold(state, outcome.effects).trooper(heavy.id)
    assert after.isolated and after.immobilized_b and after.wounds == 0


def test_digest_8_immobilized_b_reset_is_at_wip_minus_3_and_a_success_cancels_it() -> None:
    stuck = replace(trooper("r", A, (10, 10), 0.0), immobilized_b=True)
    outcome, _ = resolve_order(resolving(stuck, [Reset()], faces=[10]))
    (reset,) = outcome.rolls
    assert reset.mods == (Mod("immobilized_b", -3),) and reset.success_value == 10
    assert ImmobilizedBCleared(stuck.id) in outcome.effects
    outcome, _ = resolve_order(resolving(stuck, [Reset()], faces=[11]))
    assert not any(isinstance(e, ImmobilizedBCleared) for e in outcome.effects)


STUCK: dict[str, Any] = {"A-t2": [20, 20, 90], "A-t1": [2, 2, 270], "B-t3": [20, 30, 270],
                         "B-t1": [1, 47, 90]}


def test_digest_8_immobilized_b_declares_only_reset_or_idle_in_its_turn() -> None:
    """The Bulwark (HI) still brings its Order and is activated with it; it may Reset or
    Idle, nothing else (``skill_not_allowed``), and nothing else is offered."""
    state = build_state({"ruleset": "n5", "terrain": [], "placements": STUCK,
                         "troopers": {"A-t2": {"immobilized_b": True}}})
    assert state.orders.pools == {1: 2}  # the Lieutenant and the Bulwark
    state, _ = play(state, A, {"type": "activate", "trooper": "A-t2", "order": "regular"})
    for skill in ({"type": "move", "route": [[20, 20], [20, 22]]},
                  {"type": "bs_attack", "weapon": "rotary_repeater",
                   "targets": [{"trooper": "B-t3", "burst": 4}]},
                  {"type": "dodge"}):
        decision = _decide(state, A, {"type": "declare_skill", "skill": skill})
        assert isinstance(decision, Rejected) and decision.code == "skill_not_allowed", skill
        assert "Immobilized-B" in decision.message
    for skill in ({"type": "reset"}, {"type": "idle"}):
        assert isinstance(_decide(state, A, {"type": "declare_skill", "skill": skill}), Accepted)
    offered = seat_options(state, A)["skills"]
    assert offered["route_skills"] == [] and offered["bs_attack"] == {} and not offered["dodge"]
    assert offered["reset"] and offered["idle"]


def test_digest_8_immobilized_b_reacts_only_with_reset() -> None:
    state = build_state({"ruleset": "n5", "terrain": [], "placements": STUCK, "first": "B",
                         "troopers": {"A-t2": {"immobilized_b": True}}})
    state, _ = play(state, B, {"type": "activate", "trooper": "B-t3", "order": "regular"})
    move = {"type": "move", "route": [[20, 30], [21, 30]]}
    state, _ = play(state, B, {"type": "declare_skill", "skill": move})
    assert state.order is not None and state.order.eligible["A-t2"].line_of_fire
    dodge = _decide(state, A, {"type": "declare_aro", "trooper": "A-t2", "skill": {"type": "dodge"}})
    assert isinstance(dodge, Rejected) and dodge.code == "skill_not_allowed"
    reset = {"type": "declare_aro", "trooper": "A-t2", "skill": {"type": "reset"}}
    assert isinstance(_decide(state, A, reset), Accepted)
    row = seat_options(state, A)["aros"]["A-t2"]
    assert row["bs_attack"] == [] and row["dodge"] is False and row["reset"] is True
