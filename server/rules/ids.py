"""Identifier types shared across the rules core."""

from __future__ import annotations

from enum import StrEnum
from typing import NewType

TrooperId = NewType("TrooperId", str)
"""A trooper's id inside one game, e.g. ``"A-t3"`` (side prefix + army-list id)."""

WeaponId = NewType("WeaponId", str)
TerrainId = NewType("TerrainId", str)


class Side(StrEnum):
    """One of the two players of a game."""

    A = "A"
    B = "B"

    @property
    def other(self) -> Side:
        return Side.B if self is Side.A else Side.A


class Spectator(StrEnum):
    """A viewer that is not a seat: a spectator sees only open information; a caster (a
    tournament stream's commentator, let in by the organizer and always shown the game
    late) sees both sides' private information."""

    SPECTATOR = "spectator"
    CASTER = "caster"


SPECTATOR = Spectator.SPECTATOR
CASTER = Spectator.CASTER

Viewer = Side | Spectator
"""Who a view is made for: a seat, a spectator or a caster."""
