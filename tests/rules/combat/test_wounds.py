"""Wound track, Unconscious and Dead (DIGEST 7.7) with T2 and Shock ammunition (7.6), for VITA
and for STR (Structure) troopers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.rules.combat.ammunition import Ammunition
from server.rules.combat.wounds import Condition, WoundOutcome, apply_failed_saves

NORMAL = Condition.NORMAL
UNCONSCIOUS = Condition.UNCONSCIOUS
DEAD = Condition.DEAD


def test_wounds_equal_to_vita_is_unconscious_and_above_is_dead() -> None:
    """7.7: wounds == VITA -> Unconscious; wounds > VITA -> Dead."""
    assert apply_failed_saves(0, 1, 2, Ammunition.N, NORMAL, structure=False) == WoundOutcome(1, NORMAL)
    assert apply_failed_saves(0, 2, 2, Ammunition.N, NORMAL, structure=False) == WoundOutcome(2, UNCONSCIOUS)
    assert apply_failed_saves(0, 3, 2, Ammunition.N, NORMAL, structure=False) == WoundOutcome(3, DEAD)


def test_no_failed_saves_changes_nothing() -> None:
    """7.7: without a failed save the wound track does not move."""
    assert apply_failed_saves(1, 0, 2, Ammunition.N, NORMAL, structure=False) == WoundOutcome(1, NORMAL)
    assert apply_failed_saves(1, 0, 1, Ammunition.N, UNCONSCIOUS, structure=False) == WoundOutcome(1, UNCONSCIOUS)


def test_unconscious_trooper_taking_a_further_wound_dies() -> None:
    """7.7: an Unconscious trooper that takes a further wound is Dead."""
    assert apply_failed_saves(1, 1, 1, Ammunition.N, UNCONSCIOUS, structure=False) == WoundOutcome(2, DEAD)


def test_dead_trooper_stays_dead_and_takes_no_more_wounds() -> None:
    """7.7: a Dead trooper stays Dead and counts no more wounds."""
    assert apply_failed_saves(2, 3, 1, Ammunition.EXP, DEAD, structure=False) == WoundOutcome(2, DEAD)


def test_t2_deals_two_wounds_per_failed_save() -> None:
    """7.6: T2 -> 2 wounds per failed save: one failure kills a VITA 1 trooper."""
    assert apply_failed_saves(0, 1, 1, Ammunition.T2, NORMAL, structure=False) == WoundOutcome(2, DEAD)
    assert apply_failed_saves(0, 1, 2, Ammunition.T2, NORMAL, structure=False) == WoundOutcome(2, UNCONSCIOUS)


def test_t2_critical_extra_save_deals_one_wound() -> None:
    """7.2: with T2 the extra save forced by a Critical deals 1 wound."""
    outcome = apply_failed_saves(0, 2, 3, Ammunition.T2, NORMAL, failed_extra_saves=1, structure=False)
    assert outcome == WoundOutcome(3, UNCONSCIOUS)


def test_shock_kills_a_vita_1_trooper_on_any_failed_save() -> None:
    """7.6: Shock against VITA 1 -> straight to Dead instead of Unconscious."""
    assert apply_failed_saves(0, 1, 1, Ammunition.SHOCK, NORMAL, structure=False) == WoundOutcome(1, DEAD)


def test_shock_against_vita_2_follows_the_normal_track() -> None:
    """7.6: Shock's straight-to-Dead effect is for VITA 1 only; VITA 2 follows the normal track."""
    assert apply_failed_saves(0, 1, 2, Ammunition.SHOCK, NORMAL, structure=False) == WoundOutcome(1, NORMAL)
    assert apply_failed_saves(0, 2, 2, Ammunition.SHOCK, NORMAL, structure=False) == WoundOutcome(2, UNCONSCIOUS)


def test_em_imposes_a_state_not_wounds() -> None:
    """7.6: E/M ammunition imposes a State, never wounds."""
    with pytest.raises(ValueError, match="State"):
        apply_failed_saves(0, 1, 1, Ammunition.EM, NORMAL, structure=False)


def test_extra_saves_cannot_exceed_failed_saves() -> None:
    """7.2: the failed extra saves forced by Criticals are among the failed saves, never more."""
    with pytest.raises(ValueError, match="failed_extra_saves"):
        apply_failed_saves(0, 1, 1, Ammunition.N, NORMAL, failed_extra_saves=2, structure=False)


def test_shock_against_str_1_acts_as_normal_ammunition() -> None:
    """Shock's straight-to-Dead effect needs the VITA attribute at 1 (wiki "Shock
    Ammunition"): a remote or TAG with STR 1 goes Unconscious on its first failed save, like
    Normal ammunition, and Dead only on a further wound."""
    first = apply_failed_saves(0, 1, 1, Ammunition.SHOCK, NORMAL, structure=True)
    assert first == WoundOutcome(1, UNCONSCIOUS)
    second = apply_failed_saves(1, 1, 1, Ammunition.SHOCK, UNCONSCIOUS, structure=True)
    assert second == WoundOutcome(2, DEAD)
    assert apply_failed_saves(0, 2, 1, Ammunition.SHOCK, NORMAL, structure=True) == WoundOutcome(2, DEAD)


def test_shock_against_str_2_follows_the_normal_track() -> None:
    """7.6, 7.7: Shock against STR 2 follows the normal track, as against VITA 2."""
    assert apply_failed_saves(0, 1, 2, Ammunition.SHOCK, NORMAL, structure=True) == WoundOutcome(1, NORMAL)
    assert apply_failed_saves(0, 2, 2, Ammunition.SHOCK, NORMAL, structure=True) == WoundOutcome(2, UNCONSCIOUS)


@given(
    st.integers(1, 4),
    st.lists(st.integers(0, 3), max_size=6),
    st.sampled_from([Ammunition.N, Ammunition.DA, Ammunition.T2, Ammunition.SHOCK]),
    st.booleans(),
)
def test_wound_track_only_moves_towards_dead(
    vita: int, failures: list[int], ammo: Ammunition, structure: bool
) -> None:
    """Property: wounds never decrease and the condition never improves."""
    order = [NORMAL, UNCONSCIOUS, DEAD]
    outcome = WoundOutcome(0, NORMAL)
    for failed in failures:
        after = apply_failed_saves(outcome.wounds, failed, vita, ammo, outcome.condition,
                                   structure=structure)
        assert after.wounds >= outcome.wounds
        assert order.index(after.condition) >= order.index(outcome.condition)
        outcome = after
