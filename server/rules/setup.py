"""A new game: ruleset, seeded dice, the table with its terrain and deployment zones."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .dice import Dice, DiceSource, fixed_secret
from .geometry import Point
from .ids import TerrainId
from .ruleset import Ruleset, options
from .state import GameState
from .terrain import Table, TerrainPiece, Zone

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


def _box(name: str, x: float, y: float, w: float, d: float, height: float) -> TerrainPiece:
    polygon: tuple[Point, ...] = ((x, y), (x + w, y), (x + w, y + d), (x, y + d))
    return TerrainPiece(id=TerrainId(name), polygon=polygon, height=height)


def standard_layout() -> tuple[Table, dict[str, Zone]]:
    """48x48 inches, 12-inch deep deployment zones on the south and north edges."""
    terrain = (
        _box("building-w", 8, 20, 6, 8, 4.0),
        _box("building-e", 34, 20, 6, 8, 4.0),
        _box("wall-c", 20, 23.5, 8, 1, 1.0),
        _box("container-s", 22, 14, 4, 2, 2.5),
        _box("container-n", 22, 32, 4, 2, 2.5),
    )
    table = Table(width=48.0, depth=48.0, terrain=terrain)
    return table, {"south": Zone(0, 0, 48, 12), "north": Zone(0, 36, 48, 48)}


def codeone_layout() -> tuple[Table, dict[str, Zone]]:
    """24 wide, 32 deep (DIGEST 14), 8-inch deep deployment zones on the short edges."""
    terrain = (
        _box("building-w", 3, 13, 5, 6, 4.0),
        _box("building-e", 16, 13, 5, 6, 4.0),
        _box("wall-c", 10, 15.5, 4, 1, 1.0),
    )
    table = Table(width=24.0, depth=32.0, terrain=terrain)
    return table, {"south": Zone(0, 0, 24, 8), "north": Zone(0, 24, 24, 32)}


def new_game(setup: GameSetup) -> GameState:
    ruleset = Ruleset(setup.ruleset)
    table, zones = codeone_layout() if ruleset is Ruleset.CODEONE else standard_layout()
    assert table.width == options(ruleset).table_width
    return GameState(
        ruleset=ruleset,
        dice=Dice(injected=tuple(setup.injected_dice)),
        dice_source=DiceSource(setup.dice_secret or fixed_secret(setup.seed)),
        id_key=setup.id_key or _fixed_id_key(setup.seed),
        table=table,
        deployment_zones=zones,
    )


def _fixed_id_key(seed: int) -> str:
    return hashlib.sha256(FIXED_IDS_PREFIX + str(seed).encode()).hexdigest()
