"""An imported list's "Fireteam: Core/Haris/Duo" items become the profile's Fireteam fields
(DIGEST 3.5; the wiki's N5 "Fireteams Chart"): the referee plays them, so they leave the
list's "not refereed" items."""

from __future__ import annotations

from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item, is_mapped
from server.rules.armies.not_refereed import ItemKind


def test_fireteam_items_are_refereed_and_set_the_profile_fields() -> None:
    flags = TrooperFlags()
    for name in ("Fireteam: Core", "Fireteam: Haris", "fireteam:  duo"):
        assert is_mapped(name), name
        assert apply_item(DataItem(ItemKind.SKILL, name), flags) is None
    assert flags.fields == {"fireteam_core": True, "fireteam_haris": True, "fireteam_duo": True}
