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
    """A viewer that sees only open information."""

    SPECTATOR = "spectator"


SPECTATOR = Spectator.SPECTATOR

Viewer = Side | Spectator
"""Who a view is made for: a seat or a spectator."""
