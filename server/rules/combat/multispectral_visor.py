"""Multispectral Visor: how much of a target's Mimetism MOD the visor takes away.

Sources: the Infinity wiki's "Multispectral Visor" page (its levels) and "Mimetism"; DIGEST
10 ("Mimetism -3/-6 (BS with LoF, Discover); MSV reduces"). In our words: the visor is
automatic equipment of the one who shoots or Discovers. Level 1 cancels a Mimetism -3 and
halves a Mimetism -6 to -3; Levels 2 and 3 cancel any Mimetism. What the visor takes away is
listed as its own MOD (``multispectral_visor``, positive) next to the ``mimetism`` MOD, so the
roll record says why the Success Value is what it is; the sum is what the rules apply
(docs/rules-decisions/resolution.md, "Multispectral Visor").

Level 3 also shoots at a Camouflage Marker without Discovering it first (``shoots_markers``);
through Smoke zones: ``table/visibility_zones.py`` and ``smoke.py``.
"""

from __future__ import annotations

from ..state import TrooperState
from .rolls import Mod

MSV_SOURCE = "multispectral_visor"


def sees_through_smoke(trooper: TrooperState) -> bool:
    """A visor of any level draws Line of Fire through Smoke zones (never Eclipse ones)."""
    return trooper.profile.multispectral_visor > 0


def openly_sees_through_smoke(trooper: TrooperState) -> bool:
    """``sees_through_smoke`` for what the opponent learns before the trooper acts (ARO
    eligibility): a Camouflage Marker's visor is private, like its whole profile, so as a
    marker it is not counted (docs/rules-decisions/geometry.md, "Smoke and Eclipse zones")."""
    return sees_through_smoke(trooper) and not trooper.marker


ATTACKS_MARKERS_LEVEL = 3


def shoots_markers(trooper: TrooperState) -> bool:
    """Level 3: the trooper may declare a BS Attack at a Camouflage Marker without
    Discovering it first; the marker is revealed by the attack (DIGEST 12)."""
    return trooper.profile.multispectral_visor >= ATTACKS_MARKERS_LEVEL


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
