"""Shock ammunition against a trooper with STR (Structure) instead of VITA, through a whole
Order's resolution with injected dice.

DIGEST 7.6 names the VITA 1 target; the wiki's "Shock Ammunition" page says the special
effect (a failed save goes straight to Dead, skipping Unconscious) needs the VITA attribute
at 1: against a remote or TAG (STR) Shock deals its wound like Normal ammunition, and against
VITA 2 or more it is one wound per failed save on the usual track.
"""

from __future__ import annotations

from dataclasses import replace

from server.rules.armies.army_catalogue import sample_army
from server.rules.combat.outcome import Wounded
from server.rules.combat.resolution import resolve_order
from server.rules.combat.wounds import Condition
from server.rules.ids import Side
from server.rules.state import TrooperState

from .resolution_builders import SHOCK_RIFLE, resolving, shoot, trooper

A, B = Side.A, Side.B


def _hauler(at: tuple[float, float]) -> TrooperState:
    """vesper-raiders' Hauler Gun Drone (a REM, STR 1, ARM 2), standing at ``at``."""
    entry = sample_army("vesper-raiders").entry("t10")
    assert entry.profile.structure and entry.profile.vita == 1
    plain = trooper("hauler", B, at, 180.0)
    return replace(plain, entry=replace(plain.entry, profile=entry.profile))


def _shot_once_failing_the_save(target: TrooperState) -> tuple[Condition, int]:
    """One Shock hit (face 5 against BS 12 + 3 at 6") and a failed save (face 20)."""
    shooter = trooper("s", A, (10, 10), 0.0)
    state = resolving(shooter, [shoot(SHOCK_RIFLE, (target, 1))], [target], faces=[5, 20])
    outcome, _ = resolve_order(state)
    (save,) = outcome.saves
    assert save.ammo == "Shock" and save.failed == 1
    (wounded,) = (e for e in outcome.effects if isinstance(e, Wounded))
    assert wounded.trooper == target.id
    return wounded.condition, wounded.wounds


def test_shock_failed_save_leaves_a_str_1_hauler_unconscious_not_dead() -> None:
    assert _shot_once_failing_the_save(_hauler((16, 10))) == (Condition.UNCONSCIOUS, 1)


def test_shock_failed_save_still_kills_a_vita_1_trooper() -> None:
    target = trooper("t", B, (16, 10), 180.0, vita=1)
    assert _shot_once_failing_the_save(target) == (Condition.DEAD, 1)


def test_shock_failed_save_against_vita_2_is_one_wound() -> None:
    target = trooper("t", B, (16, 10), 180.0, vita=2)
    assert _shot_once_failing_the_save(target) == (Condition.NORMAL, 1)
