"""Missions scored from the game (docs/missions.md; DIGEST 11.5: scenarios are won on
Objective Points, Victory Points breaking a tie; DIGEST 14: CodeOne's kill thresholds).

Each test plays a small game on a mission written for it: a Plaza zone south of the sample
table's centre wall, a console anyone may activate and an uplink only a Specialist may. A
Game Round ends when both players end their turns; the game ends after round 3."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from server.rules import engine
from server.rules.combat.wounds import Condition
from server.rules.events import (
    Award,
    Event,
    GameEnded,
    ObjectiveActivated,
    ObjectivePointsScored,
    OrderResolved,
    TurnStarted,
)
from server.rules.ids import SPECTATOR, Side, TrooperId
from server.rules.missions import load_mission
from server.rules.missions.points import award
from server.rules.options import seat_options
from server.rules.state import GameState
from server.rules.views import view_event, view_state
from tests.support.games import close_aro_window, decide, idle_out, play
from tests.support.skirmish import skirmish

A, B = Side.A, Side.B
# n5 skirmish lists: A-t7/A-t8 Lancers (10 points, WIP 13, no Specialist), A-t14 Signal
# Adept (18 points, a Hacker: a Specialist, WIP 14), A-t1 the Warden Officer (Lieutenant,
# 30); B-t1 the Syndicate Boss (Lieutenant, 45), B-t3 an Enforcer (22), B-t7 a Ganger (10).
LANCER, LANCER_2, ADEPT, WARDEN = "A-t7", "A-t8", "A-t14", "A-t1"
BOSS, ENFORCER, GANGER = "B-t1", "B-t3", "B-t7"
CONSOLE_AT, UPLINK_AT = (44.0, 16.0), (4.0, 16.0)


def mission(objectives: list[dict[str, Any]], ruleset: str = "n5") -> dict[str, Any]:
    markers = [{"id": "console", "name": "Console", "kind": "console",
                "x": CONSOLE_AT[0], "y": CONSOLE_AT[1]},
               {"id": "uplink", "name": "Uplink", "kind": "antenna",
                "x": UPLINK_AT[0], "y": UPLINK_AT[1]}]
    return {"format": "infinity-referee-mission/1", "id": "test-plaza", "title": "Plaza",
            "description": "A test mission.", "rulesets": [ruleset], "rounds": 3,
            "max_op": 10,
            "zones": [{"id": "plaza", "name": "Plaza", "x0": 16, "y0": 16, "x1": 23, "y1": 22}],
            "markers": markers if ruleset == "n5" else [], "objectives": objectives}


DOMINATE = {"id": "plaza", "kind": "dominate", "op": 1, "zones": ["plaza"], "by": "points",
            "when": ["round_end"]}
CONSOLES = {"id": "consoles", "kind": "activate", "op": 1, "markers": ["console"],
            "when": "game_end"}
UPLINK = {"id": "uplink", "kind": "activate", "op": 2, "markers": ["uplink"],
          "when": "round_end", "per_round": True, "specialists_only": True}
FAR = {BOSS: (30, 44, 270), WARDEN: (30, 4, 90)}
"""The Lieutenants, on the table far from everything."""


def game(placements: dict[str, Any], objectives: list[dict[str, Any]], dice: tuple[int, ...] = (),
         ruleset: str = "n5") -> GameState:
    lieutenants = FAR if ruleset == "n5" else {BOSS: (12, 30, 270), WARDEN: (12, 2, 90)}
    state = skirmish({**lieutenants, **placements}, ruleset=ruleset, dice=dice)
    return replace(state, mission=load_mission(mission(objectives, ruleset)))


def end_round(state: GameState) -> tuple[GameState, list[Event]]:
    """Both players end their turns: the Game Round ends (the game, after round 3)."""
    produced: list[Event] = []
    for side in (state.active, state.reactive):
        assert side is not None
        state, events = play(state, side, {"type": "end_turn"})
        produced += events
    return state, produced


def scorings(events: list[Event]) -> list[ObjectivePointsScored]:
    return [e for e in events if isinstance(e, ObjectivePointsScored)]


def kill(state: GameState, trooper: str, condition: Condition = Condition.DEAD) -> GameState:
    return state.with_trooper(replace(state.trooper(TrooperId(trooper)), condition=condition))


def last_round(state: GameState) -> GameState:
    return replace(state, round=3)


def activate(state: GameState, trooper: str, marker: str) -> tuple[GameState, list[Event]]:
    """``trooper`` spends a Regular Order: Activate on ``marker``, then Idle, no ARO."""
    state, _ = play(state, state.trooper(TrooperId(trooper)).side,
                    {"type": "activate", "trooper": trooper, "order": "regular"})
    state, _ = play(state, state.trooper(TrooperId(trooper)).side,
                    {"type": "declare_skill", "skill": {"type": "activate", "marker": marker}})
    state, first = close_aro_window(state)
    state, rest = idle_out(state)
    return state, [*first, *rest]


# --- dominating a zone --------------------------------------------------------------------------


def test_a_zone_is_dominated_by_the_points_inside_at_the_rounds_end_digest_11_5() -> None:
    """Two Lancers (20 points) against an Enforcer (22): B dominates by points; counted by
    troopers A would (2 against 1). Scored after the round's second turn, before round 2."""
    placements = {LANCER: (17, 17, 90), LANCER_2: (19, 17, 90), ENFORCER: (21, 20, 270)}
    state, events = end_round(game(placements, [DOMINATE]))
    (scored,) = scorings(events)
    assert scored == ObjectivePointsScored("round_end", 1, (
        Award(B, "plaza", 1, "dominates the Plaza (22 points inside against 20)"),))
    assert events.index(scored) < next(i for i, e in enumerate(events) if isinstance(e, TurnStarted)
                                       and e.round == 2)
    assert dict(state.objective_points) == {B: 1}
    _, events = end_round(game(placements, [{**DOMINATE, "by": "count"}]))
    assert scorings(events)[0].awards == (
        Award(A, "plaza", 1, "dominates the Plaza (2 troopers inside against 1)"),)


def test_a_tie_in_a_zone_scores_nothing_digest_11_5() -> None:
    """Equal points inside (10 against 10), or nobody inside: nobody dominates, and no
    scoring event is emitted."""
    tied = game({LANCER: (17, 17, 90), GANGER: (21, 20, 270)}, [DOMINATE])
    state, events = end_round(tied)
    assert scorings(events) == [] and dict(state.objective_points) == {}
    _, events = end_round(game({}, [DOMINATE]))
    assert scorings(events) == []


def test_a_trooper_that_leaves_the_zone_before_the_rounds_end_does_not_count_digest_11_5() -> None:
    """Scored where the troopers stand at the round's end: the Lancer walks out of the
    Plaza in its turn, and the Ganger left inside dominates."""
    state = game({LANCER: (17, 17, 90), GANGER: (21, 20, 270)}, [DOMINATE])
    state, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill",
                               "skill": {"type": "move", "route": [[17, 17], [14, 17]]}})
    state, _ = close_aro_window(state)
    state, _ = idle_out(state)
    state, events = end_round(state)
    assert scorings(events)[0].awards == (
        Award(B, "plaza", 1, "dominates the Plaza (10 points inside against 0)"),)


def test_troopers_in_a_null_state_or_as_markers_inside_do_not_count_digest_11_5() -> None:
    """An Unconscious Enforcer inside counts for nothing; nor does a Camouflage Marker (what
    it is, and so its points, is private: the Pathfinder Scout A-t3 deploys as one)."""
    placements = {LANCER: (17, 17, 90), ENFORCER: (21, 20, 270), "A-t3": (19, 20, 90)}
    state = kill(game(placements, [DOMINATE]), ENFORCER, Condition.UNCONSCIOUS)
    assert state.trooper(TrooperId("A-t3")).marker
    _, events = end_round(state)
    assert scorings(events)[0].awards == (
        Award(A, "plaza", 1, "dominates the Plaza (10 points inside against 0)"),)


# --- activating a console -----------------------------------------------------------------------


def test_a_console_activated_by_a_passed_wip_roll_scores_at_the_games_end_digest_11_5() -> None:
    """A Short Skill in base contact, a Normal WIP Roll (13 for a Lancer; 5 passes), offered
    with its Success Value; ObjectiveActivated follows the Order's resolution; the OP come
    at the end of the game."""
    state = last_round(game({LANCER: (CONSOLE_AT[0] - 1, CONSOLE_AT[1], 0)}, [CONSOLES], dice=(5,)))
    opened, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    offered = seat_options(opened, A)["skills"]["activate"]
    assert list(offered) == ["console"]
    assert (offered["console"]["attribute"], offered["console"]["sv"]) == ("WIP", 13)
    state, events = activate(state, LANCER, "console")
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    (roll,) = resolved.outcome.rolls
    assert (roll.skill, roll.attribute, roll.success_value, roll.successes) == ("activate", "WIP", 13, 1)
    assert ObjectiveActivated(A, TrooperId(LANCER), "console", 3) in events
    assert events.index(resolved) < events.index(ObjectiveActivated(A, TrooperId(LANCER), "console", 3))
    state, events = end_round(state)
    (scored,) = scorings(events)
    assert scored == ObjectivePointsScored("game_end", 3, (
        Award(A, "consoles", 1, "1 activation (Console)"),))
    (ended,) = [e for e in events if isinstance(e, GameEnded)]
    assert dict(ended.result.objective_points) == {A: 1, B: 0} and ended.result.winner is A


def test_a_failed_activation_may_be_tried_again_with_another_short_skill_digest_11_5() -> None:
    """A failed roll (20) activates nothing; the next Order tries again and passes (5)."""
    state = game({LANCER: (CONSOLE_AT[0] - 1, CONSOLE_AT[1], 0)}, [CONSOLES], dice=(20, 5))
    state, events = activate(state, LANCER, "console")
    assert not any(isinstance(e, ObjectiveActivated) for e in events)
    assert state.objective_activations == ()
    state, events = activate(state, LANCER, "console")
    assert ObjectiveActivated(A, TrooperId(LANCER), "console", 1) in events


def test_activating_a_console_twice_is_refused_with_its_reason_digest_11_5() -> None:
    """Once per side: a second Activate is refused (``already_activated``) and no longer
    offered; the other side may still activate it."""
    state = game({LANCER: (CONSOLE_AT[0] - 1, CONSOLE_AT[1], 0),
                  GANGER: (CONSOLE_AT[0] + 1, CONSOLE_AT[1], 180)}, [CONSOLES], dice=(5,))
    state, _ = activate(state, LANCER, "console")
    state, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    again = decide(state, A, {"type": "declare_skill", "skill": {"type": "activate", "marker": "console"}})
    assert getattr(again, "code", None) == "already_activated"
    assert "already activated the Console" in again.message  # type: ignore[union-attr]
    assert seat_options(state, A)["skills"]["activate"] == {}
    state, _ = idle_out(state)
    state, _ = play(state, A, {"type": "end_turn"})
    state, _ = play(state, B, {"type": "activate", "trooper": GANGER, "order": "regular"})
    assert list(seat_options(state, B)["skills"]["activate"]) == ["console"]


def test_a_marker_activated_once_per_round_may_be_activated_again_next_round_digest_11_5() -> None:
    """The uplink (per round, Specialists only, 2 OP at the round's end): activated in round
    1, refused again in round 1, scored at its end, activated again in round 2."""
    # A-t11, a Lancer of the Adept's Combat Group 2, brings the group's second Order.
    state = game({ADEPT: (UPLINK_AT[0] + 1, UPLINK_AT[1], 180), "A-t11": (8, 4, 90)}, [UPLINK],
                 dice=(5, 5))
    state, _ = activate(state, ADEPT, "uplink")
    state, _ = play(state, A, {"type": "activate", "trooper": ADEPT, "order": "regular"})
    again = decide(state, A, {"type": "declare_skill", "skill": {"type": "activate", "marker": "uplink"}})
    assert getattr(again, "code", None) == "already_activated"
    state, _ = idle_out(state)
    state, events = end_round(state)
    assert scorings(events)[0].awards == (Award(A, "uplink", 2, "1 activation this Game Round (Uplink)"),)
    state, events = activate(state, ADEPT, "uplink")
    assert ObjectiveActivated(A, TrooperId(ADEPT), "uplink", 2) in events


def test_a_non_specialist_out_of_contact_or_unknown_marker_is_refused_digest_11_5() -> None:
    """Each refusal has its reason: a Lancer is no Specialist for the uplink; a trooper
    apart from the console; a marker the mission does not have; a game with no mission."""
    state = game({LANCER: (UPLINK_AT[0] + 1, UPLINK_AT[1], 180), LANCER_2: (40, 10, 0)},
                 [CONSOLES, UPLINK])
    checks = {LANCER: ("uplink", "not_a_specialist"), LANCER_2: ("console", "not_in_base_contact")}
    for trooper, (marker, code) in checks.items():
        opened, _ = play(state, A, {"type": "activate", "trooper": trooper, "order": "regular"})
        refused = decide(opened, A, {"type": "declare_skill",
                                     "skill": {"type": "activate", "marker": marker}})
        assert getattr(refused, "code", None) == code, refused
        assert seat_options(opened, A)["skills"]["activate"] == {}
    opened, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    unknown = decide(opened, A, {"type": "declare_skill", "skill": {"type": "activate", "marker": "vault"}})
    assert getattr(unknown, "code", None) == "no_such_marker"
    plain = replace(opened, mission=None)
    none = decide(plain, A, {"type": "declare_skill", "skill": {"type": "activate", "marker": "uplink"}})
    assert getattr(none, "code", None) == "no_such_marker"


# --- kills ------------------------------------------------------------------------------------


def test_the_enemy_lieutenant_killed_scores_at_the_games_end_digest_11_5() -> None:
    """The Lieutenant the list named, Dead at the end of the game: OP to the other side (its
    identity is revealed then, with the game's end)."""
    objective = {"id": "head", "kind": "kill_lieutenant", "op": 2}
    state = kill(last_round(game({}, [objective])), BOSS)
    _, events = end_round(state)
    assert scorings(events)[0].awards == (
        Award(A, "head", 2, "killed the enemy Lieutenant (Syndicate Boss)"),)


def test_more_points_killed_scores_for_the_side_that_killed_more_digest_11_5() -> None:
    """A killed the Enforcer (22), B killed a Lancer (10): A killed more."""
    objective = {"id": "more", "kind": "more_points_killed", "op": 1}
    state = last_round(game({LANCER: (10, 4, 90), ENFORCER: (10, 44, 270)}, [objective]))
    state = kill(kill(state, ENFORCER), LANCER)
    _, events = end_round(state)
    assert scorings(events)[0].awards == (
        Award(A, "more", 1, "killed 22 enemy army points against 10"),)


def test_codeone_kill_thresholds_score_the_highest_band_reached_digest_14() -> None:
    """CodeOne annihilation: bands of the enemy's army points killed (B's cell: 30 points;
    the Boss, 5, and both Enforcers, 6, are 11: 36%, the 25% band)."""
    objective = {"id": "toll", "kind": "kill_thresholds",
                 "bands": [{"share": 0.25, "op": 1}, {"share": 0.5, "op": 2}]}
    state = last_round(game({}, [objective], ruleset="codeone"))
    for trooper in (BOSS, "B-t3", "B-t4"):
        state = kill(state, trooper)
    _, events = end_round(state)
    assert scorings(events)[0].awards == (
        Award(A, "toll", 1, "killed 11 of the enemy's 30 army points (25% or more)"),)


# --- the score ------------------------------------------------------------------------------------


def test_objective_points_are_capped_at_the_missions_maximum_digest_11_5() -> None:
    """A side with 9 OP that scores 2 more has 10: the award says 1, what it scored."""
    state = award(last_round(game({}, [{"id": "head", "kind": "kill_lieutenant", "op": 2}])), A, 9)
    state = kill(state, BOSS)
    state, events = end_round(state)
    assert [a.op for a in scorings(events)[0].awards] == [1]
    assert state.objective_points[A] == 10 and award(state, A, 5).objective_points[A] == 10


def test_the_winner_is_decided_by_op_then_by_vp_digest_11_5() -> None:
    """More OP wins even with fewer VP; on equal OP, more VP wins."""
    objective = {"id": "head", "kind": "kill_lieutenant", "op": 2}
    state = kill(last_round(game({}, [objective])), BOSS)
    state = state.with_trooper(replace(state.trooper(TrooperId("A-t6")), condition=Condition.DEAD))
    _, events = end_round(state)
    (ended,) = [e for e in events if isinstance(e, GameEnded)]
    vp = ended.result.victory_points
    assert vp[A] < vp[B] and ended.result.winner is A
    even = kill(award(award(last_round(game({}, [objective])), A, 3), B, 3), GANGER)
    _, events = end_round(even)
    (ended,) = [e for e in events if isinstance(e, GameEnded)]
    assert dict(ended.result.op) == {A: 3, B: 3}
    vp = ended.result.victory_points
    assert vp[A] > vp[B] and ended.result.winner is A


def test_a_concession_gives_the_other_side_the_maximum_and_the_conceder_nothing_digest_11_5() -> None:
    """docs/rules-decisions/missions.md: conceding never saves the loser from the points the
    winner could still have scored."""
    state = award(award(game({}, [DOMINATE]), A, 2), B, 4)
    state, events = play(state, B, {"type": "concede"})
    (scored,) = scorings(list(events))
    assert scored.awards == (Award(A, "concession", 8, "the enemy conceded: the mission's maximum"),)
    assert state.result is not None and dict(state.result.op) == {A: 10, B: 0}
    assert state.result.winner is A


def test_a_game_without_a_mission_is_scored_as_before_digest_11_5() -> None:
    """No mission: no OP, no scoring event, the winner on Victory Points, no activate."""
    state = last_round(skirmish({**FAR, LANCER: (17, 17, 90)}, ruleset="n5"))
    opened, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    assert seat_options(opened, A)["skills"]["activate"] == {}
    state, events = end_round(state)
    assert scorings(events) == []
    (ended,) = [e for e in events if isinstance(e, GameEnded)]
    assert ended.result.op == {} and state.objective_points == {}
    vp = ended.result.victory_points
    assert ended.result.winner is (A if vp[A] > vp[B] else B if vp[B] > vp[A] else None)


def test_the_mission_and_its_score_are_open_to_every_viewer_digest_11_5() -> None:
    """The mission, the OP so far and the activations in every viewer's state; the scoring
    and activation events alike for everyone."""
    state = game({LANCER: (CONSOLE_AT[0] - 1, CONSOLE_AT[1], 0), ENFORCER: (21, 20, 270)},
                 [DOMINATE, CONSOLES], dice=(5,))
    state, activated = activate(state, LANCER, "console")
    state, events = end_round(state)
    views = [view_state(state, viewer) for viewer in (A, B, SPECTATOR)]
    for key in ("mission", "objective_points", "objective_activations"):
        assert views[0][key] == views[1][key] == views[2][key]
    assert views[2]["objective_points"] == {"B": 1}
    assert [z["id"] for z in views[2]["mission"]["zones"]] == ["plaza"]
    assert views[2]["mission"]["markers"][0]["id"] == "console"
    assert views[2]["objective_activations"] == [
        {"side": "A", "marker": "console", "round": 1, "trooper": LANCER}]
    for event in [*activated, *events]:
        if isinstance(event, ObjectiveActivated | ObjectivePointsScored):
            seen = {str(view_event(event, viewer, state)) for viewer in (A, B, SPECTATOR)}
            assert len(seen) == 1
    replayed = engine.state_from_plain(engine.state_to_plain(state))
    assert replayed.mission == state.mission and replayed.objective_points == state.objective_points
