"""Asking the rules core whether it accepts a command: how every option is found (see the
package's docstring), and the weapons a trooper carries of some kinds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import commands as c
from ..armies.weapons import WeaponKind
from ..decision import Rejection
from ..ids import Side, WeaponId
from ..state import GameState, TrooperState


def accepted(handler: Callable[[GameState, Any, Any], object], state: GameState,
             side: Side, command: c.Command) -> bool:
    """Whether ``handler`` (a command's validation in the rules core) accepts ``command``
    from ``side`` now."""
    try:
        handler(state, side, command)
    except Rejection:
        return False
    return True


def carried_weapons(state: GameState, trooper: TrooperState,
                    kinds: tuple[WeaponKind, ...]) -> list[Any]:
    army = state.armies[trooper.side]
    return [army.weapon(WeaponId(w)) for w in trooper.profile.weapons
            if army.weapon(WeaponId(w)).kind in kinds]


SHOOTING = (WeaponKind.BALLISTIC, WeaponKind.DIRECT_TEMPLATE)
"""The kinds of weapon a BS Attack fires."""
