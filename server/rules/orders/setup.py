"""A new game: ruleset, seeded dice, the table with its terrain and deployment zones."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..combat.dice import Dice, DiceSource, fixed_secret
from ..ids import Side
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
    registered_armies: Mapping[Side, str] = field(default_factory=dict)
    """The army list id a side must choose (a tournament table: each player's registered
    army); a side left out chooses freely."""


def new_game(setup: GameSetup) -> GameState:
    """The game at army selection; ``tables.TableError`` if the table cannot be played with
    the ruleset."""
    ruleset = Ruleset(setup.ruleset)
    layout = table_catalogue.choose(setup.table, ruleset)
    return GameState(
        ruleset=ruleset,
        dice=Dice(injected=tuple(setup.injected_dice)),
        dice_source=DiceSource(setup.dice_secret or fixed_secret(setup.seed)),
        id_key=setup.id_key or _fixed_id_key(setup.seed),
        table=layout.table,
        deployment_zones=dict(layout.zones),
        command_tokens=initial_tokens(ruleset),
        registered_armies=dict(setup.registered_armies),
    )


def _fixed_id_key(seed: int) -> str:
    return hashlib.sha256(FIXED_IDS_PREFIX + str(seed).encode()).hexdigest()
