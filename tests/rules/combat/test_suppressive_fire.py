"""Suppressive Fire (DIGEST 8 "Suppressive Fire" row, 9 "Suppressive Fire" row, 6.1 "Burst in
ARO ... Suppressive Fire state B3"; the official N4/N5 Suppressive Fire State page) and its
Strategic Command Token use (DIGEST 3.3): the Long Skill, the State seen by everyone, the
SF Mode ARO (Burst 3; 0-16" +0, 16-24" -3, nothing beyond 24"), the -3 to enemies' Face to
Face Rolls against it within 24", what cancels it, and CodeOne (which has none of it)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from server.rules import engine
from server.rules.combat.outcome import RollRecord
from server.rules.combat.suppressive_fire import SF_RANGES, after_event, aro_weapon
from server.rules.commands import parse_command
from server.rules.decision import Rejected
from server.rules.events import (
    CommandTokenSpent,
    Event,
    LossOfLieutenant,
    OrderResolved,
    RetreatDeclared,
    SuppressiveFireChanged,
)
from server.rules.ids import SPECTATOR, Side, TrooperId
from server.rules.options import seat_options
from server.rules.ruleset import Ruleset
from server.rules.state import GameState
from server.rules.views import view_event, view_state
from tests.support.games import close_aro_window, play
from tests.support.skirmish import skirmish

T = TrooperId
ENFORCER = T("B-t3")  # Syndicate Enforcer: Punch Carbine (Suppressive Fire Trait), BS 12
LANCER = T("A-t7")  # Lancer Line Trooper: Line Rifle (Suppressive Fire Trait), BS 11


def _refused(state: GameState, side: Side, body: dict[str, Any]) -> str:
    decision = engine.decide(state, side, parse_command(body))
    assert isinstance(decision, Rejected), decision
    return decision.code


def _spend_sf(trooper: str) -> dict[str, Any]:
    return {"type": "spend_command_token", "use": "suppressive_fire", "trooper": trooper}


def _facing_off(lancer_y: float, *, ruleset: str = "n5", dice: tuple[int, ...] = ()) -> GameState:
    """A's Lancer south of B's Enforcer on a clear line (x 30), facing each other; A plays
    first and this is its first Orders Phase, right after its Order Count."""
    return skirmish({LANCER: (30, lancer_y, 90.0), "A-t1": (2, 2, 90.0),
                     ENFORCER: (30, 30, 270.0), "B-t1": (46, 46, 270.0)},
                    ruleset=ruleset, dice=dice)


def _shoot(target: str, weapon: str, burst: int) -> dict[str, Any]:
    return {"type": "bs_attack", "weapon": weapon, "targets": [{"trooper": target, "burst": burst}]}


def _lancer_shoots(state: GameState) -> GameState:
    state, _ = play(state, Side.A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": _shoot(ENFORCER, "line_rifle", 3)})
    return state


def _sf_aro(state: GameState) -> GameState:
    """The Enforcer's ARO: its SF Mode shot at the Lancer, Burst 3."""
    state, _ = play(state, Side.B, {"type": "declare_aro", "trooper": ENFORCER,
                                    "skill": _shoot(LANCER, "punch_carbine", 3)})
    return state


def _close_order(state: GameState) -> tuple[GameState, list[Event]]:
    """Close ARO window 1, declare Idle as the second skill, close window 2; its events."""
    state, _ = close_aro_window(state)
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    return state, list(events)


def _finish(state: GameState) -> tuple[GameState, OrderResolved]:
    """``_close_order``; the Order's resolution."""
    state, events = _close_order(state)
    return state, next(e for e in events if isinstance(e, OrderResolved))


def _roll(resolved: OrderResolved, trooper: str) -> RollRecord:
    return next(r for r in resolved.outcome.rolls if r.trooper == trooper and r.skill != "guts")


def _mods(record: RollRecord) -> dict[str, int]:
    return {m.source: m.value for m in record.mods}


# --- DIGEST 3.3: the Strategic use ------------------------------------------------------------


def test_digest_3_3_strategic_suppressive_fire_puts_one_trooper_into_the_state() -> None:
    state = _facing_off(12)
    offered = seat_options(state, Side.B)["command_tokens"]
    assert _spend_sf(ENFORCER) in offered and _spend_sf("B-t1") in offered
    assert not [b for b in seat_options(state, Side.A)["command_tokens"]
                if b["use"] == "suppressive_fire"], "only the second player"
    assert _refused(state, Side.A, _spend_sf(LANCER)) == "wrong_phase"
    state, events = play(state, Side.B, _spend_sf(ENFORCER))
    assert events == (CommandTokenSpent(Side.B, "suppressive_fire", 3, trooper=ENFORCER),
                      SuppressiveFireChanged(ENFORCER, True, "command_token"))
    assert state.trooper(ENFORCER).suppressive_fire and state.command_tokens.held[Side.B] == 3
    for viewer in (Side.A, Side.B, SPECTATOR):  # a marker on the trooper: open information
        seen = {t["id"]: t for t in view_state(state, viewer)["troopers"]}
        assert seen[ENFORCER]["suppressive_fire"] is True
    assert _refused(state, Side.B, _spend_sf("B-t1")) == "command_token_use_unavailable", \
        "each Strategic use once per game"
    assert not [b for b in seat_options(state, Side.B)["command_tokens"]
                if b["use"] == "suppressive_fire"]


def test_digest_3_3_strategic_suppressive_fire_only_in_the_window_and_for_a_trooper_that_may() -> None:
    # A trooper off the table, and one without a Suppressive Fire weapon (Lance Rifle).
    state = skirmish({LANCER: (30, 12, 90.0), "A-t1": (2, 2, 90.0), ENFORCER: (30, 30, 270.0),
                      "B-t1": (46, 46, 270.0), "B-t2": (40, 40, 270.0)}, ruleset="n5")
    assert _refused(state, Side.B, _spend_sf("B-t4")) == "trooper_not_on_table"
    assert _refused(state, Side.B, _spend_sf("B-t2")) == "skill_not_allowed"  # Lance Rifle
    assert _refused(state, Side.B, _spend_sf(LANCER)) == "not_your_trooper"
    # After A's first Order the window is shut.
    state = _lancer_shoots(state)
    state, _ = _finish(state)
    assert _refused(state, Side.B, _spend_sf(ENFORCER)) == "wrong_phase"


def test_digest_3_3_strategic_suppressive_fire_codeone_has_no_command_tokens() -> None:
    state = _facing_off(12, ruleset="codeone")
    assert _refused(state, Side.B, _spend_sf("B-t1")) == "not_allowed_by_ruleset"
    assert seat_options(state, Side.B)["command_tokens"] == []


# --- DIGEST 9: the skill ------------------------------------------------------------------------


def test_digest_9_suppressive_fire_is_an_entire_order_that_enters_the_state() -> None:
    state = _facing_off(12)
    state, _ = play(state, Side.A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    skills = seat_options(state, Side.A)["skills"]
    assert skills["suppressive_fire"] is True
    state, events = play(state, Side.A, {"type": "declare_skill", "skill": {"type": "suppressive_fire"}})
    assert state.trooper(LANCER).suppressive_fire, "the State starts with the declaration"
    assert SuppressiveFireChanged(LANCER, True, "skill") in events
    assert _refused(state, Side.B, {"type": "declare_aro", "trooper": ENFORCER,
                                    "skill": {"type": "suppressive_fire"}}) == "skill_not_allowed"
    state, _ = close_aro_window(state)  # an Entire Order: no second skill
    assert state.order is None and state.trooper(LANCER).suppressive_fire
    # Declaring an Order cancels it; declaring the skill again in that Order restores it.
    state, events = play(state, Side.A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    assert not state.trooper(LANCER).suppressive_fire
    assert events[-1] == SuppressiveFireChanged(LANCER, False, "declared_order")


def test_digest_9_suppressive_fire_needs_a_weapon_with_the_trait() -> None:
    state = skirmish({"A-t10": (30, 12, 90.0), "A-t1": (2, 2, 90.0), ENFORCER: (30, 30, 270.0)},
                     ruleset="n5")
    state, _ = play(state, Side.A, {"type": "activate", "trooper": "A-t10", "order": "regular"})
    assert seat_options(state, Side.A)["skills"]["suppressive_fire"] is False  # Chain Spray, Sidearm
    assert _refused(state, Side.A, {"type": "declare_skill", "skill": {"type": "suppressive_fire"}}) \
        == "skill_not_allowed"


def test_digest_9_suppressive_fire_codeone_does_not_use_it() -> None:
    state = skirmish({"A-t1": (30, 12, 90.0)}, ruleset="codeone")
    state, _ = play(state, Side.A, {"type": "activate", "trooper": "A-t1", "order": "regular"})
    assert seat_options(state, Side.A)["skills"]["suppressive_fire"] is False
    assert _refused(state, Side.A, {"type": "declare_skill", "skill": {"type": "suppressive_fire"}}) \
        == "not_allowed_by_ruleset"


# --- DIGEST 9: the ARO in SF Mode and the -3 -----------------------------------------------------


def test_digest_9_suppressive_fire_aro_is_burst_3_in_sf_mode_and_enemies_take_minus_3() -> None:
    # 18": the Line Rifle's -3 band; the SF Mode's 16-24" band is -3 too.
    state = _facing_off(12, dice=(10, 10, 10, 5, 5, 5))
    state, _ = play(state, Side.B, _spend_sf(ENFORCER))
    state = _lancer_shoots(state)
    aro = seat_options(state, Side.B)["aros"][ENFORCER]
    assert aro["bs_burst"] == {"punch_carbine": 3, "sidearm": 1} and aro["suppressive_fire"] is True
    assert _refused(state, Side.B, {"type": "declare_aro", "trooper": ENFORCER,
                                    "skill": _shoot(LANCER, "punch_carbine", 1)}) == "bad_burst"
    state = _sf_aro(state)
    assert state.trooper(ENFORCER).suppressive_fire, "an SF Mode BS Attack keeps the State"
    state, resolved = _finish(state)
    lancer, enforcer = _roll(resolved, LANCER), _roll(resolved, ENFORCER)
    assert enforcer.burst == 3 and _mods(enforcer) == {"range": -3}
    assert _mods(lancer) == {"range": -3, "suppressive_fire": -3}
    assert lancer.success_value == 11 - 6 and enforcer.success_value == 12 - 3
    assert lancer.opposed_by and enforcer.opposed_by  # Face to Face
    assert state.trooper(LANCER).condition.value != "normal"  # three 5s against no success


def test_digest_9_suppressive_fire_sf_mode_ranges_0_to_16_plus_0_nothing_beyond_24() -> None:
    assert [(b.up_to, b.mod) for b in SF_RANGES] == [(8.0, 0), (16.0, 0), (24.0, -3)]
    # 12": the Punch Carbine's own band would be 0 at 8-16" too; SF Mode: 0, Burst 3.
    state = _facing_off(18, dice=(20, 20, 20, 20, 20, 20))
    state, _ = play(state, Side.B, _spend_sf(ENFORCER))
    state = _lancer_shoots(state)
    state = _sf_aro(state)
    _, resolved = _finish(state)
    assert _mods(_roll(resolved, ENFORCER)) == {"range": 0}
    assert _mods(_roll(resolved, LANCER)) == {"range": 3, "suppressive_fire": -3}
    # 26": beyond the SF Mode's 24" the ARO fails without dice and gives no -3.
    state = _facing_off(4, dice=(20, 20, 20))
    state, _ = play(state, Side.B, _spend_sf(ENFORCER))
    state = _lancer_shoots(state)
    state = _sf_aro(state)
    _, resolved = _finish(state)
    assert _roll(resolved, ENFORCER).automatic_failure
    assert "suppressive_fire" not in _mods(_roll(resolved, LANCER))


def test_digest_9_suppressive_fire_mode_keeps_the_weapons_ps_ammunition_and_traits() -> None:
    state = _facing_off(12)
    carbine = state.armies[Side.B].weapon("punch_carbine")  # type: ignore[arg-type]
    enforcer = replace(state.trooper(ENFORCER), suppressive_fire=True)
    sf = aro_weapon(enforcer, carbine)
    assert (sf.burst, sf.ranges) == (3, SF_RANGES)
    assert (sf.ps, sf.ammo, sf.traits, sf.id) == (carbine.ps, carbine.ammo, carbine.traits, carbine.id)
    assert aro_weapon(state.trooper(ENFORCER), carbine) == carbine, "not in the State: unchanged"


# --- DIGEST 9: what cancels it -------------------------------------------------------------------


def test_digest_9_suppressive_fire_cancelled_by_declaring_another_aro() -> None:
    state = _facing_off(12, dice=(20, 20, 20, 5))
    state, _ = play(state, Side.B, _spend_sf(ENFORCER))
    state = _lancer_shoots(state)
    state, events = play(state, Side.B, {"type": "declare_aro", "trooper": ENFORCER,
                                         "skill": {"type": "dodge"}})
    assert not state.trooper(ENFORCER).suppressive_fire
    assert events[-1] == SuppressiveFireChanged(ENFORCER, False, "other_aro")
    _, resolved = _finish(state)
    assert "suppressive_fire" not in _mods(_roll(resolved, LANCER)), "no -3 once cancelled"


def test_digest_9_suppressive_fire_cancelled_by_a_bs_attack_aro_with_a_weapon_without_the_trait() -> None:
    state = _facing_off(12)
    state, _ = play(state, Side.B, _spend_sf(ENFORCER))
    state = _lancer_shoots(state)
    assert _refused(state, Side.B, {"type": "declare_aro", "trooper": ENFORCER,
                                    "skill": _shoot(LANCER, "sidearm", 3)}) == "bad_burst"
    state, _ = play(state, Side.B, {"type": "declare_aro", "trooper": ENFORCER,
                                    "skill": _shoot(LANCER, "sidearm", 1)})
    assert not state.trooper(ENFORCER).suppressive_fire


def test_digest_9_suppressive_fire_cancelled_by_a_null_state_and_by_failing_guts() -> None:
    # Killed by the Lancer (three 1s, the Enforcer's ARO three 20s, failed save 20).
    state = _facing_off(12, dice=(1, 1, 1, 20, 20, 20, 20, 20, 20))
    state, _ = play(state, Side.B, _spend_sf(ENFORCER))
    state = _lancer_shoots(state)
    state = _sf_aro(state)
    state, events = _close_order(state)
    assert state.trooper(ENFORCER).is_null and not state.trooper(ENFORCER).suppressive_fire
    assert SuppressiveFireChanged(ENFORCER, False, "null") in events
    # Hit once, saved, then a failed Guts Roll (its owner's standing choice to fail).
    state = _facing_off(12, dice=(1, 20, 20, 20, 20, 20, 1))
    state, _ = play(state, Side.B, {"type": "choose_guts_failure", "trooper": ENFORCER, "fail": True})
    state, _ = play(state, Side.B, _spend_sf(ENFORCER))
    state = _lancer_shoots(state)
    state = _sf_aro(state)
    state, events = _close_order(state)
    resolved = next(e for e in events if isinstance(e, OrderResolved))
    guts = [r for r in resolved.outcome.rolls if r.skill == "guts"]
    assert [r.trooper for r in guts] == [ENFORCER] and not state.trooper(ENFORCER).is_null
    assert not state.trooper(ENFORCER).suppressive_fire
    assert SuppressiveFireChanged(ENFORCER, False, "guts_failed") in events


def test_digest_9_suppressive_fire_cancelled_when_engaged() -> None:
    state = _facing_off(25.5)
    state, _ = play(state, Side.B, _spend_sf(ENFORCER))
    state, _ = play(state, Side.A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    # Move into base contact.
    enforcer = state.trooper(ENFORCER).body()
    lancer = state.trooper(LANCER).body()
    contact = enforcer.radius + lancer.radius + 0.02  # the bases touch
    state, events = play(state, Side.A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [[30, 25.5], [30, 30 - contact]]}})
    assert not state.trooper(ENFORCER).suppressive_fire
    assert SuppressiveFireChanged(ENFORCER, False, "engaged") in events


def _holding(**changes: Any) -> GameState:
    state = _facing_off(12)
    state, _ = play(state, Side.B, _spend_sf(ENFORCER))
    return state.with_trooper(replace(state.trooper(ENFORCER), **changes)) if changes else state


def test_digest_9_suppressive_fire_cancelled_by_isolated_immobilized_retreat_and_loss_of_lieutenant() -> None:
    nothing: Event = CommandTokenSpent(Side.A, "limit_tokens", 4)  # any event is a check point
    assert not after_event(_holding(isolated=True), nothing).trooper(ENFORCER).suppressive_fire
    assert not after_event(_holding(immobilized_b=True), nothing).trooper(ENFORCER).suppressive_fire
    assert after_event(_holding(), nothing).trooper(ENFORCER).suppressive_fire
    lol = engine.apply(_holding(), LossOfLieutenant(Side.B))
    assert not lol.trooper(ENFORCER).suppressive_fire
    retreat = engine.apply(_holding(), RetreatDeclared(Side.B, 10, 75))
    assert not retreat.trooper(ENFORCER).suppressive_fire
    other_side = engine.apply(_holding(), LossOfLieutenant(Side.A))
    assert other_side.trooper(ENFORCER).suppressive_fire, "only the army in Loss of Lieutenant"


def test_digest_9_suppressive_fire_a_marker_is_revealed_by_declaring_it() -> None:
    """The Long Skill reveals a Camouflage Marker (DIGEST 12: a Long Skill other than
    Cautious Movement)."""
    state = skirmish({"A-t3": (30, 12, 90.0), "A-t1": (2, 2, 90.0), ENFORCER: (30, 30, 270.0)},
                     ruleset="n5")
    assert state.trooper(T("A-t3")).marker
    state, _ = play(state, Side.A, {"type": "activate", "trooper": "A-t3", "order": "regular"})
    state, events = play(state, Side.A, {"type": "declare_skill", "skill": {"type": "suppressive_fire"}})
    # Still a marker until the Order resolves: the change names it to its owner only.
    change = next(e for e in events if isinstance(e, SuppressiveFireChanged))
    assert view_event(change, Side.A, state) is not None and view_event(change, Side.B, state) is None
    assert view_event(change, SPECTATOR, state) is None
    state, _ = close_aro_window(state)
    assert state.trooper(T("A-t3")).suppressive_fire and not state.trooper(T("A-t3")).marker


def test_digest_9_suppressive_fire_ruleset_switch() -> None:
    from server.rules.ruleset import options

    assert options(Ruleset.N5).suppressive_fire and not options(Ruleset.CODEONE).suppressive_fire


def test_digest_9_suppressive_fire_a_replay_of_the_log_gives_the_same_states() -> None:
    """The State is derived by ``apply`` and the log says so: folding the events again from
    the start (the announcements included) gives the same State at every step."""
    start = _facing_off(12, dice=(20, 20, 20, 5))
    state, log = play(start, Side.B, _spend_sf(ENFORCER))
    events = list(log)
    state, log = play(state, Side.A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    events += log
    state, log = play(state, Side.A, {"type": "declare_skill", "skill": _shoot(ENFORCER, "line_rifle", 3)})
    events += log
    state, log = play(state, Side.B, {"type": "declare_aro", "trooper": ENFORCER, "skill": {"type": "dodge"}})
    events += log
    replayed = engine.apply_all(start, events)
    assert {t.id: t.suppressive_fire for t in replayed.troopers.values()} == \
        {t.id: t.suppressive_fire for t in state.troopers.values()}
    assert [(e.trooper, e.active, e.reason) for e in events if isinstance(e, SuppressiveFireChanged)] \
        == [(ENFORCER, True, "command_token"), (ENFORCER, False, "other_aro")]


def test_digest_3_3_strategic_suppressive_fire_with_the_controllers_peripherals_that_may() -> None:
    """"Along with their Peripherals, if they are a Controller": each Peripheral that carries
    a Suppressive Fire weapon enters it too (a Gnat Drone given a Line Rifle here); one
    without (Chain Spray only) does not."""
    state = skirmish({"A-t4": (30, 30, 270.0), "A-p1": (31, 31, 270.0), "A-p2": (29, 31, 270.0),
                      "A-t1": (2, 46, 270.0), "B-t1": (2, 2, 90.0), "B-t3": (30, 12, 90.0)},
                     ruleset="n5", first=Side.B)
    drone = state.trooper(T("A-p1"))
    armed = replace(drone.entry.profile, weapons=("chain_spray", "line_rifle"))
    state = state.with_trooper(replace(drone, entry=replace(drone.entry, profile=armed)))
    state, events = play(state, Side.A, _spend_sf("A-t4"))
    assert {(e.trooper, e.active) for e in events if isinstance(e, SuppressiveFireChanged)} == \
        {(T("A-t4"), True), (T("A-p1"), True)}
    assert not state.trooper(T("A-p2")).suppressive_fire


def test_digest_9_suppressive_fire_a_failed_save_against_stun_fails_guts_and_ends_it() -> None:
    """Stunned does not end Suppressive Fire by itself, but the failed save against Stun
    fails the Guts Roll (Stun Ammunition), which does (DIGEST 7.8, 9)."""
    state = skirmish({"A-t1": (30, 18, 90.0), ENFORCER: (30, 30, 270.0), "B-t1": (46, 46, 270.0)},
                     ruleset="n5", dice=(1, 20, 20, 20, 20, 20))
    state, _ = play(state, Side.B, _spend_sf(ENFORCER))
    state, _ = play(state, Side.A, {"type": "activate", "trooper": "A-t1", "order": "regular"})
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": _shoot(ENFORCER, "stunner", 2)})
    state, _ = play(state, Side.B, {"type": "declare_aro", "trooper": ENFORCER,
                                    "skill": _shoot("A-t1", "punch_carbine", 3)})
    state, events = _close_order(state)
    resolved = next(e for e in events if isinstance(e, OrderResolved))
    assert "stunned_set" in [effect.TYPE for effect in resolved.outcome.effects]
    assert not state.trooper(ENFORCER).is_null
    assert SuppressiveFireChanged(ENFORCER, False, "guts_failed") in events
