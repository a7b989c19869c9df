"""The rules engine as the room sees it: a small Protocol over the rules core's facade.

The room depends on this Protocol only, so unit tests of inbox, timers and resume inject a
tiny fake engine; ``server.rooms.rules_engine.RulesCoreEngine`` adapts the real rules core.
States, commands and events are opaque to the room.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from server.store.interface import RegisteredArmy

State = Any
Command = Any
Event = Any
Plain = Any


@dataclass(frozen=True, slots=True)
class Verdict:
    """The engine's decision on a command: events when accepted, else a reason."""

    events: tuple[Event, ...] | None
    code: str = ""
    message: str = ""
    state: State = field(default=None, repr=False, compare=False)
    """When accepted, the state the events lead to (``apply_all(state, events)``) if the
    engine reached it while deciding, else None."""

    @property
    def accepted(self) -> bool:
        return self.events is not None


@dataclass(frozen=True, slots=True)
class AroWindow:
    """A timed window: an open ARO window (the ``reactive`` side, "A"/"B", must declare for
    (order, step)), or a Guts window (``guts``: the trooper whose owner, ``reactive``, chooses
    its Guts movement; ``step`` 0), which the room times the same way."""

    order: int
    step: int
    reactive: str
    guts: str | None = None

    @property
    def key(self) -> str:
        # Each trooper's Guts window is a window of its own, with its own deadline.
        return f"{self.order}:{self.step}" if self.guts is None else f"{self.order}:guts:{self.guts}"


class CommandFormatError(ValueError):
    """The command body does not have the shape of any command."""


class Refused(Exception):
    """A query the rules core refuses, for the stable reason ``code``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Engine(Protocol):
    def new_game(self, ruleset: str, fixed_seed: int | None,
                 table: str | Mapping[str, Any] = "",
                 armies: Mapping[str, RegisteredArmy] | None = None,
                 mission: str = "") -> State:
        """A new game on ``table`` (a shipped layout's id or a checked table document;
        "": the ruleset's sparse sample) whose dice secret (and id key) come from the
        operating system's CSPRNG, or, with ``fixed_seed``, from that number (test rooms only).
        ``armies``: the army a seat ("A", "B") must choose, a shipped list's id or a registered
        army document (chosen by its ``"id"``); other seats choose freely. ``mission``: a
        shipped mission's id (docs/missions.md), "" for a game won on Victory Points."""

    def dice_commitment(self, state: State) -> str:
        """The public commitment to the game's dice secret (64 hexadecimal characters)."""

    def table_summary(self, ruleset: str, table: str | Mapping[str, Any]) -> Plain:
        """Which table a room is on, as its welcome says it: ``{"id", "title", "inline"}``."""

    def parse_command(self, body: Plain) -> Command:
        """Raises ``CommandFormatError`` on a malformed body."""

    def decide(self, state: State, actor: str | None, command: Command,
               at_ms: int | None = None) -> Verdict:
        """``actor`` is "A", "B" or None for the system (timer expiries); ``at_ms``: the
        room's clock (Unix ms) as it decides, which runs the chess clocks."""

    def apply_all(self, state: State, events: Sequence[Event]) -> State:
        """``events`` folded into ``state`` (a room loaded from its log, a replay; a commit
        uses the accepted ``Verdict.state`` when the engine gives one)."""

    def pending_aro_window(self, state: State) -> AroWindow | None: ...

    def close_window_command(self, window: AroWindow) -> Command: ...

    def may_react_unseen(self, state: State, side: str) -> bool:
        """Whether, from public facts only, ``side`` ("A"/"B") could hold a trooper whose
        presence or ARO eligibility is private (``server.rooms.window_hold``)."""

    def start_clocks(self, state: State, clock_ms: int, at_ms: int) -> State:
        """``state`` played on chess clocks of ``clock_ms`` per player from room time
        ``at_ms`` (``server/rules/orders/clocks.py``)."""

    def clock_deadline(self, state: State) -> tuple[str, int] | None:
        """The side ("A"/"B") whose chess clock runs and the room time it reaches 0, or None
        (no clocks, or none running)."""

    def clock_expired_command(self, side: str, at_ms: int) -> Command:
        """The system command that runs ``side``'s clock out at its deadline ``at_ms``."""

    def hold_clocks_command(self, from_ms: int, to_ms: int) -> Command:
        """The system command that gives the running chess clock back the span the room's
        store refused its writes (``server/rules/orders/clocks.py``, "Held")."""

    def clocks_fields(self, state: State, at_ms: int) -> Plain | None:
        """The chess clocks as frames carry them at room time ``at_ms`` (None: no clocks)."""

    def view_event(self, event: Event, viewer: str, state: State) -> Plain | None:
        """``viewer`` is "A", "B" or "spectator"; None means the viewer may not know of the
        event at all (it is not in that viewer's numbering). ``state`` is the room's current
        state (any state after the event)."""

    def view_event_from_plain(self, event: Event, plain: Plain, viewer: str,
                              state: State) -> Plain | None:
        """``view_event`` from ``plain``, the event's ``event_to_plain`` (made once for the
        store and every viewer; not changed)."""

    def same_for_every_viewer(self, event: Event) -> bool:
        """Every viewer sees ``event`` the same way: one view and one frame serve them all."""

    def view_state(self, state: State, viewer: str) -> Plain: ...

    def seat_options(self, state: State, seat: str) -> Plain:
        """What ``seat`` ("A"/"B") may legally do now, as a map for the client's pickers."""

    def measure(self, state: State, viewer: str, origin: str | tuple[float, float],
                to: tuple[float, float], silhouette: int | None) -> Plain:
        """What ``viewer`` ("A", "B" or "spectator") measures from a trooper id or a point
        to a point (``server/rules/table/measure.py``), as a map with ``distance``,
        ``silhouette``, ``line_of_fire``, ``in_front_arc`` and ``weapons``; raises
        ``Refused`` (``unknown_trooper`` for a trooper the viewer may not know of)."""

    def public_summary(self, state: State) -> Plain:
        """{"phase": str, "round": int, "turn": int, "active": "A" | "B" | None}."""

    def event_to_plain(self, event: Event) -> Plain: ...

    def event_from_plain(self, plain: Plain) -> Event: ...

    def state_to_plain(self, state: State, armies: bool = True) -> Plain:
        """The state's stored form; without ``armies``, without the part ``armies_of``
        names (the store keeps it apart: ``armies_to_plain``)."""

    def armies_of(self, state: State) -> object | None:
        """The part of the state a store keeps apart from its snapshots because it seldom
        changes (the army lists), as one value that stays the very same object while it
        does not change; None: this engine keeps nothing apart."""

    def armies_to_plain(self, state: State) -> Plain:
        """``armies_of(state)``'s stored form."""

    def state_from_plain(self, plain: Plain, armies: Plain | None = None) -> State:
        """The state back from its stored form; ``armies``: ``armies_to_plain``'s form,
        for a state stored without it."""
