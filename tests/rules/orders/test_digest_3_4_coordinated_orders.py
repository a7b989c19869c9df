"""DIGEST 3.4, Coordinated Orders (N5).

* "A participant failing a Requirement performs Idle; others act normally": a Requirement
  found unmet at Resolution (LoF to the one target) makes that trooper's skill Idle alone;
  a trooper whose own state forbids the Spearhead's skill (Engaged, Stunned, Immobilized...)
  declares Idle in its place (otherwise every trooper declares the same skill), and
  `options` says which skills it would perform as Idle (`idle_for`).
* "CC: only the Spearhead attacks, +1 B per allied trooper in contact with the target".
  Every trooper of the Order declares the CC Attack on the same single target (the
  Coordinated Order's rule); the Spearhead rolls, with half its Burst rounded up (as any
  Spearhead) plus 1 for each other trooper of the Order in base contact with the target;
  the others roll nothing, and base contact is no Requirement of theirs. It was refused
  (`skill_not_allowed`) before. `options` offers a trooper other than the Spearhead a CC
  target only when it is in base contact with it (only then does it add to the attack)."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

from server.rules import engine
from server.rules.combat.outcome import BecameIdle
from server.rules.commands import parse_command
from server.rules.decision import Rejected
from server.rules.events import OrderResolved
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import GameState
from tests.support.games import close_aro_window, play
from tests.support.scenarios import SCENARIO_DIR, build_state

A, B = Side.A, Side.B
SPEARHEAD, BESIDE, AWAY, ENEMY = "A-t7", "A-t8", "A-t9", "B-t3"  # Lancers (Combat Knife B1); an Enforcer
CONTACT = 2 * 0.4921259842519685  # two 25 mm bases touching


def _melee() -> GameState:
    """The Spearhead and a second Lancer in base contact with the Enforcer, a third 8" off."""
    return build_state({"ruleset": "n5", "terrain": [], "dice": [5, 6, 20, 20, 20],
                        "placements": {SPEARHEAD: [20, 20 - CONTACT, 90], BESIDE: [20 - CONTACT, 20, 0],
                                       AWAY: [26, 14, 90], ENEMY: [20, 20, 270],
                                       "A-t1": [1, 1, 270], "B-t1": [46, 46, 90]}})


def _knife() -> dict[str, Any]:
    return {"type": "cc_attack", "weapon": "combat_knife", "target": ENEMY}


def _coordinated(state: GameState) -> GameState:
    state, _ = play(state, A, {"type": "coordinate_order", "spearhead": SPEARHEAD, "troopers": [BESIDE, AWAY]})
    return state


def test_digest_3_4_coordinated_cc_attack_is_offered_to_the_troopers_in_base_contact_only() -> None:
    """Only the Spearhead attacks; another trooper adds +1 B only when it touches the target.
    `options` offered the trooper 8" away a CC Attack on every enemy on the table (25" off
    too): a player was shown CC targets across the table. It now offers each trooper the
    enemies it is in base contact with."""
    state = _coordinated(_melee())
    skills = seat_options(state, A)["skills"]
    assert skills["cc_attack"] == {"combat_knife": [ENEMY]}
    assert skills["peripherals"][BESIDE]["cc_attack"] == {"combat_knife": [ENEMY]}
    assert skills["peripherals"][AWAY]["cc_attack"] == {}, "8\" from the Enforcer, 37\" from B-t1"


def _all_idle_then_resolved(state: GameState) -> OrderResolved:
    """Close the first ARO window, all three declare Idle as their second skill, close the
    second window: the Order's resolution."""
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"},
                               "peripherals": [{"trooper": BESIDE, "skill": {"type": "idle"}},
                                               {"trooper": AWAY, "skill": {"type": "idle"}}]})
    _, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    return resolved


def test_digest_3_4_coordinated_cc_attack_only_the_spearhead_rolls_with_one_more_burst_per_ally_in_contact() -> None:
    state = _coordinated(_melee())
    state, _ = play(state, A, {"type": "declare_skill", "skill": _knife(),
                               "peripherals": [{"trooper": BESIDE, "skill": _knife()},
                                               {"trooper": AWAY, "skill": _knife()}]})
    # The Enforcer answers the Spearhead in CC: Face to Face with its roll alone.
    state, _ = play(state, B, {"type": "declare_aro", "trooper": ENEMY, "skill": {
        "type": "cc_attack", "weapon": "combat_knife", "target": SPEARHEAD}})
    resolved = _all_idle_then_resolved(state)
    attacks = [r for r in resolved.outcome.rolls if r.skill == "cc_attack"]
    assert [(r.trooper, r.burst) for r in attacks] == [(SPEARHEAD, 1 + 1), (ENEMY, 1)]
    assert attacks[0].opposed_by == (1,) and attacks[1].opposed_by == (0,)
    assert not [e for e in resolved.outcome.effects if isinstance(e, BecameIdle)], \
        "the trooper out of contact supports, it does not fail"


def test_digest_3_4_coordinated_cc_attack_spearhead_out_of_contact_is_idle() -> None:
    """The Spearhead itself needs base contact (seed 000: Idle at Resolution); its allies'
    contact then gives nothing, and nobody rolls."""
    state = _melee()
    state = state.with_trooper(replace(state.trooper(TrooperId(SPEARHEAD)), position=(20.0, 16.0)))
    state = _coordinated(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": _knife(),
                               "peripherals": [{"trooper": BESIDE, "skill": _knife()},
                                               {"trooper": AWAY, "skill": _knife()}]})
    resolved = _all_idle_then_resolved(state)
    assert [r for r in resolved.outcome.rolls if r.skill == "cc_attack"] == []
    assert [(e.trooper, e.reason) for e in resolved.outcome.effects if isinstance(e, BecameIdle)] == \
        [(SPEARHEAD, "not_in_base_contact")]


# --- a participant failing a Requirement performs Idle ------------------------------------------


def _w6_facing_enemy() -> GameState:
    """DIGEST W6's Lancers (A-t3..A-t5 at y=2, facing north) and B's Lieutenant 14" in front."""
    setup: dict[str, Any] = copy.deepcopy(json.loads(
        (SCENARIO_DIR / "w6_order_count.json").read_text())["setup"])
    setup["placements"] |= {"B-t1": [8, 16, 270]}
    return build_state(setup)


def _shot(burst: int) -> dict[str, Any]:
    return {"type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": "B-t1", "burst": burst}]}


def _refused(state: GameState, body: dict[str, Any]) -> str:
    decision = engine.decide(state, A, parse_command(body))
    assert isinstance(decision, Rejected), decision
    return decision.code


def test_digest_3_4_coordinated_participant_without_line_of_fire_is_idle_the_others_shoot() -> None:
    """A-t4 turned its back on the target: its share of the Coordinated BS Attack is Idle at
    Resolution (`no_line_of_fire`), the Spearhead and A-t5 roll."""
    state = _w6_facing_enemy()
    state = state.with_trooper(replace(state.trooper(TrooperId("A-t4")), facing=270.0))
    state, _ = play(state, A, {"type": "coordinate_order", "spearhead": "A-t3", "troopers": ["A-t4", "A-t5"]})
    state, _ = play(state, A, {"type": "declare_skill", "skill": _shot(2), "peripherals": [
        {"trooper": "A-t4", "skill": _shot(1)}, {"trooper": "A-t5", "skill": _shot(1)}]})
    state, _ = close_aro_window(state)
    idle = {"type": "idle"}
    state, _ = play(state, A, {"type": "declare_skill", "skill": idle, "peripherals": [
        {"trooper": "A-t4", "skill": idle}, {"trooper": "A-t5", "skill": idle}]})
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    assert [(e.trooper, e.reason) for e in resolved.outcome.effects if isinstance(e, BecameIdle)] == \
        [("A-t4", "no_line_of_fire")]
    assert [(r.trooper, r.burst) for r in resolved.outcome.rolls if r.skill == "bs_attack"] == \
        [("A-t3", 2), ("A-t5", 1)]


def test_digest_3_4_coordinated_participant_engaged_performs_idle_while_the_others_move() -> None:
    """A-t5 is Engaged (an enemy in base contact): it may not Move, so it declares Idle in
    the Spearhead's Move and stays; A-t3 and A-t4 move. A-t4, free to move, may not Idle."""
    state = _w6_facing_enemy()
    state = state.with_trooper(replace(state.trooper(TrooperId("B-t2")), position=(10.0, 2.0 + CONTACT)))
    state, _ = play(state, A, {"type": "coordinate_order", "spearhead": "A-t3", "troopers": ["A-t4", "A-t5"]})
    peripherals = seat_options(state, A)["skills"]["peripherals"]
    assert "move" in peripherals["A-t5"]["idle_for"] and "cc_attack" not in peripherals["A-t5"]["idle_for"]
    assert peripherals["A-t4"]["idle_for"] == []
    idle = {"type": "idle"}
    move = {"type": "move", "route": [[6, 2], [6, 5]]}
    assert _refused(state, {"type": "declare_skill", "skill": move, "peripherals": [
        {"trooper": "A-t4", "skill": idle}, {"trooper": "A-t5", "skill": idle}]}) == "illegal_skill_combination"
    state, _ = play(state, A, {"type": "declare_skill", "skill": move, "peripherals": [
        {"trooper": "A-t4", "skill": {"type": "move", "route": [[8, 2], [8, 5]]}},
        {"trooper": "A-t5", "skill": idle}]})
    assert [state.trooper(TrooperId(t)).position for t in ("A-t3", "A-t4", "A-t5")] == \
        [(6.0, 5.0), (8.0, 5.0), (10.0, 2.0)]
