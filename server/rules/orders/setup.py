"""A new game: ruleset, seeded dice, the table with its terrain and deployment zones."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..armies.army_catalogue import load_weapons
from ..armies.army_list import ArmyList, load_army_list
from ..combat.dice import Dice, DiceSource, fixed_secret
from ..ids import Side
from ..missions.classified_deck import shipped_deck
from ..ruleset import Ruleset
from ..state import GameState
from ..table import table_catalogue
from .command_tokens import initial_tokens

FIXED_IDS_PREFIX = b"infinity-referee/fixed-ids/v1\x00"


@dataclass(frozen=True, slots=True)
class GameSetup:
    """A new game. A live room passes ``dice_secret`` and ``id_key`` (two independent
    256-bit values from the operating system's CSPRNG, hexadecimal); without them both are
    made from ``seed``, which fixes the dice: tests, scenarios and the bench only."""

    ruleset: str = Ruleset.N5.value
    seed: int = 0
    injected_dice: tuple[int, ...] = ()
    """Faces rolled before any generated ones (tests and scripted scenarios)."""
    dice_secret: str = ""
    id_key: str = ""
    table: str | Mapping[str, Any] = ""
    """A shipped layout's id, a whole table document (docs/tables.md), or "" for the
    ruleset's sparse sample layout (``sample-open``, ``sample-open-codeone``), which the
    tests and the bench place their troopers on."""
    registered_armies: Mapping[Side, str | Mapping[str, Any]] = field(default_factory=dict)
    """The army a side must choose (a tournament table: each player's registered army): a
    shipped list's id, or the army document the player registered (docs/armies.md), which
    must be a legal list (``ArmyListError`` otherwise); a side left out chooses freely."""
    # --- Classified Objectives (missions/classified.py): seams until the Mission carries them
    classified_draw: int = 0
    """Classified Objectives each side draws (0: none)."""
    classified_op: int = 0
    """Objective Points of one achieved Classified Objective."""


def new_game(setup: GameSetup) -> GameState:
    """The game at army selection; ``tables.TableError`` if the table cannot be played with
    the ruleset."""
    ruleset = Ruleset(setup.ruleset)
    layout = table_catalogue.choose(setup.table, ruleset)
    brought = _registered_lists(setup.registered_armies)
    return GameState(
        ruleset=ruleset,
        dice=Dice(injected=tuple(setup.injected_dice)),
        dice_source=DiceSource(setup.dice_secret or fixed_secret(setup.seed)),
        id_key=setup.id_key or _fixed_id_key(setup.seed),
        table=layout.table,
        deployment_zones=dict(layout.zones),
        command_tokens=initial_tokens(ruleset),
        registered_armies={side: army if isinstance(army, str) else brought[side].id
                           for side, army in setup.registered_armies.items()},
        registered_lists=brought,
        classified_draw=_classified_draw(setup.classified_draw, ruleset),
        classified_op=_classified_op(setup.classified_op),
    )


def _classified_draw(count: int, ruleset: Ruleset) -> int:
    """``count`` if the ruleset's deck can give each side that many cards (ValueError)."""
    if count == 0:
        return 0  # (no deck read for a game without Classified Objectives)
    cards = len(shipped_deck(ruleset))
    if not 0 < count <= cards:
        raise ValueError(f"classified_draw must be 0 to {cards} (the {ruleset.value} deck's "
                         f"cards), got {count}")
    return count


def _classified_op(op: int) -> int:
    if op < 0:
        raise ValueError(f"classified_op must not be negative, got {op}")
    return op


def _registered_lists(registered: Mapping[Side, str | Mapping[str, Any]]) -> dict[Side, ArmyList]:
    return {side: load_army_list(army, load_weapons())
            for side, army in registered.items() if not isinstance(army, str)}


def _fixed_id_key(seed: int) -> str:
    return hashlib.sha256(FIXED_IDS_PREFIX + str(seed).encode()).hexdigest()
