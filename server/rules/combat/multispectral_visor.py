"""Multispectral Visor: how much of a target's Mimetism MOD the visor takes away.

Sources: the Infinity wiki's "Multispectral Visor" page (its levels) and "Mimetism"; DIGEST
10 ("Mimetism -3/-6 (BS with LoF, Discover); MSV reduces"). In our words: the visor is
automatic equipment of the one who shoots or Discovers. Level 1 cancels a Mimetism -3 and
halves a Mimetism -6 to -3; Levels 2 and 3 cancel any Mimetism. What the visor takes away is
listed as its own MOD (``multispectral_visor``, positive) next to the ``mimetism`` MOD, so the
roll record says why the Success Value is what it is; the sum is what the rules apply
(docs/rules-decisions/resolution.md, "Multispectral Visor").

Not built here (docs/rules-decisions/resolution.md): Level 3's Attack at a Camouflage Marker
without Discovering it first, and the visor against Visibility Zones (the engine has no
Visibility Zones yet).
"""

from __future__ import annotations

from .rolls import Mod

MSV_SOURCE = "multispectral_visor"


def mimetism_seen_through(visor_level: int, mimetism: int) -> int:
    """The Mimetism magnitude (0, 3 or 6) left once a visor of ``visor_level`` (0 for none)
    looks at a trooper with Mimetism ``mimetism`` (0, 3 or 6)."""
    if visor_level >= 2:
        return 0
    if visor_level == 1:
        return max(0, mimetism - 3)
    return mimetism


def visor_mods(visor_level: int, mimetism: int) -> tuple[Mod, ...]:
    """The positive MOD by which the visor cancels part or all of a Mimetism MOD; none when
    the target has no Mimetism or the seer no visor."""
    cancelled = mimetism - mimetism_seen_through(visor_level, mimetism)
    return (Mod(MSV_SOURCE, cancelled),) if cancelled else ()
