"""A Classified Objective's Short Skill (missions/classified.py, classified_action.py;
docs/missions-classified.md): declared in an Order like any Short Skill (seed 000: the
Order Expenditure Sequence, an ARO window, Resolution), a Normal WIP Roll (DIGEST 7.1) by a
trooper meeting the card's Requirements; passed, the card is achieved; failed, it may be
tried again with another Order. ``options`` offers it only when legal, with the final
Success Value; every refusal has a stable reason and a sentence a player understands."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from server.rules import engine
from server.rules.decision import Rejected
from server.rules.events import ClassifiedAchieved, Event, OrderResolved
from server.rules.ids import SPECTATOR, Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import ClassifiedCard, GameState
from server.rules.views import view_state
from tests.rules.missions.classified_support import achieved, holding
from tests.support.games import close_aro_window, decide, idle_out, play

A, B = Side.A, Side.B
AGENT, DOWNED, TAGGER, STANDING = "A-t7", "B-t7", "A-t9", "B-t8"
PLACEMENTS: dict[str, Any] = {AGENT: [10, 20, 90], DOWNED: [11, 20, 270], "A-t8": [9, 20, 90],
                              TAGGER: [30, 20, 90], STANDING: [31, 20, 270]}
UNCONSCIOUS = {DOWNED: {"condition": "unconscious", "wounds": 1}}


def _state(cards: list[str], dice: list[int] | None = None, **setup: Any) -> GameState:
    return holding({A: cards, B: ["deep-footprint"]}, placements=setup.pop("placements", PLACEMENTS),
                   troopers=setup.pop("troopers", UNCONSCIOUS), dice=dice or [], **setup)


def _activate(state: GameState, trooper: str = AGENT) -> GameState:
    state, _ = play(state, A, {"type": "activate", "trooper": trooper, "order": "regular"})
    return state


def _attempt(state: GameState, card: str, target: str | None,
             trooper: str = AGENT) -> tuple[GameState, list[Event]]:
    state = _activate(state, trooper)
    state, declared = play(state, A, {"type": "classified_action", "trooper": trooper,
                                      "card": card, "target": target})
    state, closed = close_aro_window(state)
    state, rest = idle_out(state)
    return state, [*declared, *closed, *rest]


def _specialist(state: GameState, trooper: str) -> GameState:
    found = state.trooper(TrooperId(trooper))
    profile = replace(found.profile, specialist_operative=True)
    return state.with_trooper(replace(found, entry=replace(found.entry, profile=profile)))


def test_seed_000_options_offer_the_cards_short_skill_with_its_final_success_value() -> None:
    """Data Siphon (WIP, no MOD) on the Unconscious enemy in contact, Tag and Trace (WIP -3)
    on a standing one, in Engaged State as the card allows: Lancer WIP 13, so 13 and 10."""
    state = _state(["data-siphon", "tag-and-trace"])
    agent = _activate(state)
    assert seat_options(agent, A)["classified_action"] == {"data-siphon": {
        DOWNED: seat_options(agent, A)["classified_action"]["data-siphon"][DOWNED]}}
    assert seat_options(agent, A)["classified_action"]["data-siphon"][DOWNED]["sv"] == 13
    assert seat_options(agent, B)["classified_action"] == {}
    tagger = seat_options(_activate(state, TAGGER), A)["classified_action"]
    assert set(tagger) == {"tag-and-trace"} and set(tagger["tag-and-trace"]) == {STANDING}
    tag = tagger["tag-and-trace"][STANDING]
    assert tag["sv"] == 10 and tag["attribute"] == "WIP"
    assert tag["mods"] == [{"source": "classified_objective", "value": -3}]


def test_digest_8_an_engaged_trooper_uses_only_a_card_that_says_it_may() -> None:
    """Engaged (DIGEST 8; the wiki's "Engaged State"): only the skills that say so. Data
    Siphon does not; Tag and Trace does."""
    state = _state(["data-siphon", "tag-and-trace"],
                   placements={**PLACEMENTS, STANDING: [10, 21, 270]})
    agent = _activate(state)
    assert set(seat_options(agent, A)["classified_action"]) == {"tag-and-trace"}
    refused = _refusal(agent, {"type": "classified_action", "trooper": AGENT,
                               "card": "data-siphon", "target": DOWNED})
    assert refused.code == "skill_not_allowed" and "Engaged" in refused.message


def test_seed_000_nothing_is_offered_without_an_order_or_a_legal_target() -> None:
    state = _state(["data-siphon"], placements={AGENT: [10, 20, 90], DOWNED: [14, 20, 270]})
    assert seat_options(state, A)["classified_action"] == {}  # no Order in progress
    assert seat_options(_activate(state), A)["classified_action"] == {}  # not in contact


def test_digest_7_1_a_passed_wip_roll_achieves_the_card() -> None:
    state, events = _attempt(_state(["data-siphon"], dice=[4]), "data-siphon", DOWNED)
    resolved = next(i for i, e in enumerate(events) if isinstance(e, OrderResolved))
    roll = events[resolved].outcome.rolls[0]  # type: ignore[attr-defined]
    assert (roll.skill, roll.attribute, roll.success_value) == ("classified_action", "WIP", 13)
    assert events[resolved + 1] == ClassifiedAchieved(
        A, "data-siphon", 1, "Data Siphon: Lancer Line Trooper passed the WIP Roll (4 against 13)")
    assert state.classified[A] == (ClassifiedCard("data-siphon", True, op=1),)
    assert view_state(state, SPECTATOR)["classified"]["A"]["op"] == 1


def test_digest_7_1_a_failed_roll_achieves_nothing_and_may_be_tried_again_with_another_order() -> None:
    state, events = _attempt(_state(["data-siphon"], dice=[18, 2]), "data-siphon", DOWNED)
    assert not achieved(events)
    assert state.classified[A] == (ClassifiedCard("data-siphon", False),)
    again = _activate(state)
    assert DOWNED in seat_options(again, A)["classified_action"]["data-siphon"]
    state, events = _attempt(state, "data-siphon", DOWNED)
    assert [e.card for e in achieved(events)] == ["data-siphon"]


def test_seed_000_an_achieved_card_is_offered_no_more_and_refused() -> None:
    state, _ = _attempt(_state(["data-siphon"], dice=[4]), "data-siphon", DOWNED)
    state = _activate(state)
    assert seat_options(state, A)["classified_action"] == {}
    refused = decide(state, A, {"type": "classified_action", "trooper": AGENT,
                                "card": "data-siphon", "target": DOWNED})
    assert isinstance(refused, Rejected) and refused.code == "classified_already_achieved"
    assert refused.message == "Data Siphon is already achieved: a card scores once."


def test_seed_000_field_survey_needs_a_specialist_inside_the_enemy_zone_and_no_target() -> None:
    placements = {AGENT: [10, 40, 90], "A-t8": [10, 20, 90]}
    state = _specialist(_state(["field-survey"], placements=placements, troopers={}, dice=[9]),
                        AGENT)
    offered = seat_options(_activate(state), A)["classified_action"]
    assert offered["field-survey"][""]["sv"] == 13
    assert seat_options(_activate(_specialist(state, "A-t8"), "A-t8"), A)["classified_action"] == {}
    state, events = _attempt(state, "field-survey", None)
    assert [e.reason for e in achieved(events)] == [
        "Field Survey: Lancer Line Trooper passed the WIP Roll (9 against 13)"]


def _refusal(state: GameState, body: dict[str, Any]) -> Rejected:
    decision = decide(state, A, body)
    assert isinstance(decision, Rejected)
    return decision


@pytest.mark.parametrize(("card", "target", "code", "message"), [
    ("quiet-blade", DOWNED, "classified_not_an_action",
     "Quiet Blade is achieved by what happens in the game, not by a skill."),
    ("specialist-handoff", "A-t8", "not_your_classified",
     "You hold no Classified Objective by that name."),
    ("no-such-card", DOWNED, "not_your_classified", "You hold no Classified Objective by that name."),
    ("data-siphon", STANDING, "classified_requirement",
     "Data Siphon needs an enemy trooper in the Unconscious state; Syndicate Ganger is not."),
    ("data-siphon", None, "classified_requirement",
     "Data Siphon needs a target: an enemy trooper in the Unconscious state in base contact "
     "with Lancer Line Trooper."),
    ("data-siphon", "A-t8", "classified_requirement",
     "Data Siphon needs an enemy trooper in the Unconscious state; Lancer Line Trooper is not one."),
    ("field-survey", None, "classified_requirement",
     "Field Survey needs a Specialist Troop; Lancer Line Trooper is not one."),
])
def test_seed_000_each_refusal_says_why_in_words(card: str, target: str | None, code: str,
                                                 message: str) -> None:
    state = _activate(_state(["data-siphon", "quiet-blade", "field-survey"]))
    refused = _refusal(state, {"type": "classified_action", "trooper": AGENT, "card": card,
                               "target": target})
    assert (refused.code, refused.message) == (code, message)


def test_seed_000_out_of_contact_is_refused_and_the_opponents_card_is_not_yours() -> None:
    far = _state(["data-siphon"], placements={AGENT: [10, 20, 90], DOWNED: [14, 20, 270]})
    refused = _refusal(_activate(far), {"type": "classified_action", "trooper": AGENT,
                                        "card": "data-siphon", "target": DOWNED})
    assert refused.code == "classified_requirement"
    assert refused.message == "Data Siphon needs Lancer Line Trooper in base contact with Syndicate Ganger."
    theirs = _refusal(_activate(far), {"type": "classified_action", "trooper": AGENT,
                                       "card": "deep-footprint"})
    assert theirs.code == "not_your_classified"


def test_seed_000_the_skill_is_declared_in_the_troopers_own_order() -> None:
    state = _state(["data-siphon"])
    body = {"type": "classified_action", "trooper": AGENT, "card": "data-siphon", "target": DOWNED}
    assert _refusal(state, body).code == "wrong_phase"
    other = _refusal(_activate(state, "A-t8"), body)
    assert (other.code, other.message) == ("order_not_for_trooper",
                                           "The Order in progress is not Lancer Line Trooper's.")
    assert isinstance(engine.decide(_activate(state), B, _command(body)), Rejected)


def _command(body: dict[str, Any]) -> Any:
    from server.rules.commands import parse_command

    return parse_command(body)


def test_seed_000_declare_skill_with_the_skill_is_the_same_declaration() -> None:
    """Implementation test: no rule section."""
    state = _activate(_state(["data-siphon"], dice=[4]))
    by_command = decide(state, A, {"type": "classified_action", "trooper": AGENT,
                                   "card": "data-siphon", "target": DOWNED})
    by_skill = decide(state, A, {"type": "declare_skill", "skill": {
        "type": "classified_action", "card": "data-siphon", "target": DOWNED}})
    assert not isinstance(by_command, Rejected) and not isinstance(by_skill, Rejected)
    assert by_command.events == by_skill.events


def test_seed_000_every_offer_is_accepted_and_every_refusal_was_not_offered() -> None:
    """``options`` tells the truth: each card and target it offers the active trooper is
    accepted; every other target on the table is refused."""
    state = _state(["data-siphon", "tag-and-trace", "specialist-handoff"],
                   placements={**PLACEMENTS, STANDING: [10, 21, 270]})
    accepted = 0
    for trooper in (AGENT, "A-t8", TAGGER):
        active = _activate(_specialist(state, "A-t8"), trooper)
        offered = seat_options(active, A)["classified_action"]
        for card in ("data-siphon", "tag-and-trace", "specialist-handoff"):
            for target in [*active.troopers, ""]:
                decision = decide(active, A, {"type": "classified_action", "trooper": trooper,
                                              "card": card, "target": target or None})
                legal = not isinstance(decision, Rejected)
                assert legal == (target in offered.get(card, {})), (trooper, card, target)
                accepted += legal
    assert accepted == 2  # Tag and Trace (Engaged with B-t8), the Specialist's handoff
