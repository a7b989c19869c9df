"""A tournament's state, folded from its action log (``fold``): pure and deterministic, so
every node derives the same state from the same log.

The log's entries are plain JSON objects (``type`` plus fields, docs/tournaments.md "Data
model"); each was checked against the state before it was appended
(``server.tournaments.decide``), so the fold trusts them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from server.tournaments.scoring import CLASSIC, ScoringTable, scoring_table_from_plain

Entry = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Settings:
    rounds: int
    ruleset: str
    point_limit: int
    aro_window_s: float
    spectator_delay_s: float
    clock_s: int | None
    tables: tuple[str, ...]
    visibility: str
    max_players: int = 256
    """Players that hold a place (``Tournament.places_taken``); tournaments made before
    the setting take the most any may (256)."""
    aro_min_open_s: float = 3.0
    """Its rooms' uniform ARO windows (``RoomSettings.aro_min_open_s``); tournaments made
    before the setting: the tournament default (``TOURNAMENT_ARO_MIN_OPEN_S``, 3 s), at most
    their ARO window."""
    scoring: ScoringTable = CLASSIC
    """The Tournament Points of a game and a bye (``server.tournaments.scoring``);
    tournaments made before the setting score as they did: ``classic``."""
    missions: tuple[str, ...] = ()
    """The mission of each round chosen at creation (``missions[r - 1]``; "" or beyond the
    list: no mission, the annihilation game); ``set_mission`` changes a round's before it
    starts (``Tournament.mission_for``)."""

    def layout_for(self, round_number: int, table_number: int) -> str | None:
        """Table ``n`` of round ``r`` rotates through the layouts (None: the default)."""
        if not self.tables:
            return None
        return self.tables[(table_number - 1 + round_number - 1) % len(self.tables)]


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str
    army: str
    """What the player chooses at its tables: a shipped list's id, or ``document``'s id."""
    token_hash: str
    sealed_token: str
    """The player token sealed with its registration's action id (``tokens.seal``): the
    answer to a retried registration."""
    order: int
    """Registration order, from 1: the last tiebreak."""
    seed: int | None = None
    dropped: bool = False
    registrant: str | None = None
    """Who registered the player themselves, as a hash of the tournament id and their
    client address (``server.tournaments.registration_limits``); None: the organizer added
    the player (or a log from before registrants were recorded). Never shown."""
    source: str = "army"
    """How the army was registered: "army" (a shipped list), "list" or "code"."""
    document: Mapping[str, Any] | None = None
    """The registered army document, checked at registration (docs/armies.md); None for a
    shipped list. Its round's rooms hold the player to it. Shown to the organizer and its
    player only (``server.tournaments.views``)."""

    @property
    def table_army(self) -> str | Mapping[str, Any]:
        """What its tables' rooms hold the player to (``RoomSettings.armies``)."""
        return self.army if self.document is None else self.document


@dataclass(frozen=True, slots=True)
class Outcome:
    """A game's result in tournament terms: the winner (a player id, None: a tie), each
    player's VP and OP."""

    winner: str | None
    vp: Mapping[str, int]
    op: Mapping[str, int]
    reason: str


@dataclass(frozen=True, slots=True)
class Correction:
    outcome: Outcome
    kind: str  # "correct" or "close"
    at_version: int


@dataclass(frozen=True, slots=True)
class TableResult:
    """The game's own result (None when the organizer closed the table first) and every
    organizer correction in order; the last one is in force."""

    original: Outcome | None
    corrections: tuple[Correction, ...] = ()

    @property
    def current(self) -> Outcome:
        if self.corrections:
            return self.corrections[-1].outcome
        assert self.original is not None
        return self.original

    @property
    def source(self) -> str:
        return "organizer" if self.corrections else "game"


@dataclass(frozen=True, slots=True)
class Table:
    number: int
    a: str
    b: str
    repeat: bool
    room: str
    layout: str | None
    seat_a: str
    """Seat tokens and the room's organizer token, handed to their holders only."""
    seat_b: str
    room_organizer: str
    result: TableResult | None = None

    def seat_of(self, player: str) -> str | None:
        return "A" if player == self.a else "B" if player == self.b else None

    def opponent(self, player: str) -> str:
        return self.b if player == self.a else self.a


@dataclass(frozen=True, slots=True)
class Swap:
    players: tuple[str, str]
    reason: str


@dataclass(frozen=True, slots=True)
class Proposal:
    """The next round's pairings, waiting for ``start_round``."""

    round: int
    tables: tuple[tuple[str, str], ...]
    bye: str | None
    swaps: tuple[Swap, ...] = ()


@dataclass(frozen=True, slots=True)
class Round:
    number: int
    tables: tuple[Table, ...]
    bye: str | None
    swaps: tuple[Swap, ...]
    mission: str = ""
    """The mission its rooms were made with ("": none; rounds started before missions)."""

    @property
    def complete(self) -> bool:
        return all(table.result is not None for table in self.tables)

    def table(self, number: int) -> Table | None:
        return next((t for t in self.tables if t.number == number), None)


@dataclass(frozen=True, slots=True)
class Tournament:
    id: str
    name: str
    settings: Settings
    organizer_hash: str
    sealed_organizer: str
    created_ms: int
    version: int = 0
    players: Mapping[str, Player] = field(default_factory=dict)
    rounds: tuple[Round, ...] = ()
    proposal: Proposal | None = None
    registered: int = 0
    """Registrations ever made (player ids and registration order come from it)."""
    registration_closed: bool = False
    """The organizer closed registration: players no longer register themselves (the
    organizer still adds them)."""
    missions_set: Mapping[int, str] = field(default_factory=dict)
    """Rounds whose mission the organizer chose after creation (``set_mission``)."""

    def mission_for(self, round_number: int) -> str:
        """The mission round ``round_number`` is (or was) played on; "" for none."""
        if round_number <= len(self.rounds):
            return self.rounds[round_number - 1].mission
        if round_number in self.missions_set:
            return self.missions_set[round_number]
        planned = self.settings.missions
        return planned[round_number - 1] if round_number <= len(planned) else ""

    @property
    def round(self) -> int:
        return len(self.rounds)

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def status(self) -> str:
        current = self.current
        if current is not None and not current.complete:
            return "playing"
        if self.proposal is not None:
            return "paired"
        if current is None:
            return "registration"
        return "finished" if self.round >= self.settings.rounds else "between_rounds"

    def active_players(self) -> list[Player]:
        return [p for p in self.players.values() if not p.dropped]

    def holds_place(self, player: Player) -> bool:
        """Whether ``player`` takes one of the tournament's ``max_players`` places: every
        player not dropped, and a dropped one who has played (it is in the standings with
        its games and may be reinstated). A player dropped before playing any game frees
        its place: a bot the organizer dropped before round 1 no longer fills the
        tournament."""
        return not player.dropped or any(player.id in (t.a, t.b)
                                         for r in self.rounds for t in r.tables)

    def places_taken(self) -> int:
        return sum(1 for p in self.players.values() if self.holds_place(p))

    def played_pairs(self) -> set[frozenset[str]]:
        return {frozenset((t.a, t.b)) for r in self.rounds for t in r.tables}

    def had_bye(self) -> set[str]:
        return {r.bye for r in self.rounds if r.bye is not None}


def outcome_from(entry: Entry) -> Outcome:
    vp = {str(k): int(v) for k, v in entry["vp"].items()}
    op = {str(k): int(v) for k, v in (entry.get("op") or {}).items()}
    for player in vp:
        op.setdefault(player, 0)
    return Outcome(entry.get("winner"), vp, op, str(entry.get("reason", "")))


def created(entry: Entry) -> Tournament:
    s = entry["settings"]
    settings = Settings(int(s["rounds"]), str(s["ruleset"]), int(s["point_limit"]),
                        float(s["aro_window_s"]), float(s["spectator_delay_s"]),
                        None if s.get("clock_s") is None else int(s["clock_s"]),
                        tuple(s.get("tables", ())), str(s["visibility"]),
                        int(s.get("max_players", 256)),
                        float(s.get("aro_min_open_s", min(3.0, float(s["aro_window_s"])))),
                        scoring_table_from_plain(s.get("scoring")),
                        tuple(str(m) for m in s.get("missions", ())))
    return Tournament(str(entry["tournament"]), str(entry["name"]), settings,
                      str(entry["organizer_hash"]), str(entry["sealed_organizer"]),
                      int(entry["created_ms"]), version=1)


def apply(state: Tournament, entry: Entry) -> Tournament:
    """The state after one more entry of the log."""
    kind = entry["type"]
    version = state.version + 1
    players = dict(state.players)
    if kind == "registered":
        pid = str(entry["player"])
        players[pid] = Player(pid, str(entry["name"]), str(entry["army"]),
                              str(entry["token_hash"]), str(entry["sealed_token"]),
                              state.registered + 1, registrant=entry.get("registrant"),
                              source=str(entry.get("source", "army")), document=entry.get("list"))
        return replace(state, version=version, players=players, proposal=None,
                       registered=state.registered + 1)
    if kind in ("close_registration", "open_registration"):
        return replace(state, version=version,
                       registration_closed=kind == "close_registration")
    if kind in ("drop", "reinstate", "seed"):
        pid = str(entry["player"])
        if kind == "seed":
            players[pid] = replace(players[pid], seed=entry["seed"])
        else:
            players[pid] = replace(players[pid], dropped=kind == "drop")
        return replace(state, version=version, players=players, proposal=None)
    if kind == "paired":
        proposal = Proposal(int(entry["round"]), tuple((a, b) for a, b in entry["tables"]),
                            entry.get("bye"))
        return replace(state, version=version, proposal=proposal)
    if kind == "swap":
        assert state.proposal is not None
        return replace(state, version=version, proposal=_swapped(state.proposal, entry))
    if kind == "round_started":
        played = state.played_pairs()
        tables = tuple(Table(int(t["table"]), t["a"], t["b"],
                             frozenset((t["a"], t["b"])) in played, t["room"], t.get("layout"),
                             t["seat_a"], t["seat_b"], t["room_organizer"])
                       for t in entry["tables"])
        swaps = tuple(Swap((s["players"][0], s["players"][1]), s["reason"])
                      for s in entry.get("swaps", ()))
        started = Round(int(entry["round"]), tables, entry.get("bye"), swaps,
                        str(entry.get("mission", "")))
        return replace(state, version=version, rounds=(*state.rounds, started), proposal=None)
    if kind == "mission_set":
        return replace(state, version=version, missions_set={
            **state.missions_set, int(entry["round"]): str(entry["mission"])})
    if kind in ("result", "correct", "close"):
        return replace(state, version=version, rounds=_with_result(state, entry, version))
    raise ValueError(f"unknown tournament entry {kind!r}")


def _swapped(proposal: Proposal, entry: Entry) -> Proposal:
    first, second = entry["players"]
    swap = {first: second, second: first}
    tables = tuple((swap.get(a, a), swap.get(b, b)) for a, b in proposal.tables)
    bye = None if proposal.bye is None else swap.get(proposal.bye, proposal.bye)
    return replace(proposal, tables=tables, bye=bye,
                   swaps=(*proposal.swaps, Swap((first, second), str(entry.get("reason", "")))))


def _with_result(state: Tournament, entry: Entry, version: int) -> tuple[Round, ...]:
    number, table_number = int(entry["round"]), int(entry["table"])
    outcome = outcome_from(entry)
    rounds = list(state.rounds)
    played = rounds[number - 1]
    tables = []
    for table in played.tables:
        if table.number == table_number:
            earlier = table.result
            if entry["type"] == "result":
                if earlier is None:  # read only for tables without a result
                    table = replace(table, result=TableResult(outcome))
            else:
                base = earlier or TableResult(None)
                correction = Correction(outcome, str(entry["type"]), version)
                table = replace(table, result=replace(
                    base, corrections=(*base.corrections, correction)))
        tables.append(table)
    rounds[number - 1] = replace(played, tables=tuple(tables))
    return tuple(rounds)


def fold(entries: Iterable[Entry]) -> Tournament:
    """The state from the whole log (its first entry is ``created``)."""
    iterator = iter(entries)
    state = created(next(iterator))
    for entry in iterator:
        state = apply(state, entry)
    return state
