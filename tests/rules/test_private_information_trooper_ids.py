"""DIGEST 12 (Hidden Deployment is Private Information) and seeds 002/004 ("Open and Private
Information"): a command that names an enemy trooper in Hidden Deployment gets exactly the
answer, code and message, that an id naming nobody gets, whatever the command and wherever
the id sits in it (the trooper acting, a target, a reactor). Every id a command names is
checked before any handler runs (``named_troopers.unknown_to``), so no handler's own order
of checks can tell the two apart.

N5 skirmishes: vesper-raiders' Ghost Infiltrator (B-t2) has Hidden Deployment.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Accepted, Decision, Rejected
from server.rules.ids import Side
from server.rules.state import GameState
from tests.support.games import idle_out, play
from tests.support.skirmish import Placement, skirmish

HIDDEN, NOBODY, VISIBLE = "B-t2", "B-nobody", "B-t3"
PLACEMENTS: dict[str, Placement] = {
    "A-t7": (16.0, 8.0, 90.0),  # Lancer: line_rifle
    VISIBLE: (20.0, 40.0, 270.0),
    HIDDEN: (24.0, 20.0, 270.0, "hidden"),  # in A-t7's Line of Fire, 12 inches away
    "A-t1": (1.0, 1.0, 270.0),
    "B-t1": (1.0, 47.0, 90.0),
}


def _a_turn() -> GameState:
    """A's first Orders Phase, no Order in progress."""
    return skirmish(PLACEMENTS, ruleset="n5")


def _a_activated() -> GameState:
    """A-t7 activated: A declares its first skill next."""
    state, _ = play(_a_turn(), Side.A, {"type": "activate", "trooper": "A-t7", "order": "regular"})
    return state


def _b_moved() -> GameState:
    """B plays first: B-t3 moved, A's ARO window is open."""
    state = skirmish(PLACEMENTS, ruleset="n5", first=Side.B)
    state, _ = play(state, Side.B, {"type": "activate", "trooper": VISIBLE, "order": "regular"})
    state, _ = play(state, Side.B, {"type": "declare_skill", "skill": {
        "type": "move", "route": [[20, 40], [20, 38]]}})
    assert engine.pending_aro_window(state) is not None
    return state


def _shot(target: str) -> dict[str, Any]:
    return {"type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": target, "burst": 3}]}


CASES: dict[str, tuple[Callable[[], GameState], Side, Callable[[str], dict[str, Any]]]] = {
    "activate an enemy": (_a_turn, Side.A, lambda t: {"type": "activate", "trooper": t, "order": "regular"}),
    "reveal an enemy": (_a_turn, Side.A, lambda t: {"type": "reveal", "trooper": t}),
    "choose an enemy's Guts failure": (
        _a_turn, Side.A, lambda t: {"type": "choose_guts_failure", "trooper": t, "fail": True}),
    "appoint an enemy Lieutenant": (_a_turn, Side.A, lambda t: {"type": "appoint_lieutenant", "trooper": t}),
    "declare_skill BS Attack target": (_a_activated, Side.A, lambda t: {"type": "declare_skill", "skill": _shot(t)}),
    "declare_skill Discover target": (
        _a_activated, Side.A, lambda t: {"type": "declare_skill", "skill": {"type": "discover", "target": t}}),
    "declare_skill CC Attack target": (_a_activated, Side.A, lambda t: {"type": "declare_skill", "skill": {
        "type": "cc_attack", "weapon": "combat_knife", "target": t}}),
    "declare_aro as the enemy": (
        _b_moved, Side.A, lambda t: {"type": "declare_aro", "trooper": t, "skill": {"type": "dodge"}}),
    "declare_aro target": (_b_moved, Side.A, lambda t: {"type": "declare_aro", "trooper": "A-t7", "skill": {
        "type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": t, "burst": 1}]}}),
    "pass_aro as the enemy": (_b_moved, Side.A, lambda t: {"type": "pass_aro", "trooper": t}),
    "move an enemy to another Combat Group (Command Token)": (_a_turn, Side.A, lambda t: {
        "type": "spend_command_token", "use": "transfer_trooper", "trooper": t, "combat_group": 2}),
    "coordinate with an enemy": (_a_turn, Side.A, lambda t: {
        "type": "coordinate_order", "spearhead": "A-t7", "troopers": [t]}),
}


def _answer(decision: Decision, named: str) -> tuple[str, str]:
    """(code, message) of a rejection, the id it names written as X."""
    assert isinstance(decision, Rejected), decision
    return decision.code, decision.message.replace(named, "X")


@pytest.mark.parametrize("case", list(CASES))
def test_digest_12_a_hidden_enemy_gets_the_answer_of_an_id_that_names_nobody(case: str) -> None:
    setup, actor, body = CASES[case]
    state = setup()
    assert state.trooper(HIDDEN).hidden
    hidden = _answer(engine.decide(state, actor, c.parse_command(body(HIDDEN))), HIDDEN)
    nobody = _answer(engine.decide(state, actor, c.parse_command(body(NOBODY))), NOBODY)
    assert hidden == nobody == ("unknown_trooper", "There is no trooper X.")


@pytest.mark.parametrize("case", ["activate an enemy", "declare_aro as the enemy", "pass_aro as the enemy",
                                  "choose an enemy's Guts failure"])
def test_digest_12_an_enemy_on_the_table_is_known_and_answered_for_what_the_command_does(case: str) -> None:
    """The check is about private information only: an open enemy gets the handler's answer."""
    setup, actor, body = CASES[case]
    decision = engine.decide(setup(), actor, c.parse_command(body(VISIBLE)))
    assert isinstance(decision, Rejected) and decision.code != "unknown_trooper", decision


def test_digest_12_the_owner_names_its_own_hidden_trooper() -> None:
    state = _a_turn()
    decision = engine.decide(state, Side.B, c.ChooseGutsFailure(HIDDEN, True))  # type: ignore[arg-type]
    assert isinstance(decision, Accepted)


def test_digest_12_once_revealed_the_trooper_is_known_to_the_opponent() -> None:
    """B's hidden trooper reveals itself in B's turn; from then on A's commands name it."""
    state = skirmish(PLACEMENTS, ruleset="n5", first=Side.B)
    state, _ = play(state, Side.B, {"type": "reveal", "trooper": HIDDEN})
    state, _ = idle_out(state)
    state, _ = play(state, Side.B, c.EndTurn())
    state, _ = play(state, Side.A, {"type": "activate", "trooper": "A-t7", "order": "regular"})
    decision = engine.decide(state, Side.A, c.parse_command({"type": "declare_skill", "skill": _shot(HIDDEN)}))
    assert isinstance(decision, Accepted), decision
