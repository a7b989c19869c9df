"""Rulesets: the default (seeds + N5) and CodeOne (DIGEST 14)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .combat.rolls import CritConvention
from .combat.saves import SaveConvention


class Ruleset(StrEnum):
    N5 = "n5"
    CODEONE = "codeone"


@dataclass(frozen=True, slots=True)
class RulesetOptions:
    """What a ruleset switches on or off."""

    crit_convention: CritConvention
    save_convention: SaveConvention
    guts_rolls: bool
    retreat: bool
    impetuous: bool
    sixth_sense: bool
    aro_check_step: bool
    zoc_dodge_penalty: bool
    """N5: a Dodge from Zone of Control without Line of Fire takes -3 PH (DIGEST 6.1)."""
    command_tokens: bool
    """N4/N5 Command Tokens exist (DIGEST 3.3); CodeOne has none (DIGEST 14)."""
    suppressive_fire: bool
    """N4/N5 Suppressive Fire skill and State (DIGEST 8, 9); "not used in CodeOne" (wiki
    Suppressive Fire State page, N4)."""
    table_width: float
    table_depth: float
    rounds: int = 3
    berserk: bool = True
    """N4/N5 Berserk (``orders/berserk.py``); "not used in CodeOne" (wiki Berserk page, N4)."""


OPTIONS: dict[Ruleset, RulesetOptions] = {
    Ruleset.N5: RulesetOptions(
        crit_convention=CritConvention.N5,
        save_convention=SaveConvention.N5,
        guts_rolls=True,
        retreat=True,
        impetuous=True,
        sixth_sense=True,
        aro_check_step=True,
        zoc_dodge_penalty=True,
        command_tokens=True,
        suppressive_fire=True,
        table_width=48.0,
        table_depth=48.0,
    ),
    Ruleset.CODEONE: RulesetOptions(
        crit_convention=CritConvention.N4,
        save_convention=SaveConvention.N4,
        guts_rolls=False,
        retreat=False,
        impetuous=False,
        sixth_sense=False,
        aro_check_step=False,
        zoc_dodge_penalty=False,
        command_tokens=False,
        suppressive_fire=False,
        table_width=24.0,
        table_depth=32.0,
        berserk=False,
    ),
}


def options(ruleset: Ruleset) -> RulesetOptions:
    return OPTIONS[ruleset]
