"""Weapons (range bands, templates) and unit profiles (DIGEST 2, 10.5, 12, 13)."""

from __future__ import annotations

from typing import Any

import pytest

from server.rules.armies.profiles import Training, TroopType, profile_from_plain
from server.rules.armies.weapons import (
    KNOWN_AMMUNITION,
    RangeBand,
    TemplateShape,
    Weapon,
    WeaponKind,
    range_mod,
    template_length,
    weapon_problems,
)
from server.rules.combat.ammunition import Ammunition
from server.rules.ids import WeaponId

RIFLE = Weapon(
    id=WeaponId("rifle"),
    name="Rifle",
    kind=WeaponKind.BALLISTIC,
    burst=3,
    ps=7,
    ammo="N",
    ranges=(RangeBand(8, 3), RangeBand(16, 3), RangeBand(24, -3), RangeBand(48, -6)),
)
KNIFE = Weapon(WeaponId("knife"), "Knife", WeaponKind.CLOSE_COMBAT, 1, 8, "Shock")
SPRAY = Weapon(
    WeaponId("spray"), "Spray", WeaponKind.DIRECT_TEMPLATE, 1, 8, "N",
    template=TemplateShape.SMALL_TEARDROP,
)


@pytest.mark.parametrize(
    ("distance", "expected"),
    [(0, 3), (0.01, 3), (8, 3), (8.01, 3), (16, 3), (16.01, -3), (24, -3), (30, -6), (48, -6)],
)
def test_range_band_upper_edge_is_inclusive(distance: float, expected: int) -> None:
    """Range bands include their upper edge: 8" is Short, 8.01" the next band (DIGEST 10.4)."""
    assert range_mod(RIFLE, distance) == expected


def test_beyond_the_last_band_is_out_of_range() -> None:
    """Beyond maximum range the attack fails automatically (DIGEST 10.5): no MOD at all."""
    assert range_mod(RIFLE, 48.01) is None
    assert range_mod(RIFLE, 200) is None


def test_close_combat_weapon_only_reaches_base_contact() -> None:
    assert range_mod(KNIFE, 0) == 0
    assert range_mod(KNIFE, 0.5) is None


def test_direct_template_reaches_its_template_length_without_a_range_mod() -> None:
    """Direct Template weapons make no attack roll (DIGEST 13): MOD 0 inside the template."""
    assert range_mod(SPRAY, template_length(TemplateShape.SMALL_TEARDROP)) == 0
    assert range_mod(SPRAY, template_length(TemplateShape.SMALL_TEARDROP) + 0.01) is None


def test_large_teardrop_is_longer_than_small() -> None:
    assert template_length(TemplateShape.SMALL_TEARDROP) == 8.0
    assert template_length(TemplateShape.LARGE_TEARDROP) == 10.0


@pytest.mark.parametrize("distance", [-0.1, float("nan"), float("inf")])
def test_range_mod_rejects_impossible_distances(distance: float) -> None:
    with pytest.raises(ValueError, match="distance"):
        range_mod(RIFLE, distance)


def test_sound_weapons_have_no_problems() -> None:
    assert weapon_problems(RIFLE) == ()
    assert weapon_problems(KNIFE) == ()
    assert weapon_problems(SPRAY) == ()


def test_weapon_problems_are_all_reported() -> None:
    broken = Weapon(
        WeaponId("bad"), "Bad", WeaponKind.BALLISTIC, 0, 25, "LASER",
        ranges=(RangeBand(16, 0), RangeBand(8, 3)), disposable=0, save_attribute="PH",
    )
    problems = " ".join(weapon_problems(broken))
    for fragment in ("Burst 0", "PS 25", "'LASER'", "'PH'", "0 disposable", "ascending"):
        assert fragment in problems


def test_template_weapon_needs_a_shape_and_no_bands() -> None:
    no_shape = Weapon(WeaponId("t"), "T", WeaponKind.DIRECT_TEMPLATE, 1, 8, "N",
                      ranges=(RangeBand(8, 0),))
    problems = " ".join(weapon_problems(no_shape))
    assert "without a template shape" in problems
    assert "cannot have range bands" in problems


def test_known_ammunition_codes_match_the_ammunition_rules() -> None:
    """Weapon data may only name ammunition the damage rules know how to resolve."""
    assert set(KNOWN_AMMUNITION) == {ammo.value for ammo in Ammunition}


def profile_data(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "scout", "name": "Scout", "troop_type": "sk", "training": "regular",
        "mov": [4, 4], "cc": 14, "bs": 12, "ph": 11, "wip": 13, "arm": 1, "bts": 0,
        "vita": 1, "structure": False, "silhouette": 2, "weapons": ["rifle"], "cost": 20,
    }
    data.update(changes)
    return data


def test_profile_reads_every_field() -> None:
    profile, problems = profile_from_plain(
        profile_data(camouflage=3, mimetism=3, hidden_deployment=True, swc=0.5)
    )
    assert problems == ()
    assert profile is not None
    assert profile.mov == (4, 4)
    assert profile.training is Training.REGULAR
    assert profile.troop_type is TroopType.SK
    assert profile.weapons == ("rifle",)
    assert profile.deploys_as_marker
    assert profile.hidden_deployment
    assert profile.swc == 0.5


def test_missing_and_mistyped_fields_are_all_named() -> None:
    data = profile_data(bs="twelve", mov=[4], training="veteran", extra=1)
    del data["wip"]
    profile, problems = profile_from_plain(data)
    assert profile is None
    text = " ".join(problems)
    for fragment in ("WIP is missing", "BS must be a whole number", "MOV must have 2 items",
                     "training must be one of", "unknown fields extra"):
        assert fragment in text


def test_a_profile_must_be_an_object() -> None:
    assert profile_from_plain(["not", "a", "profile"])[0] is None


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"mov": [-1, 4]}, "MOV values"),
        ({"bs": 31}, "BS 31"),
        ({"arm": -1}, "ARM -1"),
        ({"vita": 0}, "VITA/STR 0"),
        ({"silhouette": 9}, "Silhouette 9"),
        ({"swc": 0.3}, "SWC in steps of 0.5"),
        ({"camouflage": 4, "mimetism": 3}, "Camouflage 4"),
        ({"mimetism": 2}, "Mimetism 2"),
        ({"camouflage": 6, "mimetism": 3}, "must equal its Mimetism"),
        ({"troop_type": "rem"}, "Structure (STR), so structure must be true"),
        ({"structure": True}, "has VITA, not Structure"),
    ],
)
def test_out_of_range_values_are_refused(changes: dict[str, Any], fragment: str) -> None:
    """Attributes in sane ranges; Camouflage shows Mimetism 3 or 6 (DIGEST 12); REM/TAG use STR."""
    profile, problems = profile_from_plain(profile_data(**changes))
    assert profile is None
    assert any(fragment in problem for problem in problems), problems


@pytest.mark.parametrize("silhouette", [0, 1, 2, 3, 5, 8])
def test_every_silhouette_from_0_to_8_is_accepted(silhouette: int) -> None:
    profile, _ = profile_from_plain(profile_data(silhouette=silhouette))
    assert profile is not None and profile.silhouette == silhouette


def test_peripheral_may_be_a_remote_with_structure() -> None:
    profile, problems = profile_from_plain(profile_data(troop_type="peripheral", structure=True))
    assert problems == ()
    assert profile is not None and profile.is_peripheral
