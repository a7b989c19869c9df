"""Mines and Minelayer (combat/mines.py), after the Infinity wiki's N5 pages "Mines",
"Minelayer", "Deployable" and "Trigger Area", DIGEST 9 (Dodge at PH -3 against a
Deployable's template) and 13 (Direct Templates), and seeds 000/002 (a Mine goes off at the
ARO step of the Order, before its window; its template resolves with the Order) and 004
(what a Mine is stays Private Information: docs/fair-play.md)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from server.rules import commands as c
from server.rules import engine
from server.rules.armies.army_catalogue import load_weapons
from server.rules.combat.outcome import DeployableRemoved
from server.rules.decision import Accepted
from server.rules.events import (
    MinePlaced,
    MinesLost,
    MineTriggered,
    OrderResolved,
    TrooperDeployed,
)
from server.rules.ids import SPECTATOR, Side, TrooperId, WeaponId
from server.rules.state import GameState
from server.rules.views import view_event, view_state
from tests.support.games import close_aro_window, decide, new_game_in_deployment, play
from tests.support.scenarios import build_state

A, B = Side.A, Side.B
MINES = WeaponId("tripwire_mines")
MINE = TrooperId("B-q4xk2mzd")
RUNNER, LAYER = "A-t7", "B-t3"
PLACEMENTS: dict[str, Any] = {
    RUNNER: [10, 10, 90], LAYER: [30, 40, 90], "A-t1": [1, 1, 270],
    "B-t1": [40, 45, 90], "B-t2": [45, 47, 90],
}


def with_mines(state: GameState, trooper: str, minelayer: int = 1,
               **fields: Any) -> GameState:
    """``trooper`` carries Tripwire Mines (and Minelayer): the list's arsenal gains them."""
    found = state.trooper(TrooperId(trooper))
    weapons = load_weapons()
    profile = replace(found.profile, minelayer=minelayer,
                      weapons=(*found.profile.weapons, MINES), **fields)
    state = state.with_trooper(replace(found, entry=replace(found.entry, profile=profile)))
    army = state.armies[found.side]
    if all(w.id != MINES for w in army.arsenal):
        army = replace(army, arsenal=(*army.arsenal, weapons[MINES]))
    return replace(state, armies={**state.armies, found.side: army})


def mined(dice: list[int], at: tuple[float, float] = (10.0, 20.0),
          placements: dict[str, Any] = PLACEMENTS) -> GameState:
    """A's Orders Phase with B's Mine (placed by its Minelayer) standing at ``at``."""
    state = with_mines(build_state({"ruleset": "n5", "terrain": [], "placements": placements,
                                    "dice": dice}), LAYER)
    return engine.apply(state, MinePlaced(MINE, B, TrooperId(LAYER), MINES, at, 270.0))


def move(state: GameState, to: tuple[float, float], frm: tuple[float, float] = (10, 10),
         trooper: str = RUNNER) -> tuple[GameState, tuple[Any, ...]]:
    state, _ = play(state, A, {"type": "activate", "trooper": trooper, "order": "regular"})
    return play(state, A, {"type": "declare_skill",
                           "skill": {"type": "move", "route": [list(frm), list(to)]}})


def resolved(events: tuple[Any, ...]) -> OrderResolved:
    return next(e for e in events if isinstance(e, OrderResolved))


def test_mines_go_off_when_an_enemy_moves_into_the_trigger_area_digest_13() -> None:
    """The wiki's "Mines": an enemy executing a skill in the Trigger Area sets it off at the
    ARO step, before the window opens; the Small Teardrop hits it (Shock, PS 7: a save of 8
    on ARM 1 fails on 15) and the Mine is removed from play."""
    state = mined([15])
    state, events = move(state, (10, 14))
    (trigger,) = [e for e in events if isinstance(e, MineTriggered)]
    assert (trigger.mine, trigger.target) == (MINE, RUNNER)
    assert trigger.at[1] < 14  # where its path first entered the Trigger Area
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("MineTriggered") < kinds.index("AroWindowOpened")
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    outcome = resolved(events).outcome
    (save,) = outcome.saves
    assert (save.trooper, save.attacker, save.weapon, save.failed) == (RUNNER, MINE, MINES, 1)
    assert DeployableRemoved(MINE, "detonated") in outcome.effects
    assert state.deployables == {} and state.trooper(TrooperId(RUNNER)).wounds == 1


def test_a_state_with_mines_survives_its_plain_form_and_the_replay_digest_13() -> None:
    """Implementation check of the rules of DIGEST 13 above: the Mine on the table and the
    Order's triggered Mine come back from ``state_to_plain``, and replaying the Order's
    events gives the same state."""
    before = mined([15])
    state, activated = play(before, A, {"type": "activate", "trooper": RUNNER, "order": "regular"})
    state, moved = play(state, A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [[10, 10], [10, 14]]}})
    assert state.order is not None and state.order.mines
    assert engine.state_from_plain(engine.state_to_plain(state)) == state
    assert engine.apply_all(before, (*activated, *moved)) == state


def test_a_move_outside_the_trigger_area_sets_nothing_off_digest_13() -> None:
    """Trigger Area: the Small Teardrop's 8 inches from the Mine's base; 14 inches away the
    runner sets nothing off, and the Mine stays a marker."""
    state = mined([], at=(10.0, 30.0))
    state, events = move(state, (10, 14))
    assert not [e for e in events if isinstance(e, MineTriggered)]
    assert MINE in state.deployables and not state.deployables[MINE].discovered


def test_a_dodge_against_a_mine_takes_ph_minus_3_and_avoids_it_digest_9() -> None:
    """The wiki's "Mines": a Template and Deployable Weapon, Dodged at PH -3. The runner's
    first skill set it off; its second is a Dodge (PH 12 - 3 = SV 9: a 5 passes)."""
    state = mined([5])
    state, _ = move(state, (10, 14))
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "dodge"}})
    state, events = close_aro_window(state)
    outcome = resolved(events).outcome
    (dodge,) = outcome.rolls
    assert dodge.skill == "dodge" and ("deployable_template", -3) in [(m.source, m.value) for m in dodge.mods]
    assert outcome.saves == ()  # dodged: no hit
    assert MINE not in state.deployables  # gone off all the same


def test_a_mine_never_goes_off_when_its_template_would_touch_an_ally_digest_13() -> None:
    """The wiki's "Mines": never when the Small Teardrop would affect an ally (B-t1 stands
    between the Mine and the runner's path)."""
    state = mined([], placements={**PLACEMENTS, "B-t1": [10, 16, 90]})
    state, events = move(state, (12, 13))
    assert not [e for e in events if isinstance(e, MineTriggered)]
    assert MINE in state.deployables


def test_seed_004_an_undiscovered_mine_looks_to_others_as_a_camouflage_marker() -> None:
    """The opponent and spectators see the Mine among the troopers with the very fields,
    in the same order, of a trooper's CAMO (-3) marker; its owner sees the Mine itself."""
    state = mined([])
    camo = with_mines(state, "B-t1", minelayer=0, camouflage=3, mimetism=3)
    camo = camo.with_trooper(replace(camo.trooper(TrooperId("B-t1")), marker=True,
                                     position=(10.0, 20.0), facing=270.0))
    for viewer in (A, SPECTATOR):
        seen = {t["id"]: t for t in view_state(state, viewer)["troopers"]}
        trooper_marker = {t["id"]: t for t in view_state(camo, viewer)["troopers"]}["B-t1"]
        assert list(seen[MINE]) == list(trooper_marker)
        assert {**seen[MINE], "id": "B-t1"} == trooper_marker
        assert view_state(state, viewer)["deployables"] == []
    own = view_state(state, B)
    assert [d["id"] for d in own["deployables"]] == [MINE]
    assert MINE not in {t["id"] for t in own["troopers"]}
    # Naming it in a command is answered as naming an enemy trooper's marker.
    for trooper, game in ((MINE, state), ("B-t1", camo)):
        answer = decide(game, A, {"type": "activate", "trooper": trooper, "order": "regular"})
        assert (answer.code, answer.message) == ("not_your_trooper", "That trooper is not yours.")
    from server.rules.orders.aro_eligibility import may_react_unseen
    from server.rules.table.measure import measure

    assert may_react_unseen(state, B) and may_react_unseen(camo, B)  # uniform ARO windows

    assert measure(state, A, MINE, (20.0, 20.0)) == measure(camo, A, TrooperId("B-t1"), (20.0, 20.0))


def _deploy_minelayer(hidden_at: tuple[float, float]) -> tuple[GameState, list[Any]]:
    """B deploys its Ghost (Hidden Deployment, Minelayer) hidden at ``hidden_at`` with a
    Mine at (20, 38): what A and the spectators receive."""
    state = new_game_in_deployment("n5", a_deploys_first=False)
    ghost = next(t for t in state.troopers_of(B) if t.profile.hidden_deployment)
    state = with_mines(state, ghost.id)
    received: list[Any] = []
    decision = engine.decide(state, B, c.Deploy(ghost.id, hidden_at, 270.0, hidden=True,
                                                 mines=((20.0, 38.0),)))
    assert isinstance(decision, Accepted), decision
    state = engine.apply_all(state, decision.events)
    for viewer in (A, SPECTATOR):
        received.append([view_event(e, viewer, state) for e in decision.events])
        received.append(view_state(state, viewer)["troopers"])
    return state, received


def test_seed_004_where_a_hidden_minelayer_stands_never_reaches_the_opponent() -> None:
    """Two games that differ only in the hidden Minelayer's spot: A and the spectators
    receive the same events and see the same table (the Mine as a Camouflage Marker
    deployed; the Minelayer not at all)."""
    one, first = _deploy_minelayer((16.0, 42.0))
    other, second = _deploy_minelayer((26.0, 44.0))
    assert first == second
    (shown,) = [e for e in first[0] if e is not None]
    assert shown["type"] == TrooperDeployed.TYPE and shown["marker"] is True
    assert len(one.deployables) == 1 and list(one.deployables) == list(other.deployables)


def test_minelayer_places_its_mine_in_its_zone_of_control_only_digest_11() -> None:
    """The wiki's "Minelayer" (DIGEST 11.1 deployment): inside its ZoC (8 inches), not in
    the enemy Deployment Zone; one Disposable use spent; not without the skill."""
    state = new_game_in_deployment("n5")
    layer = next(t for t in state.troopers_of(A) if "Lancer" in t.profile.name)
    plain = decide(state, A, {"type": "deploy", "trooper": layer.id, "position": [10, 6],
                              "facing": 90, "mines": [[10, 12]]})
    assert getattr(plain, "code", None) == "bad_position"  # no Minelayer yet
    state = with_mines(state, layer.id)
    from server.rules.options import seat_options

    offered = seat_options(state, A)["minelayer"][layer.id]
    assert (offered["weapon"], offered["mines"], offered["zone_of_control"]) == (MINES, 1, 8.0)
    far = decide(state, A, {"type": "deploy", "trooper": layer.id, "position": [10, 6],
                            "facing": 90, "mines": [[10, 20]]})
    assert getattr(far, "code", None) == "bad_position" and "Zone of Control" in far.message
    state, events = play(state, A, {"type": "deploy", "trooper": layer.id, "position": [10, 6],
                                    "facing": 90, "mines": [[10, 12]]})
    (placed,) = [e for e in events if isinstance(e, MinePlaced)]
    assert placed.mine in state.deployables and placed.mine.startswith("A-")
    assert state.trooper(layer.id).weapon_uses[MINES] == 1
    assert len(state.troopers_of(A)) == len(state.armies[A].entries)  # not a trooper


def test_minelayer_in_the_enemy_zone_is_refused_digest_11() -> None:
    from server.rules.combat.mines import mine_problem
    from server.rules.table.geometry import Body

    """The wiki's "Minelayer": never in the enemy Deployment Zone (north, from y 36)."""
    state = new_game_in_deployment("n5")
    state = with_mines(state, next(t.id for t in state.troopers_of(A) if "Lancer" in t.profile.name))
    layer = next(t for t in state.troopers_of(A) if t.profile.minelayer)
    problem = mine_problem(state, layer, Body((10.0, 32.0), 90.0, 2), (10.0, 37.0))
    assert problem is not None and "enemy Deployment Zone" in problem


def test_a_failed_infiltration_loses_the_mines_digest_11() -> None:
    """The wiki's "Minelayer": failing the roll to deploy loses the Mine, its use spent."""
    state = new_game_in_deployment("n5", dice=[20])
    layer = next(t for t in state.troopers_of(A) if "Lancer" in t.profile.name)
    state = with_mines(state, layer.id, infiltration=True)
    state, events = play(state, A, {"type": "deploy", "trooper": layer.id, "position": [4, 28],
                                    "facing": 90, "fallback": [10, 6], "mines": [[4, 31]]})
    assert any(isinstance(e, MinesLost) for e in events)
    assert state.deployables == {} and state.trooper(layer.id).weapon_uses[MINES] == 1
    assert [view_event(e, B, state) for e in events if isinstance(e, MinesLost)] == [None]


def test_seed_004_a_mine_marker_is_offered_as_a_discover_target_like_a_trooper_marker() -> None:
    """The wiki's "Mines": CAMO (-3) until Discovered. The runner's options list the Mine's
    marker among its Discover targets and sight lines, as they would a trooper's marker."""
    state = mined([], at=(10.0, 30.0))
    state, _ = play(state, A, {"type": "activate", "trooper": RUNNER, "order": "regular"})
    from server.rules.options import seat_options

    offered = seat_options(state, A)
    assert MINE in offered["skills"]["discover"]
    assert MINE in offered["sight"][RUNNER]


def test_digest_12_discover_reveals_a_mine_and_a_hit_removes_it() -> None:
    """The wiki's "Mines" and "Discover": a passed Discover turns the marker into a Mine
    token (open to all); a BS Attack that hits it destroys it (ARM 0, STR 1): it leaves the
    table. Neither counts as a trooper: no Guts Roll, no Alert!."""
    state = mined([1, 1, 1, 1, 20], at=(10.0, 30.0))
    state, _ = play(state, A, {"type": "activate", "trooper": RUNNER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "discover", "target": MINE}})
    state, _ = close_aro_window(state)
    weapon = state.trooper(TrooperId(RUNNER)).profile.weapons[0]
    burst = state.armies[A].weapon(weapon).burst
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": weapon, "targets": [{"trooper": MINE, "burst": burst}]}})
    state, events = close_aro_window(state)
    outcome = resolved(events).outcome
    assert [r.skill for r in outcome.rolls][:2] == ["discover", "bs_attack"]
    assert MINE not in state.deployables
    assert MINE not in {t["id"] for t in view_state(state, A)["troopers"]}
    seen = view_event(resolved(events), B, state)
    assert seen is not None and seen["profiles"][MINE]["name"] == "Mine"
    assert MINE not in seen["combat_groups"]  # not a trooper: no Combat Group


def test_digest_6_2_place_deployable_puts_a_mine_touching_the_path_at_the_conclusion() -> None:
    """The wiki's "Place Deployable" (a Short Skill; DIGEST 6.2: the token appears in the
    Conclusion): the runner moves, then places a Mine in Silhouette contact with a point of
    its route; options offer it with the path and the contact distance. Too far from the
    route, or with no use left, it is refused."""
    from server.rules.combat.outcome import DeployablePlaced
    from server.rules.options import seat_options

    state = with_mines(build_state({"ruleset": "n5", "terrain": [], "placements": PLACEMENTS,
                                    "dice": []}), RUNNER)
    state, _ = move(state, (10, 14))
    state, _ = close_aro_window(state)
    offer = seat_options(state, A)["skills"]["place_deployable"][MINES]
    assert offer["uses_left"] == 3 and [10.0, 10.0] in offer["path"]
    far = decide(state, A, {"type": "declare_skill", "skill": {
        "type": "place_deployable", "weapon": MINES, "position": [20, 12]}})
    assert getattr(far, "code", None) == "bad_position"
    spot = [10 + offer["contact"], 11.0]  # touching the runner as it passed (10, 11)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "place_deployable", "weapon": MINES, "position": spot}})
    assert state.deployables == {}  # not before the Conclusion
    state, events = close_aro_window(state)
    (placed,) = [x for x in resolved(events).outcome.effects if isinstance(x, DeployablePlaced)]
    mine = state.deployables[placed.deployable]
    assert mine.side is A and not mine.discovered
    assert state.trooper(TrooperId(RUNNER)).weapon_uses[MINES] == 1
    assert placed.deployable in {t["id"] for t in view_state(state, B)["troopers"]}


def test_an_imported_minelayer_and_its_mines_are_refereed_digest_11() -> None:
    """The wiki's "Minelayer" (a level in brackets: how many it places) and "Mines"
    (Deployable, Disposable (3), Small Teardrop): an imported list's Minelayer sets the
    profile's ``minelayer`` and its Mines convert with the ``mines`` trait, so neither stays
    among the list's "not refereed" items."""
    from server.rules.armies.army_data_records import DataWeapon, WeaponMode
    from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item, is_mapped
    from server.rules.armies.not_refereed import ItemKind
    from server.rules.armies.weapon_conversion import convert_weapon

    for name, level in (("Minelayer", 1), ("Minelayer (2)", 2)):
        flags = TrooperFlags()
        assert is_mapped(name)
        assert apply_item(DataItem(ItemKind.SKILL, name), flags) is None
        assert flags.fields == {"minelayer": level}
    mode = WeaponMode("", "1", "13", "ARM", 1, (), ("Concealed", "Deployable", "Disposable (3)",
                                                     "Small Teardrop"))
    converted = convert_weapon(DataWeapon(901, "Antipersonnel Mines", (mode,)), {1: "Shock"})
    (weapon,) = converted.weapons
    assert weapon["traits"] == ["mines"] and weapon["disposable"] == 3
    assert converted.not_refereed == ()


def test_seed_004_an_aro_window_names_no_marker_to_the_opponent_mine_or_trooper() -> None:
    """A Mine never reacts, so an ARO window that showed the opponent which markers may
    react would single the Mines out. A's runner moves in the Line of Fire of a marker 20
    inches away (beyond any Trigger Area): whether the marker is B's Mine or B's camouflaged
    trooper, the window A and the spectators receive names no marker; B's own view names
    its eligible trooper (docs/fair-play.md, "Eligibility the opponent cannot know")."""
    from server.rules.events import AroWindowOpened

    state = mined([], at=(30.0, 20.0))
    camo = with_mines(state, "B-t1", minelayer=0, camouflage=3, mimetism=3)
    camo = camo.with_trooper(replace(camo.trooper(TrooperId("B-t1")), marker=True,
                                     position=(30.0, 20.0), facing=270.0))
    camo = replace(camo, deployables={})
    windows = {}
    for name, game in (("mine", state), ("trooper", camo)):
        game, events = move(game, (12, 10))
        (opened,) = [e for e in events if isinstance(e, AroWindowOpened)]
        windows[name] = {viewer: view_event(opened, viewer, game) for viewer in (A, SPECTATOR, B)}
    markers = {MINE, "B-t1"}
    for viewer in (A, SPECTATOR):
        for name in ("mine", "trooper"):
            assert not markers & {e["trooper"] for e in windows[name][viewer]["eligible"]}
        assert windows["mine"][viewer] == windows["trooper"][viewer]
    assert "B-t1" in {e["trooper"] for e in windows["trooper"][B]["eligible"]}


# --- Mines set off by AROs (the wiki's "Mines": a Skill *or an ARO* in the Trigger Area) ---

A_MINE = TrooperId("A-x7m2qk9d")
GUARD = "B-t3"
ARO_PLACEMENTS: dict[str, Any] = {
    RUNNER: [10, 10, 90], "A-t1": [14, 20, 90], GUARD: [10, 30, 270],
    "B-t1": [40, 45, 90], "B-t2": [45, 47, 90],
}


def guarded(dice: list[int], at: tuple[float, float] = (10.0, 24.0)) -> GameState:
    """A's Orders Phase; A's own Mine (laid by A-t1) stands at ``at``, 6 inches in front of
    B's guard, who watches A's runner."""
    state = with_mines(build_state({"ruleset": "n5", "terrain": [], "placements": ARO_PLACEMENTS,
                                    "dice": dice}), "A-t1")
    return engine.apply(state, MinePlaced(A_MINE, A, TrooperId("A-t1"), MINES, at, 90.0))


def test_an_aro_declared_in_the_trigger_area_of_an_active_mine_sets_it_off() -> None:
    """The wiki's "Mines": an enemy declaring an ARO inside the Trigger Area sets the Mine
    off too. A's runner moves; B's guard, 6 inches from A's Mine, shoots at it in ARO. Once
    the window closes (AROs are simultaneous, seed 000) the Mine goes off against the
    guard where it stands; its template resolves with the Order: the guard's shot (a 15
    misses on SV 9) and the Mine's hit (a 15 fails the save) both, and the Mine is gone."""
    state = guarded([15, 15, 15])
    state, _ = move(state, (9, 12))
    state, events = play(state, B, {"type": "declare_aro", "trooper": GUARD, "skill": {
        "type": "bs_attack", "weapon": "punch_carbine",
        "targets": [{"trooper": RUNNER, "burst": 1}]}})
    assert not [e for e in events if isinstance(e, MineTriggered)]  # not while the window is open
    state, events = close_aro_window(state)
    (trigger,) = [e for e in events if isinstance(e, MineTriggered)]
    assert (trigger.mine, trigger.side, trigger.target, trigger.at) == (A_MINE, A, GUARD, (10.0, 30.0))
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("AroWindowClosed") < kinds.index("MineTriggered")
    assert state.deployables[A_MINE].discovered  # revealed: open to all
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    outcome = resolved(events).outcome
    (save,) = outcome.saves
    assert (save.trooper, save.attacker, save.weapon, save.failed) == (GUARD, A_MINE, MINES, 1)
    assert DeployableRemoved(A_MINE, "detonated") in outcome.effects
    assert A_MINE not in state.deployables


def test_a_dodge_aro_in_the_trigger_area_avoids_the_mine_at_ph_minus_3() -> None:
    """The wiki's "Mines": Dodged at PH -3. The guard reacts with a Dodge inside the Trigger
    Area: the Mine goes off at it, and its Dodge (PH 11 - 3 = SV 8: a 5 passes) takes it out
    of the template, as a Dodge against any template."""
    state = guarded([5])
    state, _ = move(state, (9, 12))
    state, _ = play(state, B, {"type": "declare_aro", "trooper": GUARD, "skill": {"type": "dodge"}})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    outcome = resolved(events).outcome
    (dodge,) = outcome.rolls
    assert (dodge.trooper, dodge.success_value) == (GUARD, 8)
    assert ("deployable_template", -3) in [(m.source, m.value) for m in dodge.mods]
    assert outcome.saves == () and A_MINE not in state.deployables


def test_a_reactive_trooper_that_declares_no_aro_sets_no_mine_off() -> None:
    """Only a declaration (or an execution) sets a Mine off: the guard passes its ARO, and
    A's Mine stays a marker; a guard outside the Trigger Area (the Mine 10 inches away)
    that shoots sets nothing off either."""
    state = guarded([])
    state, _ = move(state, (9, 12))
    state, _ = play(state, B, {"type": "pass_aro", "trooper": GUARD})
    state, events = close_aro_window(state)
    assert not [e for e in events if isinstance(e, MineTriggered)]
    far = guarded([15, 15], at=(10.0, 20.0))
    far, _ = move(far, (9, 12))
    far, _ = play(far, B, {"type": "declare_aro", "trooper": GUARD, "skill": {"type": "dodge"}})
    far, events = close_aro_window(far)
    assert not [e for e in events if isinstance(e, MineTriggered)]
    assert not far.deployables[A_MINE].discovered


def test_place_deployable_in_aro_lays_a_mine_in_contact_at_the_conclusion() -> None:
    """The wiki's "Place Deployable" (a Short Skill or ARO; in the Reactive Turn LoF to the
    active trooper is needed and the Mine goes in Silhouette contact with the trooper;
    DIGEST 6.2: it appears in the Conclusion). B's guard, watching A's runner, lays its
    Mine against its own base; options offer it with the contact distance; a spot away from
    its base is refused; the Mine is B's Camouflage Marker once the Order ends, one use
    spent."""
    from server.rules.combat.outcome import DeployablePlaced
    from server.rules.options import seat_options

    state = with_mines(build_state({"ruleset": "n5", "terrain": [], "placements": ARO_PLACEMENTS,
                                    "dice": []}), GUARD, minelayer=0)
    state, _ = move(state, (9, 12))
    offer = seat_options(state, B)["aros"][GUARD]["place_deployable"][MINES]
    assert offer["uses_left"] == 3 and offer["path"] == [[10.0, 30.0]]
    away = decide(state, B, {"type": "declare_aro", "trooper": GUARD, "skill": {
        "type": "place_deployable", "weapon": MINES, "position": [10, 27]}})
    assert getattr(away, "code", None) == "bad_position"
    spot = min(offer["spots"], key=lambda p: p[1])  # touching its base, towards the runner
    assert spot == [10.0, round(30.0 - offer["contact"] - 0.01, 3)]
    state, _ = play(state, B, {"type": "declare_aro", "trooper": GUARD, "skill": {
        "type": "place_deployable", "weapon": MINES, "position": spot}})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    assert state.deployables == {}  # not before the Conclusion
    state, events = close_aro_window(state)
    (placed,) = [x for x in resolved(events).outcome.effects if isinstance(x, DeployablePlaced)]
    mine = state.deployables[placed.deployable]
    assert (mine.side, mine.position, mine.discovered) == (B, tuple(spot), False)
    assert state.trooper(TrooperId(GUARD)).weapon_uses[MINES] == 1


def test_place_deployable_in_aro_needs_line_of_fire_to_the_active_trooper() -> None:
    """The wiki's "Place Deployable": in the Reactive Turn LoF to the active trooper is a
    Requirement. A guard that reacts from Zone of Control alone (the runner moves behind
    it) is not offered it, and one declared anyway is Idle at Resolution: no Mine."""
    placements = {**ARO_PLACEMENTS, GUARD: [10, 19, 90]}  # facing away from the runner
    state = with_mines(build_state({"ruleset": "n5", "terrain": [], "placements": placements,
                                    "dice": []}), GUARD, minelayer=0)
    from server.rules.options import seat_options

    state, _ = move(state, (10, 13))
    aro = seat_options(state, B)["aros"][GUARD]
    assert aro["zone_of_control"] and not aro["line_of_fire"] and aro["place_deployable"] == {}
    state, _ = play(state, B, {"type": "declare_aro", "trooper": GUARD, "skill": {
        "type": "place_deployable", "weapon": MINES, "position": [9.0, 19.0]}})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    effects = resolved(events).outcome.effects
    assert any(getattr(e, "trooper", None) == GUARD and type(e).__name__ == "BecameIdle"
               for e in effects)
    assert state.deployables == {}
