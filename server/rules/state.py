"""The game state: immutable values folded from events by ``engine.apply``.

Mappings inside the state are never mutated in place: every change builds a new dict, so a
state value can be shared freely (views, snapshots, replays).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from .armies.army_list import ArmyList, ListEntry
from .armies.profiles import UnitProfile
from .armies.skills import Skill
from .combat.dice import Dice, DiceSource
from .combat.wounds import Condition
from .evolve import replace
from .ids import Side, TrooperId, WeaponId
from .missions.mission import Mission
from .ruleset import Ruleset
from .table.geometry import Body, Point
from .table.terrain import Table, Zone


class Phase(StrEnum):
    ARMY_SELECTION = "army_selection"
    INITIATIVE = "initiative"
    DEPLOYMENT = "deployment"
    TACTICAL = "tactical"
    IMPETUOUS = "impetuous"
    ORDERS = "orders"
    STATES = "states"
    END_OF_TURN = "end_of_turn"
    """After the States Phase: the turn has ended; the next one (or the game's end) follows."""
    GAME_OVER = "game_over"


class OrderType(StrEnum):
    REGULAR = "regular"
    IRREGULAR = "irregular"
    LIEUTENANT = "lieutenant"
    TACTICAL = "tactical"
    IMPETUOUS = "impetuous"


class OrderStep(StrEnum):
    """Steps of the Order Expenditure Sequence (seed 000); see ``sequence.py``."""

    FIRST_SKILL = "first_skill"
    ARO_1 = "aro_1"
    SECOND_SKILL = "second_skill"
    ARO_2 = "aro_2"
    RESOLUTION = "resolution"
    CONCLUSION = "conclusion"
    """Resolved, but the Conclusion waits on a Guts movement its owner chooses
    (``combat/guts_window.py``); an Order with no such movement is concluded in its
    Resolution step."""


@dataclass(frozen=True, slots=True)
class TrooperState:
    id: TrooperId
    side: Side
    entry: ListEntry
    position: Point | None = None
    """None while not on the table (not deployed yet, in Airborne Deployment) or in Hidden
    Deployment's secret place (``hidden``)."""
    facing: float = 0.0
    hidden: bool = False
    """In Hidden Deployment: placed, but not on the table as Model or Marker."""
    airborne: bool = False
    """In Airborne Deployment (Combat Jump): kept off the table, with no position, until it
    enters by Combat Jump (``airborne``). Private Information, as its existence is."""
    marker: bool = False
    """Camouflaged: on the table as a Camouflage Marker."""
    wounds: int = 0
    condition: Condition = Condition.NORMAL
    prone: bool = False
    targeted: bool = False
    isolated: bool = False
    """Isolated (DIGEST 8; ``isolated.py``): cut off from its army's Comms by E/M."""
    immobilized_b: bool = False
    """Immobilized-B (DIGEST 8; ``immobilized.py``): E/M on a HI, TAG or REM; Reset only."""
    suppressive_fire: bool = False
    """Suppressive Fire State (DIGEST 8, 9; ``combat/suppressive_fire.py``): open to all."""
    stunned_in: tuple[int, int] | None = None
    """Stunned (DIGEST 8; ``stunned.py``): the (round, turn) of the Player Turn a failed save
    against Stun made it Stunned, None when it is not; cancelled in that turn's States Phase."""
    dogged_in: tuple[int, int] | None = None
    """Dogged (``combat/incapacitation.py``): the (round, turn) of the Player Turn it used
    Dogged at its Unconscious threshold; that turn's States Phase kills it. Open (a token)."""
    weapon_uses: Mapping[str, int] = field(default_factory=dict)
    failed_discover: frozenset[TrooperId] = frozenset()
    """Markers this trooper failed to Discover this Player Turn (no retry, DIGEST 9)."""
    fails_guts: bool = False
    """[N5] Its owner's standing choice to fail this trooper's Guts Rolls (DIGEST 7.8).
    Private to the owner until used: ``views`` never shows it to anyone else."""

    @property
    def profile(self) -> UnitProfile:
        return self.entry.profile

    @property
    def on_table(self) -> bool:
        return self.position is not None and not self.hidden

    @property
    def is_null(self) -> bool:
        return self.condition is not Condition.NORMAL

    @property
    def stunned(self) -> bool:
        return self.stunned_in is not None

    @property
    def can_act(self) -> bool:
        return self.on_table and not self.is_null

    def body(self, at: Point | None = None) -> Body:
        position = at if at is not None else self.position
        assert position is not None, f"{self.id} has no position"
        # position, facing, silhouette, all_round_vision: positional, as it is built often
        return Body(position, self.facing, self.entry.profile.silhouette, self.marker)


@dataclass(frozen=True, slots=True)
class Deployable:
    """A Deployable Weapon on the table (``combat/mines.py``): a game element of a side that
    is not a trooper. It never gives or takes Orders and counts as a trooper for nothing.
    A Mine stands as a Camouflage Marker until Discovered (``discovered``): until then what
    it is, and its ``weapon`` and ``owner``, are Private Information of its side (``views``
    shows it to the others exactly as a trooper's Camouflage Marker)."""

    id: TrooperId
    """Drawn as a trooper's is (``mines.deployable_id``), so it tells nothing apart."""
    side: Side
    weapon: WeaponId
    owner: TrooperId
    """The trooper that placed it."""
    position: Point
    facing: float = 0.0
    discovered: bool = False


MARKER_SILHOUETTE = 2
"""The Silhouette a Mine's Camouflage Marker stands as (docs/rules-decisions/specialists.md,
"Mines and Minelayer"): the most common one of a trooper's marker."""


@dataclass(frozen=True, slots=True)
class MineTrigger:
    """A Mine that went off in the current Order (``combat/mines.py``): against ``target``
    standing at ``at`` (the first point of its path inside the Trigger Area)."""

    mine: TrooperId
    target: TrooperId
    at: Point
    facing: float


@dataclass(frozen=True, slots=True)
class Initiative:
    rolls: Mapping[Side, tuple[int, ...]] = field(default_factory=dict)
    winner: Side | None = None
    first_player: Side | None = None
    """Who plays the first Player Turn of every Game Round."""
    deploys_first: Side | None = None
    zones: Mapping[Side, str] = field(default_factory=dict)
    """Deployment zone names ("south"/"north") chosen per side."""
    winner_kept: str | None = None
    """"initiative" or "deployment": what the roll-off winner decided."""


@dataclass(frozen=True, slots=True)
class Deployment:
    step: int = 1
    """1: first deployer, all but one trooper; 2: second deployer likewise;
    3: first deployer's reserve; 4: second deployer's reserve (DIGEST 11.1)."""


@dataclass(frozen=True, slots=True)
class OrderCount:
    """Orders available to the active player this turn (Tactical Phase, seed 002)."""

    pools: Mapping[int, int] = field(default_factory=dict)
    """Regular Orders per Combat Group."""
    irregular: frozenset[TrooperId] = frozenset()
    tactical: frozenset[TrooperId] = frozenset()
    lieutenant: TrooperId | None = None
    impetuous: frozenset[TrooperId] = frozenset()
    hidden: frozenset[TrooperId] = frozenset()
    """Troopers in Hidden Deployment or Airborne Deployment holding their own Order (Regular
    or Irregular by their Training), usable only to reveal them or to enter by Combat Jump:
    Private Information (seeds 002/004, DIGEST 12), in no pool and in no count the opponent
    sees (``views``)."""


@dataclass(frozen=True, slots=True)
class Eligibility:
    """Why a reactive trooper may declare an ARO against the current Order."""

    trooper: TrooperId
    line_of_fire: bool
    zone_of_control: bool
    template: bool = False
    sixth_sense: bool = False
    """[N5] Sixth Sense: the trooper is the target of an Attack declared in this Order, so it
    may react to that attacker without LoF, seeing 360 degrees for it (DIGEST 13)."""
    comms_target: bool = False
    """The target of a Comms Attack declared in this Order: it may react without LoF or ZoC
    (seed 000 ARO; DIGEST 6.1 (4))."""
    hacking_area: bool = False
    """A Hacker whose Hacking Area the activated trooper's path enters: it may react with a
    Comms Attack without LoF (DIGEST 13, hacking.py)."""

    @property
    def zoc_only(self) -> bool:
        """No LoF, template, Sixth Sense or Comms Attack on it: only Dodge or Reset, and a
        Comms Attack if it reacts from its Hacking Area (``hacking_area``)."""
        return (not self.line_of_fire and not self.template and not self.sixth_sense
                and not self.comms_target)


@dataclass(frozen=True, slots=True)
class Declaration:
    trooper: TrooperId
    skill: Skill


@dataclass(frozen=True, slots=True)
class GutsDue:
    """A trooper that failed its Guts Roll and has yet to react (DIGEST 7.8), with the
    troopers whose attacks caused the roll; ``hackers``: those whose attack was a Comms
    Attack (their Hacking Area, not their LoF, is what the move leaves)."""

    trooper: TrooperId
    attackers: tuple[TrooperId, ...]
    hackers: tuple[TrooperId, ...] = ()


@dataclass(frozen=True, slots=True)
class Conclusion:
    """What is left of an Order's Conclusion once its Guts Rolls are made, when a failure
    gives its owner a movement to choose (``combat/guts_window.py``): the Guts reactions in
    the order the troopers were first hit, then the Alert! turns."""

    guts: tuple[GutsDue, ...]
    attacked: tuple[tuple[TrooperId, TrooperId], ...] = ()
    """(target, attacker) of every Attack an activated trooper made in the Order, in order:
    whom Alert! turns to face whom (``resolution.alert_turns``)."""


@dataclass(frozen=True, slots=True)
class ActiveOrder:
    """An Order being carried out through the Order Expenditure Sequence."""

    number: int
    trooper: TrooperId
    order_type: OrderType
    combat_group: int
    step: OrderStep
    start: Point
    path: tuple[Point, ...]
    """Every point the active trooper passes through in this Order, start first."""
    skills: tuple[Skill, ...] = ()
    eligible: Mapping[TrooperId, Eligibility] = field(default_factory=dict)
    """Troopers that could declare an ARO at an ARO step of this Order (both steps)."""
    eligible_at_step: Mapping[TrooperId, int] = field(default_factory=dict)
    aros: Mapping[TrooperId, Skill] = field(default_factory=dict)
    aro_step: Mapping[TrooperId, int] = field(default_factory=dict)
    """At which ARO step (1 or 2) each ARO was declared."""
    passed: frozenset[TrooperId] = frozenset()
    window_open: bool = False
    peripherals: tuple[TrooperId, ...] = ()
    """Peripherals activated by the same Order as their Controller (``trooper``)."""
    peripheral_skills: Mapping[TrooperId, tuple[Skill, ...]] = field(default_factory=dict)
    peripheral_paths: Mapping[TrooperId, tuple[Point, ...]] = field(default_factory=dict)
    """Each Peripheral's own path in this Order, its position at activation first."""
    conclusion: Conclusion | None = None
    """At ``OrderStep.CONCLUSION``: the Guts reactions and Alert! turns still to come."""
    guts_window: bool = False
    """The owner of ``conclusion.guts[0]`` is choosing its Guts movement (a timed window)."""
    start_facings: Mapping[TrooperId, float] = field(default_factory=dict)
    """Each activated trooper's facing when the Order began: the way it looks from its
    starting point, before it moves (``declarations.acting_body``)."""
    mines: tuple[MineTrigger, ...] = ()
    """The enemy Mines this Order triggered, in order (``combat/mines.py``): open."""

    @property
    def activated(self) -> tuple[TrooperId, ...]:
        """Every trooper this Order activated: the trooper, then its Peripherals."""
        return (self.trooper, *self.peripherals)

    def for_trooper(self, trooper_id: TrooperId) -> ActiveOrder:
        """The Order as seen by one activated trooper: its own start, path and skills.

        Rules written for "the active trooper" (routes, firing points, LoF along the path)
        apply unchanged to each trooper of a joint activation through this projection.
        """
        if trooper_id == self.trooper:
            return self
        path = self.peripheral_paths[trooper_id]
        return replace(
            self,
            trooper=trooper_id,
            start=path[0],
            path=path,
            skills=self.peripheral_skills.get(trooper_id, ()),
            peripherals=(),
            peripheral_skills={},
            peripheral_paths={},
        )

    @property
    def aro_step_number(self) -> int:
        return 2 if self.step is OrderStep.ARO_2 else 1

    def unanswered(self) -> tuple[TrooperId, ...]:
        """Troopers eligible at the current ARO step that neither declared nor passed."""
        step = self.aro_step_number
        return tuple(
            t
            for t, at in self.eligible_at_step.items()
            if at == step and t not in self.aros and t not in self.passed
        )


@dataclass(frozen=True, slots=True)
class CommandTokens:
    """Command Tokens (DIGEST 3.3; N5, none in CodeOne): open information
    (``command_tokens.py``)."""

    held: Mapping[Side, int] = field(default_factory=dict)
    """Tokens each player has left for the game."""
    spent_this_turn: Mapping[Side, int] = field(default_factory=dict)
    limited: frozenset[Side] = frozenset()
    """Players held to one Command Token this Player Turn (the Strategic limit)."""
    strategic_used: frozenset[str] = frozenset()
    """Strategic uses already made this game (each is made at most once)."""
    turn_start_orders: int = 0
    """``GameState.orders_spent`` when this Player Turn started: the Executive window stays
    open while no Order (or Impetuous activation) has been spent since."""
    coordinated_order: int = 0
    """The number of the last Coordinated Order (DIGEST 3.4; 0: none yet)..."""
    spearhead: TrooperId | None = None
    """...and its Spearhead."""


@dataclass(frozen=True, slots=True)
class Fireteam:
    """A Fireteam on the table (``orders/fireteams.py``): open information. ``kind``:
    "core", "haris" or "duo"; ``leader``: the member that declared its last Order (the
    reference of Coherency), one of ``members``."""

    side: Side
    kind: str
    leader: TrooperId
    members: tuple[TrooperId, ...]


@dataclass(frozen=True, slots=True)
class Clocks:
    """Chess clocks (``orders/clocks.py``): open information. ``remaining`` is each side's
    time left when ``running`` started at room time ``since_ms`` (Unix ms, stamped by the
    room); the running side's time now is ``remaining - (now - since_ms)``."""

    remaining: Mapping[Side, int] = field(default_factory=dict)
    running: Side | None = None
    since_ms: int = 0
    out_of_time: frozenset[Side] = frozenset()


# --- Classified Objectives (missions/classified.py) ---------------------------------------


@dataclass(frozen=True, slots=True)
class ClassifiedCard:
    """A Classified Objective a side drew: the deck card's id, and whether it is achieved
    (then open to everyone). Unachieved, it is its side's secret until the game ends."""

    id: str
    achieved: bool = False
    op: int = 0
    """The Objective Points it scored when achieved (less than the mission's due, or none,
    when the side had reached the mission's maximum)."""


# --- end of Classified Objectives --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameResult:
    winner: Side | None
    victory_points: Mapping[Side, int]
    reason: str
    op: Mapping[Side, int] = field(default_factory=dict)
    """Each side's Objective Points in a game played on a mission (empty without one): the
    winner is decided by them, then by Victory Points (``missions/scoring.py``)."""

    @property
    def objective_points(self) -> Mapping[Side, int]:
        return self.op


@dataclass(frozen=True, slots=True)
class ObjectiveActivation:
    """A mission marker ``side`` activated with ``trooper`` in Game Round ``round``
    (``missions/consoles.py``): open information."""

    side: Side
    marker: str
    round: int
    trooper: TrooperId


@dataclass(frozen=True, slots=True)
class GameState:
    ruleset: Ruleset
    dice: Dice
    table: Table
    deployment_zones: Mapping[str, Zone]
    phase: Phase = Phase.ARMY_SELECTION
    armies: Mapping[Side, ArmyList] = field(default_factory=dict)
    troopers: Mapping[TrooperId, TrooperState] = field(default_factory=dict)
    initiative: Initiative = Initiative()
    deployment: Deployment = Deployment()
    round: int = 0
    turn: int = 0
    """Player Turn within the Round: 1 or 2 (0 before the game starts)."""
    active: Side | None = None
    orders: OrderCount = OrderCount()
    order: ActiveOrder | None = None
    orders_spent: int = 0
    """How many Orders (and Impetuous activations) have been spent in the game."""
    loss_of_lieutenant: frozenset[Side] = frozenset()
    retreat: frozenset[Side] = frozenset()
    result: GameResult | None = None
    command_tokens: CommandTokens = CommandTokens()
    fireteams: tuple[Fireteam, ...] = ()
    """The Fireteams on the table, of both sides (``orders/fireteams.py``)."""
    deployables: Mapping[TrooperId, Deployable] = field(default_factory=dict)
    """Deployable Weapons on the table, of both sides (``combat/mines.py``): not troopers."""
    lieutenant_choice: Mapping[Side, TrooperId] = field(default_factory=dict)
    """The new Lieutenant each player in Loss of Lieutenant has named (``lieutenant``);
    private to that player."""
    dice_source: DiceSource = field(default_factory=DiceSource)
    """The dice secret and contributions (``dice``): never in any view."""
    clocks: Clocks | None = None
    """Chess clocks, in a room that plays with them (``clocks``); None otherwise."""
    id_key: str = ""
    """The key trooper ids are drawn from (``army_selection``): random per room and
    independent of the dice secret. Never in any view."""
    registered_armies: Mapping[Side, str] = field(default_factory=dict)
    """The army list id each side must choose (``army_selection``), e.g. a tournament
    player's registered army; a side not in it may choose any list of the game's format."""
    registered_lists: Mapping[Side, ArmyList] = field(default_factory=dict)
    """The registered lists a player brought (not shipped ones), by side: the list that
    side's registered id names. Private to that side until it is chosen."""
    armies_accepted: frozenset[Side] = frozenset()
    """The sides that accepted both lists as the referee plays them (``AcceptArmies``)."""
    # Missions (docs/missions.md): open information.
    mission: Mission | None = None
    """The mission the game is played on; None: an annihilation won on Victory Points."""
    objective_points: Mapping[Side, int] = field(default_factory=dict)
    """Objective Points scored so far, capped at the mission's ``max_op``: changed only by
    ``missions.points.award``."""
    objective_activations: tuple[ObjectiveActivation, ...] = ()
    """Every mission marker activated so far, in order (``missions/consoles.py``)."""
    # --- Classified Objectives (missions/classified.py) ---
    classified: Mapping[Side, tuple[ClassifiedCard, ...]] = field(default_factory=dict)
    """Each side's Classified Objectives, in the order drawn: private to that side (and its
    casters) until achieved or until the game ends (``views``)."""
    # --- end of Classified Objectives ---

    def trooper(self, trooper_id: TrooperId) -> TrooperState:
        return self.troopers[trooper_id]

    def troopers_of(self, side: Side) -> tuple[TrooperState, ...]:
        return tuple([t for t in self.troopers.values() if t.side is side])  # (no generator)

    @property
    def reactive(self) -> Side | None:
        return self.active.other if self.active is not None else None

    def with_trooper(self, trooper: TrooperState) -> GameState:
        return replace(self, troopers={**self.troopers, trooper.id: trooper})
