"""``apply_effect``: each resolution Effect folded into the state."""

from __future__ import annotations

from server.rules.combat.effects import apply_effect
from server.rules.combat.outcome import (
    BecameIdle,
    DiscoverFailed,
    Moved,
    Revealed,
    TargetedCleared,
    Turned,
    WeaponUsed,
    WentProne,
    Wounded,
)
from server.rules.combat.wounds import Condition
from server.rules.ids import Side, TrooperId
from server.rules.state import GameState

from .resolution_builders import GRENADE, resolving, trooper

A, B = Side.A, Side.B


def _state() -> tuple[GameState, TrooperId, TrooperId]:
    active = trooper("a", A, (10, 10), targeted=True)
    other = trooper("b", B, (20, 10), marker=True, mimetism=3, camouflage=3)
    return resolving(active, [], [other]), active.id, other.id


def test_each_effect_changes_only_what_it_says() -> None:
    """Wounded sets totals; Moved goes to the route's end; the rest flip one field each.
    DIGEST 5.1, the Effects step."""
    state, a, b = _state()
    state = apply_effect(state, Wounded(a, 1, Condition.UNCONSCIOUS))
    state = apply_effect(state, Moved(b, ((20, 10), (21, 10)), "dodge"))
    state = apply_effect(state, Revealed(b, "discovered"))
    state = apply_effect(state, DiscoverFailed(a, b))
    state = apply_effect(state, WeaponUsed(a, GRENADE.id, 1))
    state = apply_effect(state, WeaponUsed(a, GRENADE.id, 1))
    state = apply_effect(state, Turned(b, 180.0, "alert"))
    state = apply_effect(state, WentProne(a, "unconscious"))
    state = apply_effect(state, TargetedCleared(a))
    first, second = state.trooper(a), state.trooper(b)
    assert (first.wounds, first.condition, first.prone, first.targeted) == (
        1, Condition.UNCONSCIOUS, True, False)
    assert first.failed_discover == frozenset({b}) and first.weapon_uses == {GRENADE.id: 2}
    assert (second.position, second.marker, second.facing) == ((21, 10), False, 180.0)


def test_became_idle_changes_nothing() -> None:
    """DIGEST 9: Idle does nothing but count as activated."""
    state, a, _ = _state()
    assert apply_effect(state, BecameIdle(a, "bs_attack", "no_line_of_fire")) == state
