"""N5 Fireteams as the players meet them: the team's Level seen by everyone, the Order that
activates a team named as the team's, and `options` saying why a trooper may not join.

"Fireteams: Basic Rules" and "Fireteams Chart" (the wiki's N5 pages): a Fireteam, its
members and its Level are open information (the team is on the table for both players to
see); troopers in Marker form (Camouflage, Hidden Deployment) may not be part of one
(the "Fireteams Chart" page's list of who may not join). docs/rules-decisions/fireteams.md
"Open information"; docs/fair-play.md; DIGEST 3.5 (Fireteams, N5).
"""

from __future__ import annotations

from typing import Any

from server.rules import engine
from server.rules.decision import Accepted, Rejected
from server.rules.events import FireteamLeft, OrderSpent
from server.rules.evolve import replace
from server.rules.ids import SPECTATOR, Side, TrooperId
from server.rules.options import seat_options
from server.rules.plain import Plain
from server.rules.state import GameState
from server.rules.views import view_event, view_state
from tests.support.games import close_aro_window, decide, play
from tests.support.scenarios import build_state
from tests.support.skirmish import Placement, skirmish

A, B = Side.A, Side.B
L7, L8, L9, L11 = "A-t7", "A-t8", "A-t9", "A-t11"  # Lancers: G1, G1, G1, G2
WARDEN, BULWARK, TINKER = "A-t1", "A-t2", "A-t4"


def _able(state: GameState, ids: list[str], **flags: Any) -> GameState:
    """Give these troopers' profiles the Fireteam fields (what the Fireteams Chart lists)."""
    for trooper_id in ids:
        trooper = state.trooper(TrooperId(trooper_id))
        profile = replace(trooper.profile, **flags)
        state = state.with_trooper(replace(trooper, entry=replace(trooper.entry, profile=profile)))
    return state


def _table(placements: dict[str, list[float]] | None = None) -> GameState:
    spots = {L7: [10, 10, 90], L8: [12, 10, 90], L9: [14, 10, 90], L11: [18, 10, 90],
             WARDEN: [10, 12, 90], BULWARK: [12, 12, 90], TINKER: [14, 12, 90],
             "B-t1": [40, 40, 270]}
    state = build_state({"ruleset": "n5", "terrain": [], "placements": {**spots, **(placements or {})}})
    return _able(state, [L7, L8, L9, L11, WARDEN, TINKER],
                 fireteam_core=True, fireteam_haris=True, fireteam_duo=True)


def _form(kind: str, leader: str, *members: str) -> dict[str, Any]:
    return {"type": "form_fireteam", "kind": kind, "leader": leader, "members": list(members)}


def test_the_opponent_and_spectators_see_each_teams_level_as_it_changes() -> None:
    """"Fireteam Bonuses": the Level counts the members of one unit. Three Lancers and the
    Warden: Level 3; the opponent's and a spectator's snapshot show it, and when a Lancer
    leaves, `fireteam_left` carries the Level the team keeps (2), so a client folding the
    events shows the same."""
    state, _ = play(_table(), A, _form("core", L7, L8, L9, WARDEN))
    for viewer in (B, SPECTATOR):
        (team,) = view_state(state, viewer)["fireteams"]
        assert team == {"side": "A", "kind": "core", "leader": L7,
                        "members": [L7, L8, L9, WARDEN], "level": 3}
    state, events = play(state, A, {"type": "activate", "trooper": L9, "order": "regular"})
    left = events[0]
    assert left == FireteamLeft(A, TrooperId(L7), TrooperId(L9), "activated_alone", False, 2)
    assert view_event(left, B, state) == {"type": "fireteam_left", "side": "A", "leader": L7,
                                          "trooper": L9, "reason": "activated_alone",
                                          "cancelled": False, "level": 2}
    assert view_state(state, B)["fireteams"][0]["level"] == 2


def test_a_fireteam_order_names_the_team_and_its_level_for_every_viewer() -> None:
    """"Fireteams Module": one Regular Order activates the whole team. The `order_spent`
    says it is the team's (its type and Level) and who follows the leader; an Order of a
    trooper alone says nothing of a team."""
    state, _ = play(_table(), A, _form("core", L7, L8, L9))
    state, events = play(state, A, {"type": "activate_fireteam", "leader": L8})
    (spent,) = [e for e in events if isinstance(e, OrderSpent)]
    assert (spent.trooper, spent.fireteam, spent.fireteam_level) == (L8, "core", 3)
    for viewer in (B, SPECTATOR):
        seen = view_event(spent, viewer, state)
        assert seen is not None
        assert (seen["fireteam"], seen["fireteam_level"], seen["peripherals"]) == ("core", 3, [L7, L9])
    state, _ = _team_idles_out(state)
    state, events = play(state, A, {"type": "activate", "trooper": WARDEN, "order": "regular"})
    (alone,) = [e for e in events if isinstance(e, OrderSpent)]
    assert (alone.fireteam, alone.fireteam_level) == (None, 0)


def _windows_closed(state: GameState) -> tuple[GameState, list[Any]]:
    """Close every ARO window the game waits on (none may be open)."""
    closed: list[Any] = []
    while engine.pending_aro_window(state) is not None:
        state, events = close_aro_window(state)
        closed += events
    return state, closed


def _team_idles_out(state: GameState) -> tuple[GameState, list[Any]]:
    """Run the team's Order to its end: the leader and every member declare Idle."""
    produced: list[Any] = []
    while state.order is not None:
        state, closed = _windows_closed(state)
        produced += closed
        if state.order is None:
            break
        idle = {"type": "idle"}
        assert state.active is not None
        state, events = play(state, state.active, {
            "type": "declare_skill", "skill": idle,
            "peripherals": [{"trooper": m, "skill": idle} for m in state.order.peripherals]})
        produced += events
    return state, produced


def _accepted_or_why(state: GameState, body: dict[str, Any]) -> str | None:
    decision = decide(state, A, body)
    return None if isinstance(decision, Accepted) else decision.message


def test_options_say_why_a_trooper_may_not_join_in_the_words_the_rules_refuse_with() -> None:
    """`options` tells the truth: every trooper not offered for a type has the reason the
    rules core refuses it with (not a Fireteam unit, a Peripheral's Controller, another
    Combat Group, out of Coherency), and a type at its Chart limit says so."""
    state = _table({L9: [30, 10, 90]})  # 16" from the others: out of Coherency
    offered = seat_options(state, A)["fireteams"]
    duo = offered["form"]["duo"]
    assert duo["unable"][BULWARK] == "Bulwark Heavy Trooper (A-t2) may not join a Fireteam: Duo."
    assert "Peripheral or a Controller" in duo["unable"][TINKER]
    assert duo["apart"][L7][L11] == "Every member of a Fireteam belongs to the same Combat Group."
    assert "Lancer Line Trooper (A-t9) is not in Coherency" in duo["apart"][L7][L9]
    # Each reason is the refusal itself: as the leader (unable) or as the one joining (apart).
    for trooper, why in duo["unable"].items():
        assert _accepted_or_why(state, _form("duo", trooper, L8)) == why, trooper
    for leader, apart in duo["apart"].items():
        for trooper, why in apart.items():
            assert _accepted_or_why(state, _form("duo", leader, trooper)) == why, (leader, trooper)
    state, _ = play(_table(), A, _form("duo", L7, L8))
    offered = seat_options(state, A)["fireteams"]
    assert offered["form"]["core"]["unable"][L7] == "Lancer Line Trooper (A-t7) is already in a Fireteam."
    assert offered["unavailable"]["haris"].startswith("Too few of your troopers may form a Fireteam: Haris")
    state, _ = play(_table(), A, _form("core", L7, L8, WARDEN))
    offered = seat_options(state, A)["fireteams"]
    assert "core" not in offered["form"]
    assert offered["unavailable"]["core"] == "You may have only 1 Fireteam: Core on the table at a time."
    assert _accepted_or_why(state, _form("core", L9, L11)) == offered["unavailable"]["core"]


def test_a_trooper_with_infiltration_joins_no_fireteam_and_options_say_so() -> None:
    """"Fireteams Chart" (N5): troopers with the Infiltration Special Skill cannot be part of
    a Fireteam, even when their profile lists the type."""
    state = _able(_table(), [L9], infiltration=True)
    why = seat_options(state, A)["fireteams"]["form"]["core"]["unable"][L9]
    assert why == "Lancer Line Trooper (A-t9) has Infiltration; such troopers join no Fireteam."
    assert _accepted_or_why(state, _form("core", L7, L8, L9)) == why


def test_options_say_when_no_command_token_is_left_to_form_a_team() -> None:
    """"Fireteams: Basic Rules": during the game a team costs a Command Token."""
    state = _table()
    state = replace(state, command_tokens=replace(state.command_tokens, held={A: 0, B: 4}))
    offered = seat_options(state, A)["fireteams"]
    assert offered["form"] == {} and offered["cost"] is None
    assert offered["no_forming"] == _accepted_or_why(state, _form("duo", L7, L8))
    assert "Command Token" in offered["no_forming"]


def test_a_list_without_fireteam_units_gets_no_reasons() -> None:
    state = build_state({"ruleset": "n5", "terrain": [], "placements": {L7: [10, 10, 90]}})
    offered = seat_options(state, A)["fireteams"]
    assert offered["unavailable"] == {} and offered["no_forming"] is None


# --- hidden troopers never show through a Fireteam ------------------------------------------

GHOST = "B-t2"  # vesper-raiders' Ghost Infiltrator: Hidden Deployment
GANGERS = ["B-t7", "B-t8", "B-t9"]  # Combat Group 1
B_VISIBLE: dict[str, Placement] = {
    "B-t1": (6.0, 44.0, 270.0), "B-t7": (20.0, 40.0, 270.0), "B-t8": (22.0, 40.0, 270.0),
    "B-t9": (24.0, 40.0, 270.0), "A-t1": (44.0, 4.0, 90.0)}
WHERE_GHOST: dict[str, dict[str, Placement]] = {
    "beside_the_team": {GHOST: (21.0, 42.0, 270.0, "hidden")},
    "far_away": {GHOST: (2.0, 30.0, 90.0, "hidden")},
    "not_on_the_table": {},
}


def _b_plays_a_fireteam(where: str) -> list[object]:
    """B (first) tries a Core with its hidden Ghost (refused: only B hears why), forms one of
    three Gangers, activates it and moves it; everything A and a spectator receive."""
    state = skirmish({**B_VISIBLE, **WHERE_GHOST[where]}, ruleset="n5", first=B)
    state = _able(state, [*GANGERS, GHOST], fireteam_core=True)
    move = {"type": "declare_skill", "skill": {"type": "move", "route": [[20, 40], [20, 37]]},
            "peripherals": [{"trooper": t, "skill": {"type": "move", "route": [[x, 40], [x, 37]]}}
                            for t, x in (("B-t8", 22), ("B-t9", 24))]}
    bodies: list[Plain] = [_form("core", "B-t7", "B-t8", GHOST), _form("core", "B-t7", "B-t8", "B-t9"),
                           {"type": "activate_fireteam", "leader": "B-t7"}, move]
    received: list[object] = []
    for i, body in enumerate(bodies):
        decision = decide(state, B, body)
        if i == 0:  # the Ghost's team: refused, and only B hears why
            assert isinstance(decision, Rejected)
            continue
        assert isinstance(decision, Accepted), decision
        for event in decision.events:
            state = engine.apply(state, event)
        received += [(str(viewer), view_event(ev, viewer, state))
                     for ev in decision.events for viewer in (A, SPECTATOR)]
        state, closed = _windows_closed(state)
        received += [(str(viewer), view_event(ev, viewer, state)) for ev in closed for viewer in (A, SPECTATOR)]
        received.append(("options", seat_options(state, A)))
    received.append(("state", view_state(state, A), view_state(state, SPECTATOR)))
    return received


def test_a_hidden_trooper_never_shows_through_its_sides_fireteam() -> None:
    """docs/fair-play.md: games that differ only in where B's Hidden Deployment trooper is
    (beside the team, far away, kept off the table) send A and spectators the same events,
    options and snapshots, Fireteam and Level included; the Ghost cannot join (a Marker is
    no Fireteam member), and B alone hears why."""
    streams = [_b_plays_a_fireteam(where) for where in WHERE_GHOST]
    assert streams[0] == streams[1] == streams[2]
    state = skirmish({**B_VISIBLE, **WHERE_GHOST["beside_the_team"]}, ruleset="n5", first=B)
    state = _able(state, [*GANGERS, GHOST], fireteam_core=True)
    refused = decide(state, B, _form("core", "B-t7", "B-t8", GHOST))
    assert isinstance(refused, Rejected) and "on the table as a Model" in refused.message
    final = streams[0][-1]
    assert isinstance(final, tuple)
    (team,) = final[1]["fireteams"]
    assert team == {"side": "B", "kind": "core", "leader": "B-t7", "members": ["B-t7", *GANGERS[1:]],
                    "level": 3}
