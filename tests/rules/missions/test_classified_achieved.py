"""Classified Objectives achieved automatically (missions/classified.py;
docs/missions-classified.md): the referee judges each card after every event, a card is
achieved once and scores once (Objective Points, DIGEST 11.5), and achieving it reveals it
to everyone; at the game's end every card becomes open, as Private Information does
(DIGEST 11.2)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Rejected
from server.rules.events import ClassifiedAchieved, Event, GameEnded, OrderResolved, SkillDeclared
from server.rules.ids import SPECTATOR, Side, TrooperId
from server.rules.state import ClassifiedCard, GameState, Phase
from server.rules.views import view_event, view_state
from tests.rules.missions.classified_support import achieved, classified_mission, holding
from tests.support.games import close_aro_window, idle_out, play

A, B = Side.A, Side.B
KNIFE = "combat_knife"
# S2 bases: 1 inch between centres is base contact (as in tests/rules/combat/test_doctor.py).
DOWNED = {"B-t7": {"condition": "unconscious", "wounds": 1}}


def _cc_attack(state: GameState, attacker: str, target: str) -> tuple[GameState, list[Event]]:
    state, first = play(state, A, {"type": "activate", "trooper": attacker, "order": "regular"})
    state, declared = play(state, A, {"type": "declare_skill",
                                      "skill": {"type": "cc_attack", "weapon": KNIFE, "target": target}})
    state, closed = close_aro_window(state)
    state, rest = idle_out(state)
    return state, [*first, *declared, *closed, *rest]


def _specialist(state: GameState, trooper: str) -> GameState:
    found = state.trooper(TrooperId(trooper))
    profile = replace(found.profile, specialist_operative=True)
    return state.with_trooper(replace(found, entry=replace(found.entry, profile=profile)))


# --- kills ---------------------------------------------------------------------------------


def test_digest_7_7_quiet_blade_an_enemy_killed_by_a_cc_attack_achieves_it() -> None:
    """A Coup de Grâce (DIGEST 7.7: a CC Attack on an Unconscious enemy in base contact
    kills it) is a kill by a CC Attack."""
    state = holding({A: ["quiet-blade"], B: ["deep-footprint"]},
                    placements={"A-t7": [10, 20, 90], "B-t7": [11, 20, 270]}, troopers=DOWNED)
    state, events = _cc_attack(state, "A-t7", "B-t7")
    (card,) = achieved(events)
    assert card == ClassifiedAchieved(A, "quiet-blade", 1,
                                      "Quiet Blade: Syndicate Ganger killed in close combat by "
                                      "Lancer Line Trooper")
    resolved = next(i for i, e in enumerate(events) if isinstance(e, OrderResolved))
    assert events[resolved + 1] == card  # right after the Order that showed it
    assert state.classified[A] == (ClassifiedCard("quiet-blade", True, op=1),)
    assert state.classified[B] == (ClassifiedCard("deep-footprint", False),)
    assert state.objective_points == {A: 1}, "the card's OP go into the side's total"


def test_digest_11_5_a_card_achieved_at_the_missions_maximum_scores_what_is_left() -> None:
    """Implementation test: no rule section. The mission's cap holds for Classified
    Objectives as for every objective: a side one OP short of the maximum scores one of a
    card's two, and the card is achieved (open) all the same."""
    state = holding({A: ["quiet-blade"], B: ["deep-footprint"]}, op=2,
                    placements={"A-t7": [10, 20, 90], "B-t7": [11, 20, 270]}, troopers=DOWNED)
    assert state.mission is not None
    state = replace(state, objective_points={A: state.mission.max_op - 1})
    state, events = _cc_attack(state, "A-t7", "B-t7")
    (card,) = achieved(events)
    assert card.op == 1
    assert state.objective_points[A] == state.mission.max_op
    assert state.classified[A] == (ClassifiedCard("quiet-blade", True, op=1),)


def test_digest_7_quiet_blade_a_cc_attack_that_kills_nobody_achieves_nothing() -> None:
    state = holding({A: ["quiet-blade"], B: ["deep-footprint"]},
                    placements={"A-t7": [10, 20, 90], "B-t7": [11, 20, 270]}, dice=[19, 19])
    state, events = _cc_attack(state, "A-t7", "B-t7")
    assert not achieved(events)
    assert state.classified[A] == (ClassifiedCard("quiet-blade", False),)


def test_digest_7_7_a_card_achieved_twice_scores_once() -> None:
    """Two kills by CC Attacks: one ``classified_achieved``, one card's Objective Points."""
    state = holding({A: ["quiet-blade"], B: ["deep-footprint"]}, op=2,
                    placements={"A-t7": [10, 20, 90], "B-t7": [11, 20, 270],
                                "A-t8": [30, 20, 90], "B-t8": [31, 20, 270]},
                    troopers={**DOWNED, "B-t8": {"condition": "unconscious", "wounds": 1}})
    state, first = _cc_attack(state, "A-t7", "B-t7")
    state, second = _cc_attack(state, "A-t8", "B-t8")
    assert state.trooper(TrooperId("B-t8")).condition.value == "dead"
    assert len(achieved(first)) == 1 and achieved(second) == []
    assert view_state(state, SPECTATOR)["classified"]["A"]["op"] == 2


def test_digest_10_2_doorstep_raid_a_kill_inside_the_victims_own_deployment_zone() -> None:
    """B deploys north (y 36 to 48): a victim touching it counts as inside (DIGEST 10.2)."""
    state = holding({A: ["doorstep-raid"], B: ["deep-footprint"]},
                    placements={"A-t7": [10, 35.8, 90], "B-t7": [11, 35.8, 270]}, troopers=DOWNED)
    state, events = _cc_attack(state, "A-t7", "B-t7")
    assert [e.card for e in achieved(events)] == ["doorstep-raid"]
    assert "inside its own deployment zone" in achieved(events)[0].reason


def test_digest_10_2_doorstep_raid_a_kill_outside_that_zone_achieves_nothing() -> None:
    state = holding({A: ["doorstep-raid"], B: ["deep-footprint"]},
                    placements={"A-t7": [10, 30, 90], "B-t7": [11, 30, 270]}, troopers=DOWNED)
    state, events = _cc_attack(state, "A-t7", "B-t7")
    assert state.trooper(TrooperId("B-t7")).condition.value == "dead"
    assert not achieved(events)


def test_digest_7_7_cut_the_wires_only_a_specialist_killed_counts() -> None:
    plain = holding({A: ["cut-the-wires"], B: ["deep-footprint"]},
                    placements={"A-t7": [10, 20, 90], "B-t7": [11, 20, 270]}, troopers=DOWNED)
    _, events = _cc_attack(plain, "A-t7", "B-t7")
    assert not achieved(events)
    _, events = _cc_attack(_specialist(plain, "B-t7"), "A-t7", "B-t7")
    assert [e.card for e in achieved(events)] == ["cut-the-wires"]


def test_digest_7_7_expert_hands_the_killer_must_be_a_specialist() -> None:
    plain = holding({A: ["expert-hands"], B: ["deep-footprint"]},
                    placements={"A-t7": [10, 20, 90], "B-t7": [11, 20, 270]}, troopers=DOWNED)
    _, events = _cc_attack(plain, "A-t7", "B-t7")
    assert not achieved(events)
    _, events = _cc_attack(_specialist(plain, "A-t7"), "A-t7", "B-t7")
    assert [e.reason for e in achieved(events)] == [
        "Expert Hands: Syndicate Ganger killed by the Specialist Lancer Line Trooper"]


# --- at any moment -------------------------------------------------------------------------


def _move(state: GameState, trooper: str, route: list[list[float]]) -> tuple[GameState, list[Event]]:
    state, first = play(state, A, {"type": "activate", "trooper": trooper, "order": "regular"})
    state, declared = play(state, A, {"type": "declare_skill", "skill": {"type": "move", "route": route}})
    return state, [*first, *declared]


def test_seed_000_handshake_protocol_a_specialist_moving_into_base_contact_with_an_enemy() -> None:
    """Achieved the moment the Move is declared (the trooper stands in contact then,
    seed 000), before any ARO."""
    setup: dict[str, Any] = {"placements": {"A-t14": [10, 20, 90], "A-t7": [30, 20, 90],
                                            "B-t7": [12.5, 20, 270], "B-t8": [32.5, 20, 270]}}
    state = holding({A: ["handshake-protocol"], B: ["deep-footprint"]}, **setup)
    _, events = _move(state, "A-t7", [[30, 20], [31.5, 20]])  # not a Specialist
    assert not achieved(events)
    _, events = _move(state, "A-t14", [[10, 20], [11.5, 20]])  # the Hacker is one
    declared = next(i for i, e in enumerate(events) if isinstance(e, SkillDeclared))
    assert events[declared + 1] == achieved(events)[0]
    assert [e.reason for e in achieved(events)] == [
        "Handshake Protocol: Signal Adept (Hacker) in base contact with Syndicate Ganger"]


# --- at the end of the game ----------------------------------------------------------------


def _last_turn(cards: dict[Side, list[str]], **setup: Any) -> GameState:
    """A's turn 2 of round 3 (its last), in its Orders Phase (A plays second here)."""
    state = holding(cards, **setup)
    return replace(state, round=3, turn=2)


def _end_game(state: GameState) -> tuple[GameState, tuple[Event, ...]]:
    return play(state, A, c.EndTurn())


def test_digest_11_5_deep_footprint_a_trooper_inside_the_enemy_zone_at_the_end() -> None:
    state = _last_turn({A: ["deep-footprint"], B: ["unbroken-command"]},
                       placements={"A-t1": [5, 5, 90], "A-t7": [10, 40, 90], "B-t1": [40, 40, 270]})
    state, events = _end_game(state)
    kinds = [type(e).__name__ for e in events]
    assert kinds[-3:] == ["ClassifiedAchieved", "ClassifiedAchieved", "GameEnded"]
    assert {(e.side, e.card) for e in achieved(events)} == {(A, "deep-footprint"),
                                                             (B, "unbroken-command")}
    ended = events[-1]
    assert isinstance(ended, GameEnded) and state.phase is Phase.GAME_OVER
    assert ended.classified == {A: (ClassifiedCard("deep-footprint", True, op=1),),
                                B: (ClassifiedCard("unbroken-command", True, op=1),)}


def test_digest_11_5_nothing_is_judged_at_the_end_of_an_earlier_turn() -> None:
    state = holding({A: ["deep-footprint"], B: ["unbroken-command"]},
                    placements={"A-t1": [5, 5, 90], "A-t7": [10, 40, 90], "B-t1": [40, 40, 270]})
    _, events = _end_game(state)
    assert not achieved(events)


def test_digest_11_2_at_the_end_unachieved_cards_are_revealed_to_everyone() -> None:
    """Deep Footprint unmet (nobody in B's zone), B's Lieutenant not on the table: neither
    card is achieved, and the end reveals both, to the opponent and spectators too."""
    state = _last_turn({A: ["deep-footprint", "quiet-blade"], B: ["unbroken-command"]},
                       placements={"A-t1": [5, 5, 90], "A-t7": [10, 20, 90], "B-t3": [40, 40, 270]})
    state, events = _end_game(state)
    assert not achieved(events)
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert ended.classified[A] == (ClassifiedCard("deep-footprint"), ClassifiedCard("quiet-blade"))
    seen = view_event(ended, B, state)
    assert seen is not None and seen["classified"]["A"] == [
        {"id": "deep-footprint", "achieved": False, "op": 0},
        {"id": "quiet-blade", "achieved": False, "op": 0}]
    spectator = view_state(state, SPECTATOR)["classified"]["A"]
    assert [card["title"] for card in spectator["cards"]] == ["Deep Footprint", "Quiet Blade"]


def test_digest_11_2_an_achieved_card_is_open_to_everyone_at_once() -> None:
    state = holding({A: ["quiet-blade", "deep-footprint"], B: ["deep-footprint"]},
                    placements={"A-t7": [10, 20, 90], "B-t7": [11, 20, 270]}, troopers=DOWNED)
    state, events = _cc_attack(state, "A-t7", "B-t7")
    (card,) = achieved(events)
    # The card's words come with the event to those who could not read it: as their views
    # now list it.
    seen = view_event(card, B, state)
    assert seen is not None and seen == view_event(card, SPECTATOR, state)
    assert {k: v for k, v in seen.items() if k != "card_view"} == {
        "type": "classified_achieved", "side": "A", "card": "quiet-blade", "op": 1,
        "reason": card.reason}
    own = view_event(card, A, state)
    assert own is not None and "card_view" not in own
    for viewer in (B, SPECTATOR):
        shown = view_state(state, viewer)["classified"]["A"]
        assert shown["count"] == 2 and shown["op"] == 1
        assert [(c["id"], c["achieved"]) for c in shown["cards"]] == [("quiet-blade", True)]
        assert shown["cards"] == [seen["card_view"]]


def test_digest_11_2_others_read_a_sides_open_cards_by_id_its_holder_in_the_order_drawn() -> None:
    """A view that learns the cards one by one (``classified_achieved``) can keep the
    others' order; the order drawn is the holder's own."""
    state = holding({A: ["quiet-blade", "deep-footprint"], B: ["deep-footprint"]},
                    placements={"A-t7": [10, 20, 90], "B-t7": [11, 20, 270]})
    state = replace(state, classified={**state.classified, A: (
        ClassifiedCard("quiet-blade", True, op=1), ClassifiedCard("deep-footprint", True, op=1))})
    for viewer in (B, SPECTATOR):
        ids = [card["id"] for card in view_state(state, viewer)["classified"]["A"]["cards"]]
        assert ids == ["deep-footprint", "quiet-blade"]
    ids = [card["id"] for card in view_state(state, A)["classified"]["A"]["cards"]]
    assert ids == ["quiet-blade", "deep-footprint"]


def test_digest_11_5_a_whole_game_judges_each_card_once_and_opens_them_all_at_the_end() -> None:
    """A whole CodeOne game played by the test kit's shooting player, four cards a side:
    the draw comes before the Initiative Roll, every ``classified_achieved`` names a card
    its side holds, once, before ``game_ended``, whose ``classified`` agrees with them."""
    from server.rules.decision import Accepted
    from testkit.full_game import next_command

    state = engine.new_game(engine.GameSetup(ruleset="codeone", seed=1,
                                             mission=classified_mission("codeone", 4)))
    entropy = {A: "aa" * 32, B: "bb" * 32}
    log: list[Event] = []
    while state.phase is not Phase.GAME_OVER:
        side, body = next_command(state, entropy, "codeone")
        decision = engine.decide(state, side, c.parse_command(body))
        assert isinstance(decision, Accepted)
        log.extend(decision.events)
        state = decision.state
    kinds = [type(e).__name__ for e in log]
    assert kinds.index("InitiativeRolled") == kinds.index("ClassifiedDrawn") + 2
    cards = achieved(log)
    assert cards and len({(e.side, e.card) for e in cards}) == len(cards)
    ended = log[-1]
    assert isinstance(ended, GameEnded)
    assert {(side, card.id) for side, held in ended.classified.items() for card in held
            if card.achieved} == {(e.side, e.card) for e in cards}
    assert all(len(held) == 4 for held in ended.classified.values())
    for side in (A, B):
        assert view_state(state, SPECTATOR)["classified"][side.value]["op"] == sum(
            e.op for e in cards if e.side is side)


def test_digest_11_5_on_chess_clocks_the_games_end_still_judges_each_card_once() -> None:
    """Implementation test: no rule section. On chess clocks the engine folds a command that
    ends the game a second time, to stop the clocks just before ``game_ended``
    (``engine._with_clock_switches``): the cards are judged once, and the events replay to
    the decided state."""
    state = _last_turn({A: ["deep-footprint"], B: ["unbroken-command"]},
                       placements={"A-t1": [5, 5, 90], "A-t7": [10, 40, 90], "B-t1": [40, 40, 270]})
    state = engine.start_clocks(state, 60_000, 1_000)
    decision = engine.decide(state, A, c.EndTurn(), at_ms=2_000)
    assert not isinstance(decision, Rejected)
    kinds = [type(e).__name__ for e in decision.events]
    assert kinds.count("ClassifiedAchieved") == 2 and kinds[-2:] == ["ClockSwitched", "GameEnded"]
    assert engine.apply_all(state, decision.events) == decision.state
