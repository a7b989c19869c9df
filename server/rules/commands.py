"""Commands: what a player (or the room's clock) asks the rules core to do.

Commands arrive as plain data with a ``"type"`` tag; ``parse_command`` turns them into these
values or raises ``FormatError`` naming the field at fault.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from .armies.skills import PeripheralSkill, Skill
from .ids import Side, TrooperId
from .plain import Plain, Tagged, from_plain
from .state import OrderType
from .table.geometry import Point


class Command(Tagged):
    """Base of every command."""


@dataclass(frozen=True, slots=True)
class ChooseArmy(Command):
    """Exactly one of: ``army``, a shipped list's id (or the seat's registered list's);
    ``list``, an army document the player brings (docs/armies.md); ``code``, an army code,
    which the server's edge expands with the operator's army data into a ``list`` before
    the rules see it (``server/rooms/rules_engine.py``).

    ``entropy``: the player's contribution to the dice, 32 random bytes as 64 lowercase
    hexadecimal characters, drawn by the player's own client after it saw the room's
    dice commitment (``dice``)."""

    TYPE: ClassVar[str] = "choose_army"
    army: str | None = None
    entropy: str = ""
    list: Any = None
    code: str | None = None
    from_code: bool = False
    """Set by the server's edge when it expanded ``code`` into ``list``; a client never
    sends it (``RulesCoreEngine.parse_command`` refuses a body that does)."""


@dataclass(frozen=True, slots=True)
class AcceptArmies(Command):
    """The seat accepts both lists as the referee will play them: every item either list
    carries that the referee does not play (``ListEntry.not_refereed``)."""

    TYPE: ClassVar[str] = "accept_armies"


@dataclass(frozen=True, slots=True)
class ChooseInitiative(Command):
    """The roll-off winner keeps Initiative or Deployment (DIGEST 11.1).

    ``keep="initiative"``: ``first`` says whether the winner plays the first turn.
    ``keep="deployment"``: ``first`` says whether the winner deploys first, and ``zone``
    names the winner's deployment zone.
    """

    TYPE: ClassVar[str] = "choose_initiative"
    keep: Literal["initiative", "deployment"]
    first: bool
    zone: Literal["north", "south"] | None = None


@dataclass(frozen=True, slots=True)
class ChooseRemaining(Command):
    """The roll-off loser takes the option the winner left (with a zone for deployment)."""

    TYPE: ClassVar[str] = "choose_remaining"
    first: bool
    zone: Literal["north", "south"] | None = None


@dataclass(frozen=True, slots=True)
class Deploy(Command):
    TYPE: ClassVar[str] = "deploy"
    trooper: TrooperId
    position: Point
    facing: float
    hidden: bool = False
    """Hidden Deployment: the trooper is placed secretly, not on the table."""
    fallback: Point | None = None
    """Infiltration into the enemy half of the table: where the trooper stands, inside its
    own Deployment Zone, if its PH-3 Roll fails (``orders/infiltration.py``)."""
    fallback_facing: float = 0.0
    mines: tuple[Point, ...] = ()
    """Minelayer (``combat/mines.py``): where it places its Mines, in its Zone of Control."""
    terrain: str | None = None
    """Terrain with a choice of Types (``orders/terrain_skill.py``): the Type chosen, one of
    the profile's ``terrain_choice`` (required for such a trooper, refused for others)."""


@dataclass(frozen=True, slots=True)
class EndDeploymentStep(Command):
    TYPE: ClassVar[str] = "end_deployment_step"


@dataclass(frozen=True, slots=True)
class Activate(Command):
    """Spend an Order (or the Impetuous activation) on a trooper: OES step 1.1."""

    TYPE: ClassVar[str] = "activate"
    trooper: TrooperId
    order: OrderType
    combat_group: int | None = None
    """Regular Orders: the pool to spend from (default: the trooper's own group)."""
    peripherals: tuple[TrooperId, ...] = ()
    """Peripherals of the activated Controller that act on the same Order (DIGEST 2)."""


@dataclass(frozen=True, slots=True)
class DeclareSkill(Command):
    """The active trooper's first or second skill: OES steps 1.2 and 3."""

    TYPE: ClassVar[str] = "declare_skill"
    skill: Skill
    peripherals: tuple[PeripheralSkill, ...] = ()
    """In a joint activation, the same skill for each activated Peripheral (its own route,
    targets...): one entry per Peripheral."""


@dataclass(frozen=True, slots=True)
class DeclareAro(Command):
    TYPE: ClassVar[str] = "declare_aro"
    trooper: TrooperId
    skill: Skill


@dataclass(frozen=True, slots=True)
class PassAro(Command):
    """The reactive player declines an ARO for one eligible trooper."""

    TYPE: ClassVar[str] = "pass_aro"
    trooper: TrooperId


@dataclass(frozen=True, slots=True)
class CloseAroWindow(Command):
    """Close the ARO declaration step: sent by the reactive player when done, or by the
    room's clock at the deadline. Undeclared AROs are lost for this Order."""

    TYPE: ClassVar[str] = "close_aro_window"
    order: int
    step: int


@dataclass(frozen=True, slots=True)
class ClockExpired(Command):
    """The room's timer at the running side's chess-clock deadline (``clocks``): ``side``
    ran out at room time ``at_ms``. Sent by the room only."""

    TYPE: ClassVar[str] = "clock_expired"
    side: Side
    at_ms: int


@dataclass(frozen=True, slots=True)
class HoldClocks(Command):
    """The room could not store any command from room time ``from_ms`` (its first public
    write refused by the store) to ``to_ms`` (the store back): the running chess clock is not
    charged for that span (``clocks``). Sent by the room only."""

    TYPE: ClassVar[str] = "hold_clocks"
    from_ms: int
    to_ms: int


@dataclass(frozen=True, slots=True)
class Reveal(Command):
    """A trooper in Hidden Deployment is placed on the table in its Active Turn."""

    TYPE: ClassVar[str] = "reveal"
    trooper: TrooperId


@dataclass(frozen=True, slots=True)
class KeepAirborne(Command):
    """Deployment: a trooper with Combat Jump stays off the table, in Airborne Deployment,
    instead of being deployed (``airborne``)."""

    TYPE: ClassVar[str] = "keep_airborne"
    trooper: TrooperId


@dataclass(frozen=True, slots=True)
class CombatJump(Command):
    """A trooper in Airborne Deployment enters the table on its own Order: placed at
    ``position``, then a PH Roll; if it fails, the trooper stands at ``fallback`` instead
    (in its Deployment Zone, touching the table edge), chosen now (``airborne``)."""

    TYPE: ClassVar[str] = "combat_jump"
    trooper: TrooperId
    position: Point
    facing: float
    fallback: Point
    fallback_facing: float


@dataclass(frozen=True, slots=True)
class AppointLieutenant(Command):
    """A player in Loss of Lieutenant names its new Lieutenant, who takes the role at the
    End of its Turn (DIGEST 11.3; ``lieutenant.py``). Private: the opponent never learns
    who."""

    TYPE: ClassVar[str] = "appoint_lieutenant"
    trooper: TrooperId


@dataclass(frozen=True, slots=True)
class ChooseGutsFailure(Command):
    """[N5] The owner's standing choice for one trooper: ``fail`` True makes every later
    Guts Roll of the trooper a chosen failure (no die), False rolls them again (DIGEST
    7.8 "the player may choose to fail it"). Private: the opponent learns it only from a
    Guts record that says "chosen failure"."""

    TYPE: ClassVar[str] = "choose_guts_failure"
    trooper: TrooperId
    fail: bool


@dataclass(frozen=True, slots=True)
class ChooseGutsMove(Command):
    """[N5] In a Guts window (``guts_window_opened``), the owner's movement for the trooper
    whose Guts Roll failed: ``route`` (its position first, at most 2 inches) must satisfy the
    rule the window names (DIGEST 7.8); an empty route takes the default. The room sends it
    with no route when the window's deadline passes."""

    TYPE: ClassVar[str] = "choose_guts_move"
    order: int
    trooper: TrooperId
    route: tuple[Point, ...] = ()


@dataclass(frozen=True, slots=True)
class SpendCommandToken(Command):
    """[N5] Spend one Command Token (DIGEST 3.3; ``command_tokens.py``).

    ``use="remove_orders"`` (Strategic): remove Regular Orders from the opponent's pools,
    one per entry of ``combat_groups`` (two, or what the pools hold if fewer).
    ``use="limit_tokens"`` (Strategic): the opponent may spend one Command Token this turn.
    ``use="suppressive_fire"`` (Strategic): ``trooper`` (and its Peripherals) enters
    Suppressive Fire State.
    ``use="hold_back"`` (Strategic, in deployment): one more trooper waits for the reserve step.
    ``use="transfer_trooper"`` (Executive): ``trooper`` joins Combat Group ``combat_group``.
    """

    TYPE: ClassVar[str] = "spend_command_token"
    use: Literal["remove_orders", "limit_tokens", "suppressive_fire", "hold_back",
                 "transfer_trooper"]
    combat_groups: tuple[int, ...] = ()
    trooper: TrooperId | None = None
    combat_group: int | None = None


@dataclass(frozen=True, slots=True)
class CoordinateOrder(Command):
    """[N5] A Coordinated Order (DIGEST 3.4; ``command_tokens.py``): 1 Command Token and 1
    Regular Order of their Combat Group activate ``spearhead`` and ``troopers`` (up to 4 in
    all), who then declare the same skills, each attack on the same single target."""

    TYPE: ClassVar[str] = "coordinate_order"
    spearhead: TrooperId
    troopers: tuple[TrooperId, ...]


@dataclass(frozen=True, slots=True)
class FormFireteam(Command):
    """Form a Fireteam (``orders/fireteams.py``): in one's own deployment step, or in one's
    Orders Phase between Orders by spending a Command Token. ``members``: the others."""

    TYPE: ClassVar[str] = "form_fireteam"
    kind: Literal["core", "haris", "duo"]
    leader: TrooperId
    members: tuple[TrooperId, ...]


@dataclass(frozen=True, slots=True)
class ActivateFireteam(Command):
    """Spend one Regular Order of the team's Combat Group on a whole Fireteam, ``leader``
    declaring (``orders/fireteams.py``); the members declare in ``declare_skill``'s
    ``peripherals``."""

    TYPE: ClassVar[str] = "activate_fireteam"
    leader: TrooperId


@dataclass(frozen=True, slots=True)
class EndImpetuousPhase(Command):
    TYPE: ClassVar[str] = "end_impetuous_phase"


@dataclass(frozen=True, slots=True)
class EndTurn(Command):
    """The active player spends no more Orders this turn (unused Orders are lost)."""

    TYPE: ClassVar[str] = "end_turn"


@dataclass(frozen=True, slots=True)
class Concede(Command):
    TYPE: ClassVar[str] = "concede"


# --- Classified Objectives (missions/classified.py) ---
@dataclass(frozen=True, slots=True)
class ClassifiedAction(Command):
    """The Short Skill a Classified Objective card names, declared by the active trooper
    ``trooper`` in its Order (as ``declare_skill`` with a ``classified_action`` skill):
    ``card`` the card's id, ``target`` the trooper in base contact the card needs (none for
    a card without one)."""

    TYPE: ClassVar[str] = "classified_action"
    trooper: TrooperId
    card: str
    target: TrooperId | None = None
# --- end of Classified Objectives ---


def parse_command(data: Plain) -> Command:
    """Build a command from plain data; raises ``plain.FormatError`` if malformed."""
    return from_plain(Command, data)
