"""What the referee does not play: one record per item of a converted trooper that the engine
has no rule for, and the sentence both players read before the game (docs/armies.md, "What
the referee knows").

Implementation module: no rule section (the wording is ours, the items are the data's).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

MAX_TEXT = 200
"""Characters of one item's sentence at most (the army document's limit)."""
MAX_ITEMS = 50
"""Items of one trooper at most (the army document's limit); more are summed up in one."""

PLAYED_WITHOUT = "played without it"


class ItemKind(StrEnum):
    """What kind of thing is not refereed; the coverage report counts by kind and name."""

    SKILL = "skill"
    EQUIPMENT = "equipment"
    WEAPON = "weapon"
    WEAPON_PROPERTY = "weapon property"
    AMMUNITION = "ammunition"
    ORDER = "order"
    CUSTOMISATION = "customisation"


@dataclass(frozen=True, slots=True)
class NotRefereed:
    """One item the referee does not play.

    ``label`` is the item as a player reads it on the profile ("Glare Visor L1",
    "Arc Launcher (Shell): Anti-materiel"); ``consequence`` what the referee does instead
    ("played without it", "not carried: ..."); ``name`` the item without its levels or its
    weapon, which the coverage report counts ("Glare Visor", "Anti-materiel").
    """

    kind: ItemKind
    name: str
    label: str
    consequence: str = PLAYED_WITHOUT

    @property
    def text(self) -> str:
        """The sentence players read: "Glare Visor L1 — played without it"."""
        return shorten(f"{self.label} — {self.consequence}")


def shorten(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def item_texts(items: tuple[NotRefereed, ...]) -> list[str]:
    """The sentences of one trooper's items, without repeats, at most ``MAX_ITEMS``: beyond
    that the rest are summed up in the last one, so nothing is dropped unsaid."""
    texts = list(dict.fromkeys(item.text for item in items))
    if len(texts) <= MAX_ITEMS:
        return texts
    rest = len(texts) - (MAX_ITEMS - 1)
    return [*texts[:MAX_ITEMS - 1], f"{rest} more items — played without them"]
