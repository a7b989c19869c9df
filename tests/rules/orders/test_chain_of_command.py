"""Chain of Command (N5 Special Skill, Automatic; infinitythewiki "Chain of Command"): at
the start of its player's Loss of Lieutenant check, with the Lieutenant Isolated or in a
Null State, a trooper with Chain of Command on the table, not Isolated nor Null, becomes
the Lieutenant and the check passes. The Lieutenant's identity is Private Information
(DIGEST 11.2). docs/rules-decisions/deployment-skills.md "Chain of Command".

B's Lieutenant (Boss B-t1) is shot down in A's turn (N5, injected dice), as in
``test_loss_of_lieutenant.py``; Enforcer B-t3 has Chain of Command.
"""

from __future__ import annotations

from dataclasses import replace

from server.rules import commands as c
from server.rules.events import ChainOfCommandTookOver, LossOfLieutenant, OrdersCounted
from server.rules.ids import SPECTATOR, Side, TrooperId
from server.rules.state import GameState, Phase
from server.rules.views import view_event
from tests.support.games import close_aro_window, play
from tests.support.skirmish import skirmish

T = TrooperId
SUCCESSOR = T("B-t3")
PLACEMENTS = {
    "B-t1": (10.0, 16.0, 90.0), "B-t4": (12.0, 16.0, 90.0),
    "B-t3": (30.0, 44.0, 90.0), "B-t14": (34.0, 44.0, 90.0), "B-t7": (38.0, 44.0, 90.0),
    "A-t7": (10.0, 4.0, 90.0), "A-t1": (2.0, 2.0, 270.0),
}
HITS_THEN_FAILED_SAVES = [1, 2, 3, 20, 20, 20]


def _with_chain_of_command(state: GameState, trooper: TrooperId) -> GameState:
    found = state.trooper(trooper)
    entry = replace(found.entry, profile=replace(found.entry.profile, chain_of_command=True))
    return state.with_trooper(replace(found, entry=entry))


def _lieutenant_shot_down(successor: TrooperId | None) -> tuple[GameState, tuple[object, ...]]:
    """A shoots B's Lieutenant (and B-t4) down and ends its turn: B's Tactical Phase runs."""
    state = skirmish(PLACEMENTS, ruleset="n5", first=Side.A, dice=HITS_THEN_FAILED_SAVES)
    if successor is not None:
        state = _with_chain_of_command(state, successor)
    state, _ = play(state, Side.A, {"type": "activate", "trooper": "A-t7", "order": "regular"})
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "line_rifle",
        "targets": [{"trooper": "B-t1", "burst": 2}, {"trooper": "B-t4", "burst": 1}]}})
    state, _ = close_aro_window(state)
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, _ = close_aro_window(state)
    assert state.trooper(T("B-t1")).is_null
    state, events = play(state, Side.A, c.EndTurn())
    assert state.active is Side.B and state.phase is Phase.ORDERS
    return state, events


def test_chain_of_command_becomes_lieutenant_and_no_loss_of_lieutenant() -> None:
    state, events = _lieutenant_shot_down(SUCCESSOR)
    assert ChainOfCommandTookOver(Side.B, SUCCESSOR) in events
    assert not any(isinstance(e, LossOfLieutenant) for e in events)
    assert state.loss_of_lieutenant == frozenset()
    assert [t.id for t in state.troopers_of(Side.B) if t.entry.lieutenant] == [SUCCESSOR]
    counted = next(e for e in events if isinstance(e, OrdersCounted))
    assert counted.lieutenant == SUCCESSOR  # the Lieutenant Order is its


def test_without_chain_of_command_the_loss_of_lieutenant_comes() -> None:
    state, events = _lieutenant_shot_down(None)
    assert LossOfLieutenant(Side.B) in events
    assert state.loss_of_lieutenant == {Side.B}


def test_chain_of_command_needs_its_user_on_the_table_and_able() -> None:
    # B-t4, shot Unconscious with the Lieutenant, cannot take over: Loss of Lieutenant.
    _state, events = _lieutenant_shot_down(T("B-t4"))
    assert LossOfLieutenant(Side.B) in events
    assert not any(isinstance(e, ChainOfCommandTookOver) for e in events)


def test_chain_of_command_the_new_lieutenant_is_private_information() -> None:
    state, events = _lieutenant_shot_down(SUCCESSOR)
    took_over = next(e for e in events if isinstance(e, ChainOfCommandTookOver))
    assert view_event(took_over, Side.B, state) is not None
    for viewer in (Side.A, SPECTATOR):
        assert view_event(took_over, viewer, state) is None
        counted = view_event(next(e for e in events if isinstance(e, OrdersCounted)), viewer, state)
        assert counted is not None and counted["lieutenant"] is True


def test_catalogue_maps_chain_of_command_also_non_specialist() -> None:
    from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
    from server.rules.armies.not_refereed import ItemKind
    for name in ("Chain of Command", "Chain of Command (Non Specialist)"):
        flags = TrooperFlags()
        assert apply_item(DataItem(ItemKind.SKILL, name), flags) is None
        assert flags.fields == {"chain_of_command": True}
