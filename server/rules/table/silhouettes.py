"""Silhouettes: the cylinder that stands for a model on the table (DIGEST 10.2).

A trooper's volume is a vertical cylinder whose diameter is its base and whose height
depends on its Silhouette value (S). Parts of a miniature outside the cylinder are ignored
for every rule, so the server never needs to know what a miniature looks like.
"""

from __future__ import annotations

from dataclasses import dataclass

MM_PER_INCH = 25.4

# (base diameter, height) in millimetres, DIGEST 10.2. S2-S8 are the N3 values, assumed
# unchanged in N4/N5 (the DIGEST marks this UNCERTAIN). SX (own base x 3 mm) has no number
# and is not needed by this slice.
_SIZES_MM: dict[int, tuple[float, float]] = {
    0: (25.0, 3.0),
    1: (25.0, 25.0),
    2: (25.0, 40.0),
    3: (40.0, 32.0),
    4: (55.0, 32.0),
    5: (40.0, 45.0),
    6: (40.0, 55.0),
    7: (55.0, 67.0),
    8: (70.0, 70.0),
}


@dataclass(frozen=True, slots=True)
class Silhouette:
    """A Silhouette value with its cylinder, both measures in inches."""

    size: int
    base_diameter: float
    height: float


def _build(size: int, base_mm: float, height_mm: float) -> Silhouette:
    return Silhouette(size, base_mm / MM_PER_INCH, height_mm / MM_PER_INCH)


_SILHOUETTES: dict[int, Silhouette] = {
    size: _build(size, base, height) for size, (base, height) in _SIZES_MM.items()
}

KNOWN_SIZES: tuple[int, ...] = tuple(sorted(_SILHOUETTES))


def silhouette(size: int) -> Silhouette:
    """The cylinder of Silhouette ``size``; ``ValueError`` for a size the rules do not define."""
    try:
        return _SILHOUETTES[size]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown silhouette S{size}; known sizes are {', '.join(map(str, KNOWN_SIZES))}"
        ) from None
