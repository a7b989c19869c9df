"""ECM (Hacker -3/-6): an Automatic piece of equipment (DIGEST 6: "AUTOMATIC (no Order/ARO)
... ECM"); every enemy Comms Attack on its bearer takes its MOD (server/rules/combat/ecm.py;
docs/rules-decisions/resolution.md, "ECM")."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
from server.rules.armies.not_refereed import ItemKind
from server.rules.armies.profiles import profile_problems
from server.rules.combat.rolls import Mod
from server.rules.events import OrderResolved
from server.rules.ids import Side, TrooperId
from server.rules.state import GameState
from tests.support.games import close_aro_window, play
from tests.support.scenarios import build_state

from .resolution_builders import profile

A, B = Side.A, Side.B
HACKER, TARGET = "A-t14", "B-t3"
"""The Signal Adept (Hacker, WIP 13 in the N5 sample list) and a Syndicate Enforcer."""


def _with_ecm(state: GameState, trooper_id: str, value: int) -> GameState:
    t = state.trooper(TrooperId(trooper_id))
    ecm = replace(t.entry.profile, ecm_hacker=value)
    return state.with_trooper(replace(t, entry=replace(t.entry, profile=ecm)))


@pytest.mark.parametrize("value", [0, 3, 6])
def test_a_comms_attack_on_a_trooper_with_ecm_takes_its_mod(value: int) -> None:
    state = build_state({"ruleset": "n5", "terrain": [], "dice": [20] * 8, "placements": {
        HACKER: [10, 10, 90], TARGET: [10, 16, 270], "A-t1": [1, 1, 270],
        "B-t1": [1, 47, 90]}})
    state = _with_ecm(state, TARGET, value)
    state, _ = play(state, A, {"type": "activate", "trooper": HACKER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "comms_attack", "program": "tracer_ping", "target": TARGET}})
    state, _ = play(state, B, {"type": "pass_aro", "trooper": TARGET})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    (roll,) = [r for r in resolved.outcome.rolls if r.trooper == HACKER]
    ecm = [m for m in roll.mods if m.source == "ecm"]
    assert ecm == ([Mod("ecm", -value)] if value else [])


@pytest.mark.parametrize(("levels", "fields", "text"), [
    (("Hacker -3",), {"ecm_hacker": 3}, None),
    (("(Hacker -6)",), {"ecm_hacker": 6}, None),
    (("Guided -6",), {}, "ECM Guided -6 — no effect here: no weapon or Hacking Program in these "
                         "games makes Guided attacks, so there is nothing for it to protect against"),
    (("Jammer -3",), {}, "ECM Jammer -3 — played without it: the referee plays ECM (Hacker -3 "
                         "or -6) only"),
])
def test_the_catalogue_reads_ecm_against_hackers_only(levels: tuple[str, ...],
                                                      fields: dict[str, int], text: str | None) -> None:
    flags = TrooperFlags()
    note = apply_item(DataItem(ItemKind.EQUIPMENT, "ECM", levels), flags)
    assert flags.fields == fields
    assert (note.text if note else None) == text


def test_a_profile_refuses_an_ecm_value_other_than_3_or_6() -> None:
    assert any("ECM" in p for p in profile_problems(replace(profile("x"), ecm_hacker=4)))
    assert not profile_problems(replace(profile("x"), ecm_hacker=6))
