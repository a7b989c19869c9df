"""A room loaded again counts the events after its snapshot per audience without their
views (``numbering.counted_after_load``): the same counts as the views a commit makes
(``counted(audience_views(...))``), including events an audience may not know of. Tests the
implementation (the numbering is docs/fair-play.md's; its rules are in server/rules/views.py)."""

from __future__ import annotations

from typing import Any

from server.fanout import AUDIENCES
from server.rooms.numbering import NONE_SEEN, audience_views, counted, counted_after_load
from server.rooms.rules_engine import RulesCoreEngine
from server.rules import engine
from server.rules.ids import Side
from server.rules.state import Phase
from testkit.full_game import next_command

ENGINE = RulesCoreEngine()


def _hidden_deployments(state: Any, body: dict[str, Any]) -> dict[str, Any]:
    if body["type"] == "deploy" and state.trooper(body["trooper"]).profile.hidden_deployment:
        return {**body, "hidden": True}
    return body


def played(ruleset: str, seed: int, commands: int) -> tuple[Any, list[Any]]:
    """The events of a game's first ``commands`` commands, troopers with Hidden Deployment
    deployed hidden (events seat A and the spectators may not know of)."""
    state = engine.new_game(engine.GameSetup(ruleset=ruleset, dice_secret=f"{seed:02d}" * 32,
                                             id_key="1d" * 32))
    entropy = {Side.A: "a1" * 32, Side.B: "b2" * 32}
    events: list[Any] = []
    for _ in range(commands):
        side, body = next_command(state, entropy, ruleset)
        verdict = ENGINE.decide(state, side, ENGINE.parse_command(_hidden_deployments(state, body)))
        assert verdict.events is not None, verdict.code
        events.extend(verdict.events)
        state = ENGINE.apply_all(state, verdict.events)
        if state.phase is Phase.ORDERS and len(events) > 120:
            break
    return state, events


def test_a_load_counts_each_audience_as_the_commits_numbered_it() -> None:
    for ruleset in ("n5", "codeone"):
        state, events = played(ruleset, 11, 200)
        plains = [ENGINE.event_to_plain(event) for event in events]
        by_views = counted(NONE_SEEN, audience_views(ENGINE, state, events, plains))
        assert counted_after_load(ENGINE, state, events, plains, NONE_SEEN) == by_views
        if ruleset == "n5":  # (the CodeOne lists have no Hidden Deployment)
            # the game hid something from someone: the counts differ between audiences
            assert len({by_views[audience] for audience in AUDIENCES}) > 1, by_views


def test_a_load_adds_to_the_counts_stored_with_the_snapshot() -> None:
    state, events = played("n5", 5, 200)
    plains = [ENGINE.event_to_plain(event) for event in events]
    stored = {audience: 10 + index for index, audience in enumerate(AUDIENCES)}
    expected = counted(stored, audience_views(ENGINE, state, events, plains))
    assert counted_after_load(ENGINE, state, events, plains, stored) == expected
