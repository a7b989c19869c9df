"""DIGEST 6.1 and DIGEST 7.5 (an ARO's Burst is 1 unless a rule says otherwise) with Total
Reaction (``combat/total_reaction.py``; infinitythewiki "Total Reaction"): in ARO the
trooper's BS Attack uses its weapon's full Burst against its one target. The page's example
(a B4 Remote against a B3 Fusilier) is ``test_wiki_example_...``.
"""

from __future__ import annotations

from dataclasses import replace

from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
from server.rules.armies.not_refereed import ItemKind
from server.rules.armies.weapons import RangeBand, Weapon, WeaponKind
from server.rules.combat.resolution import resolve_order
from server.rules.ids import Side, WeaponId
from server.rules.options import seat_options
from server.rules.state import GameState
from tests.support.games import play

from .fighting_builders import with_skills
from .resolution_builders import resolving, shoot, trooper
from .test_suppressive_fire import (
    ENFORCER,
    LANCER,
    _facing_off,
    _finish,
    _lancer_shoots,
    _refused,
    _roll,
    _shoot,
)

A, B = Side.A, Side.B
BANDS_MINUS_3 = (RangeBand(8, 0), RangeBand(16, -3), RangeBand(32, -6))
BANDS_PLUS_3 = (RangeBand(8, 0), RangeBand(16, 3), RangeBand(32, -3))
COMBI = Weapon(WeaponId("test_combi"), "Combi Rifle (test)", WeaponKind.BALLISTIC, 3, 7, "N", BANDS_MINUS_3)
HMG = Weapon(WeaponId("test_hmg"), "HMG (test)", WeaponKind.BALLISTIC, 4, 9, "N", BANDS_PLUS_3)


def _armed(state: GameState) -> GameState:
    armies = {side: replace(army, arsenal=(*army.arsenal, COMBI, HMG)) for side, army in state.armies.items()}
    return replace(state, armies=armies)


def test_wiki_example_total_reaction_remote_shoots_its_full_burst_in_aro() -> None:
    """infinitythewiki "Total Reaction" example: the Fusilier (BS 12, B3, -3 at 12") rolls
    3, 17, 8 against the Remote's ARO (BS 11, B4, +3 at 12"): 2, 14, 13, 20. Every Remote die
    above the Fusilier's best success (8) hits: the 14 (a Critical) and the 13."""
    fusilier = trooper("f", A, (10, 10), 0.0, bs=12)
    remote = with_skills(trooper("r", B, (22, 10), 180.0, bs=11), total_reaction=True)
    aro = shoot(HMG, (fusilier, 4))
    state = _armed(resolving(fusilier, [shoot(COMBI, (remote, 3))], [remote],
                             aros={remote.id: aro}, faces=[3, 17, 8, 2, 14, 13, 20, 1, 1, 1, 1]))
    outcome, _ = resolve_order(state)
    angus = next(r for r in outcome.rolls if r.trooper == fusilier.id)
    hususong = next(r for r in outcome.rolls if r.trooper == remote.id)
    assert angus.success_value == 9 and hususong.success_value == 14
    assert hususong.burst == 4 and len(hususong.dice) == 4
    assert angus.successes + angus.criticals == 0
    assert hususong.successes == 1 and hususong.criticals == 1
    (save,) = outcome.saves
    assert save.trooper == fusilier.id and save.hits == 1 and save.criticals == 1


def _with_total_reaction(state: GameState) -> GameState:
    return state.with_trooper(with_skills(state.trooper(ENFORCER), total_reaction=True))


def test_total_reaction_options_offer_and_the_rules_accept_only_the_full_burst() -> None:
    state = _with_total_reaction(_facing_off(12, dice=(10, 10, 10, 5, 5, 5)))
    state = _lancer_shoots(state)
    aro = seat_options(state, B)["aros"][ENFORCER]
    full = aro["bs_burst"]["punch_carbine"]
    assert full > 1 and aro["bs_burst"]["sidearm"] >= 1
    assert _refused(state, B, {"type": "declare_aro", "trooper": ENFORCER,
                               "skill": _shoot(LANCER, "punch_carbine", 1)}) == "bad_burst"
    state, _ = play(state, B, {"type": "declare_aro", "trooper": ENFORCER,
                               "skill": _shoot(LANCER, "punch_carbine", full)})
    state, resolved = _finish(state)
    assert _roll(resolved, ENFORCER).burst == full


def test_without_total_reaction_the_aro_has_burst_1() -> None:
    state = _lancer_shoots(_facing_off(12))
    assert seat_options(state, B)["aros"][ENFORCER]["bs_burst"]["punch_carbine"] == 1


def test_the_catalogue_maps_total_reaction() -> None:
    flags = TrooperFlags()
    assert apply_item(DataItem(ItemKind.SKILL, "Total Reaction"), flags) is None
    assert flags.fields == {"total_reaction": True}
