"""Events: the facts the rules core records. ``engine.apply`` folds them into the state.

Events that consume dice carry the generator's state after the roll in a ``dice`` field, so
applying the log reproduces the game exactly; views never show that field to anyone.

The base class (``event_base.py``) and the set-up events (``setup_events.py``: armies,
Initiative, deployment) live in modules of their own; this module re-exports them, so
importers name every event from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .armies.skills import PeripheralSkill, Skill
from .combat.dice import Dice
from .combat.outcome import Effect, Outcome, RollRecord
from .event_base import Event as Event
from .ids import Side, TrooperId, WeaponId
from .plain import Plain, from_plain, to_plain
from .setup_events import ArmiesAccepted as ArmiesAccepted
from .setup_events import ArmyChosen as ArmyChosen
from .setup_events import DeploymentStepEnded as DeploymentStepEnded
from .setup_events import InfiltrationRolled as InfiltrationRolled
from .setup_events import InitiativeChosen as InitiativeChosen
from .setup_events import InitiativeRolled as InitiativeRolled
from .setup_events import InitiativeSettled as InitiativeSettled
from .setup_events import MinePlaced as MinePlaced
from .setup_events import MinesLost as MinesLost
from .setup_events import TerrainTypeChosen as TerrainTypeChosen
from .setup_events import TrooperDeployed as TrooperDeployed
from .state import ClassifiedCard, Conclusion, Eligibility, GameResult, OrderType, Phase
from .table.geometry import Point


@dataclass(frozen=True, slots=True)
class MineTriggered(Event):
    """An enemy Mine went off at an ARO step of the current Order, against ``target``
    standing at ``at`` (``combat/mines.py``): a reactive-side Mine against an activated
    trooper, or an active-side Mine, once an ARO window closed, against a reactive trooper
    that declared an ARO there. Open. Its template is resolved with the Order; the Mine
    leaves the table then."""

    TYPE: ClassVar[str] = "mine_triggered"
    order: int
    mine: TrooperId
    side: Side
    weapon: WeaponId
    position: Point
    target: TrooperId
    at: Point
    facing: float


@dataclass(frozen=True, slots=True)
class ChainOfCommandTookOver(Event):
    """Chain of Command (``orders/chain_of_command.py``): at its Loss of Lieutenant check,
    ``trooper`` became the side's Lieutenant and the check passed. Its owner's only: who
    the Lieutenant is stays Private Information."""

    TYPE: ClassVar[str] = "chain_of_command_took_over"
    side: Side
    trooper: TrooperId


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    TYPE: ClassVar[str] = "turn_started"
    round: int
    turn: int
    active: Side


@dataclass(frozen=True, slots=True)
class LossOfLieutenant(Event):
    """Tactical Phase check: no Lieutenant on the table (or it is Null)."""

    TYPE: ClassVar[str] = "loss_of_lieutenant"
    side: Side


@dataclass(frozen=True, slots=True)
class RetreatDeclared(Event):
    TYPE: ClassVar[str] = "retreat_declared"
    side: Side
    victory_points: int
    threshold: int


@dataclass(frozen=True, slots=True)
class OrdersCounted(Event):
    TYPE: ClassVar[str] = "orders_counted"
    side: Side
    pools: dict[int, int]
    irregular: tuple[TrooperId, ...]
    tactical: tuple[TrooperId, ...]
    lieutenant: TrooperId | None
    impetuous: tuple[TrooperId, ...]
    hidden: tuple[TrooperId, ...] = ()
    """Troopers in Hidden or Airborne Deployment holding their own private Order: seen by
    the owner only (``views``; seeds 002/004)."""


@dataclass(frozen=True, slots=True)
class PhaseStarted(Event):
    TYPE: ClassVar[str] = "phase_started"
    phase: Phase


@dataclass(frozen=True, slots=True)
class OrderSpent(Event):
    """OES 1.1: which Order was spent is open information (seed 004)."""

    TYPE: ClassVar[str] = "order_spent"
    order: int
    trooper: TrooperId
    order_type: OrderType
    combat_group: int
    peripherals: tuple[TrooperId, ...] = ()
    """Peripherals activated by the same Order as their Controller."""
    private: bool = False
    """The Order spent is the trooper's own private Order, brought while in Hidden
    Deployment (``hidden_deployment``) or Airborne Deployment (``airborne``): it leaves no
    pool and no count anyone saw."""
    fireteam: str | None = None
    """A Fireteam's Order: the team's type ("core", "haris", "duo"; ``trooper`` leads it,
    ``peripherals`` are its other members), else None. Open, as the team is."""
    fireteam_level: int = 0
    """The Level of that Fireteam (``orders/fireteams.fireteam_level``), 0 for no team."""


@dataclass(frozen=True, slots=True)
class SkillDeclared(Event):
    """OES 1.2 / 3: a movement fixes the whole route and places the trooper at its end."""

    TYPE: ClassVar[str] = "skill_declared"
    order: int
    trooper: TrooperId
    index: int
    skill: Skill
    peripherals: tuple[PeripheralSkill, ...] = ()


@dataclass(frozen=True, slots=True)
class AroWindowOpened(Event):
    TYPE: ClassVar[str] = "aro_window_opened"
    order: int
    step: int
    eligible: tuple[Eligibility, ...]
    hidden: tuple[TrooperId, ...]
    """Eligible troopers in Hidden Deployment: only their owner may know."""
    public: tuple[Eligibility, ...] = ()
    """``eligible`` as the opponent and spectators see it, fixed when the window opened
    (``aro_eligibility.seen_by_opponent``: models only): what a later reveal changes does not
    change how this event is shown, live or on a resume."""


@dataclass(frozen=True, slots=True)
class AroDeclared(Event):
    TYPE: ClassVar[str] = "aro_declared"
    order: int
    step: int
    trooper: TrooperId
    skill: Skill
    revealed: bool
    """The declaration revealed a Camouflage Marker or a hidden trooper."""
    position: Point | None = None
    """Where a trooper in Hidden Deployment stands, now that it is revealed."""


@dataclass(frozen=True, slots=True)
class AroPassed(Event):
    TYPE: ClassVar[str] = "aro_passed"
    order: int
    step: int
    trooper: TrooperId
    hidden: bool = False
    """The pass is private to its owner (``aro_eligibility.seen_by_opponent``)."""


@dataclass(frozen=True, slots=True)
class AroWindowClosed(Event):
    TYPE: ClassVar[str] = "aro_window_closed"
    order: int
    step: int
    lost: tuple[TrooperId, ...]
    """Eligible troopers that declared nothing: they lose their ARO for this Order."""
    reason: str
    """"closed_by_player" (the reactive player is done) or "deadline"."""
    lost_hidden: tuple[TrooperId, ...] = ()
    """The same, for troopers whose eligibility is private (``aro_eligibility.seen_by_opponent``: in
    Hidden Deployment, or a Camouflage Marker); only their owner sees these."""


@dataclass(frozen=True, slots=True)
class OrderResolved(Event):
    """OES Resolution, Effects and Conclusion: everything declared, resolved at once."""

    TYPE: ClassVar[str] = "order_resolved"
    order: int
    outcome: Outcome
    dice: Dice
    conclusion: Conclusion | None = None
    """When a failed Guts Roll leaves its owner a movement to choose: the Guts reactions
    and Alert! turns still to come (not in ``outcome``); the Order stays open at its
    Conclusion until ``order_concluded`` (``combat/guts_window.py``)."""


@dataclass(frozen=True, slots=True)
class GutsWindowOpened(Event):
    """The Conclusion waits on ``side`` to choose where ``trooper`` moves after its failed
    Guts Roll, until the room's deadline (``combat/guts_window.py``). ``reason`` is the
    rule the movement must satisfy ("guts_out_of_line_of_fire", "guts_out_of_reach",
    "guts_to_cover"); ``default`` the route taken if the owner accepts it or lets the
    deadline pass. Open information: the Guts record and the trooper's position are."""

    TYPE: ClassVar[str] = "guts_window_opened"
    order: int
    trooper: TrooperId
    side: Side
    reason: str
    default: tuple[Point, ...]


@dataclass(frozen=True, slots=True)
class GutsReacted(Event):
    """A failed Guts Roll's reaction in a waiting Conclusion: ``effect`` is the movement
    (``moved``), ``went_prone``, or None (already Prone); ``choice`` says how it was
    decided: "chosen" (the owner's route), "default" (the owner accepted the default),
    "deadline" (the window's deadline passed) or "automatic" (no movement to choose)."""

    TYPE: ClassVar[str] = "guts_reacted"
    order: int
    trooper: TrooperId
    effect: Effect | None
    choice: str


@dataclass(frozen=True, slots=True)
class OrderConcluded(Event):
    """The end of a Conclusion that waited on Guts movements: the Alert! turns (DIGEST 9),
    from where the troopers stand now; the Order is over."""

    TYPE: ClassVar[str] = "order_concluded"
    order: int
    effects: tuple[Effect, ...] = ()


@dataclass(frozen=True, slots=True)
class TrooperRevealed(Event):
    TYPE: ClassVar[str] = "trooper_revealed"
    trooper: TrooperId
    position: Point
    facing: float


@dataclass(frozen=True, slots=True)
class TrooperKeptAirborne(Event):
    """Deployment: a trooper with Combat Jump stays off the table in Airborne Deployment
    (``airborne``). Private to its owner: the opponent may not learn it exists (DIGEST
    11.2)."""

    TYPE: ClassVar[str] = "trooper_kept_airborne"
    trooper: TrooperId


@dataclass(frozen=True, slots=True)
class CombatJumpLanded(Event):
    """Combat Jump (``airborne``): the model was placed at ``landing``, its PH Roll made;
    passed, it stays there, failed, it stands at ``position`` (in its Deployment Zone,
    touching the table edge). Seen by everyone: the trooper is on the table from now on."""

    TYPE: ClassVar[str] = "combat_jump_landed"
    trooper: TrooperId
    landing: Point
    landing_facing: float
    roll: RollRecord
    landed: bool
    """The PH Roll passed: the trooper stays at ``landing``."""
    position: Point
    facing: float
    dice: Dice


@dataclass(frozen=True, slots=True)
class SuppressiveFireChanged(Event):
    """A trooper entered (``active``) or left Suppressive Fire State, and why
    (``combat/suppressive_fire.py``). ``apply`` already derives the State from the event
    before it; this one says so in the log, for the players and for clients that fold
    events (applying it again changes nothing). Open information, but a Camouflage Marker's
    or a hidden trooper's is its owner's only (``views``)."""

    TYPE: ClassVar[str] = "suppressive_fire_changed"
    trooper: TrooperId
    active: bool
    reason: str
    """Entered: "skill", "command_token". Left: "declared_order", "other_aro", "guts_failed",
    "null", "isolated", "immobilized", "engaged", "retreat", "loss_of_lieutenant"."""


@dataclass(frozen=True, slots=True)
class GutsFailureChosen(Event):
    """The owner set (or lifted) its standing choice to fail a trooper's Guts Rolls.
    Private to the owner (``views``)."""

    TYPE: ClassVar[str] = "guts_failure_chosen"
    trooper: TrooperId
    fail: bool


@dataclass(frozen=True, slots=True)
class LieutenantAppointed(Event):
    """A player in Loss of Lieutenant named its new Lieutenant (effective at the End of its
    Turn). Private to that player (``views``)."""

    TYPE: ClassVar[str] = "lieutenant_appointed"
    side: Side
    trooper: TrooperId


@dataclass(frozen=True, slots=True)
class CommandTokenSpent(Event):
    """A player spent one Command Token (DIGEST 3.3; ``command_tokens.py``): open
    information. ``left``: the player's tokens after this one."""

    TYPE: ClassVar[str] = "command_token_spent"
    side: Side
    use: str
    left: int
    combat_groups: tuple[int, ...] = ()
    """``remove_orders``: the opponent's pool of each Regular Order removed."""
    trooper: TrooperId | None = None
    """``transfer_trooper``: the trooper that changes Combat Group..."""
    combat_group: int | None = None
    """...and the group it joins."""


@dataclass(frozen=True, slots=True)
class FireteamFormed(Event):
    """A player formed a Fireteam (``orders/fireteams.py``): open information. ``members``
    includes the ``leader``; ``level``: its Fireteam Level now."""

    TYPE: ClassVar[str] = "fireteam_formed"
    side: Side
    kind: str
    leader: TrooperId
    members: tuple[TrooperId, ...]
    level: int


@dataclass(frozen=True, slots=True)
class FireteamLeft(Event):
    """A member left its Fireteam, or the Fireteam broke (``cancelled``: fewer than two
    members stay, or the leader left on its own Order, and all leave). ``reason``: "null",
    "isolated", "coherency", "activated_alone", "impetuous" (``orders/fireteams.py``). Open
    information."""

    TYPE: ClassVar[str] = "fireteam_left"
    side: Side
    leader: TrooperId
    trooper: TrooperId
    reason: str
    cancelled: bool = False
    level: int = 0
    """The team's Fireteam Level once the member has left (0 when it is cancelled): the
    Level shown with the team (``orders/fireteams.fireteam_level``)."""


@dataclass(frozen=True, slots=True)
class StatesPhaseChecked(Event):
    """The States Phase checks of both players (seed 002): no roll, no ARO. Each trooper in
    ``stunned_cancelled`` was Stunned in this Player Turn and is no longer
    (``combat/stunned.py``); each trooper in ``dogged_dead`` used Dogged in this Player Turn
    and enters the Dead State (``combat/incapacitation.py``); ``zones_removed`` Smoke and
    Eclipse zones leave the table (``combat/smoke.py``). Open information: emitted only when
    some check did something."""

    TYPE: ClassVar[str] = "states_phase_checked"
    round: int
    turn: int
    stunned_cancelled: tuple[TrooperId, ...] = ()
    dogged_dead: tuple[TrooperId, ...] = ()
    zones_removed: int = 0


@dataclass(frozen=True, slots=True)
class TurnEnded(Event):
    """States Phase done; every unused Order token is removed (seed 002). For a side in Loss
    of Lieutenant (not in Retreat!), its new Lieutenant takes office here (DIGEST 11.3):
    ``lieutenant_appointed`` says whether one did (open: the side leaves Loss of
    Lieutenant), ``new_lieutenant`` who (private to that side: ``views``). Both None for a
    side not in Loss of Lieutenant, and in records made before they were sent."""

    TYPE: ClassVar[str] = "turn_ended"
    round: int
    turn: int
    side: Side
    unused_orders: int
    lieutenant_appointed: bool | None = None
    new_lieutenant: TrooperId | None = None


# --- Missions (docs/missions.md): open information -------------------------------------------


@dataclass(frozen=True, slots=True)
class ObjectiveActivated(Event):
    """``trooper`` of ``side`` activated the mission marker ``marker`` in Game Round
    ``round``: its Activate roll passed (``missions/consoles.py``). Follows the Order's
    ``order_resolved``, whose rolls show the roll."""

    TYPE: ClassVar[str] = "objective_activated"
    side: Side
    trooper: TrooperId
    marker: str
    round: int


@dataclass(frozen=True, slots=True)
class Award:
    """``op`` Objective Points to ``side`` for ``objective`` (an objective's id, or
    "concession"), with ``reason``, a sentence players read. ``op`` is what the side
    actually scores: never past the mission's cap (``missions/points.py``)."""

    side: Side
    objective: str
    op: int
    reason: str


@dataclass(frozen=True, slots=True)
class ObjectivePointsScored(Event):
    """The mission's objectives scored at the end of Game Round ``round`` (``when`` is
    "round_end") or at the end of the game ("game_end"): before the next round's
    ``turn_started`` or before ``game_ended``; emitted only when it awards something
    (``missions/scoring.py``)."""

    TYPE: ClassVar[str] = "objective_points_scored"
    when: str
    round: int
    awards: tuple[Award, ...]


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    TYPE: ClassVar[str] = "game_ended"
    result: GameResult
    revealed: dict[TrooperId, Plain] = field(default_factory=dict)
    """Private information becomes open at the end of the game (DIGEST 11.2)."""
    dice_revealed: dict[str, Plain] = field(default_factory=dict)
    """The dice secret, its commitment and both contributions, for everyone to check every
    die of the game (``dice.dice_reveal``; docs/fair-play.md)."""
    classified: dict[Side, tuple[ClassifiedCard, ...]] = field(default_factory=dict)
    """Classified Objectives: every card each side drew, achieved or not, open to all now
    (``missions/classified.py``); empty in a game without them."""


@dataclass(frozen=True, slots=True)
class ClockSwitched(Event):
    """Chess clocks (``clocks``): at room time ``at_ms`` the clock of ``running`` starts (None:
    none runs); ``remaining`` is each side's time left then."""

    TYPE: ClassVar[str] = "clock_switched"
    at_ms: int
    running: Side | None
    remaining: dict[Side, int]


@dataclass(frozen=True, slots=True)
class ClockRanOut(Event):
    """``side``'s chess clock reached 0 at room time ``at_ms``: it plays no more Orders after
    the current one, but still declares AROs (``clocks``)."""

    TYPE: ClassVar[str] = "clock_ran_out"
    side: Side
    at_ms: int


@dataclass(frozen=True, slots=True)
class ClocksHeld(Event):
    """Chess clocks (``clocks``): the room could not store commands from room time
    ``from_ms`` to ``to_ms``, and the running clock was not charged for it; it runs again
    from ``to_ms`` with ``remaining`` (each side's time left)."""

    TYPE: ClassVar[str] = "clocks_held"
    from_ms: int
    to_ms: int
    remaining: dict[Side, int]


def event_to_plain(event: Event) -> Plain:
    return to_plain(event)


def event_from_plain(data: Plain) -> Event:
    return from_plain(Event, data)


# --- Classified Objectives (missions/classified.py) ---------------------------------------


@dataclass(frozen=True, slots=True)
class ClassifiedDrawn(Event):
    """``side`` drew its Classified Objectives (deck card ids, in the order drawn) from the
    room's dice, after both armies were chosen and before the Initiative Roll. Its side (and
    casters) sees ``cards``; every other viewer sees the same event with ``cards`` replaced by
    their count (``views``), identical whichever cards came. ``dice``: as every rolling event."""

    TYPE: ClassVar[str] = "classified_drawn"
    side: Side
    cards: tuple[str, ...]
    dice: Dice


@dataclass(frozen=True, slots=True)
class ClassifiedAchieved(Event):
    """``side`` achieved its Classified Objective ``card``, worth ``op`` Objective Points;
    ``reason`` says how, in words players read. Open: it reveals the card to everyone."""

    TYPE: ClassVar[str] = "classified_achieved"
    side: Side
    card: str
    op: int
    reason: str


# --- end of Classified Objectives --------------------------------------------------------
