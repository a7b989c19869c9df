"""Adapter from the rules core's facade (``server.rules``) to the room's ``Engine`` Protocol."""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from protocol import codec
from server.rooms.engine_port import (
    AroWindow,
    Command,
    CommandFormatError,
    Event,
    Plain,
    Refused,
    State,
    Verdict,
)
from server.rules import commands, engine, events, options, views
from server.rules.armies.army_list import ListFormat
from server.rules.armies.army_selection import list_format_for
from server.rules.combat import dice
from server.rules.decision import Rejection
from server.rules.ids import CASTER, SPECTATOR, Side, TrooperId, Viewer
from server.rules.orders import clocks
from server.rules.plain import FormatError, to_plain
from server.rules.ruleset import Ruleset
from server.rules.table import measure, table_catalogue
from server.store.interface import RegisteredArmy

_VIEWERS: dict[str, Viewer] = {"A": Side.A, "B": Side.B, "spectator": SPECTATOR,
                               "caster": CASTER}
_ACTORS = {"A": Side.A, "B": Side.B}


ArmyCodeReader = Callable[[str, ListFormat], Mapping[str, Any]]
"""Expands an army code into an army document with the operator's army data
(``server.rules.armies.army_import``); raises ``ArmyCodeRefused`` naming the problem."""


class ArmyCodeRefused(ValueError):
    """An army code that cannot become a list: ``problem`` says why, in a player's words."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


class RulesCoreEngine:
    def __init__(self, army_codes: ArmyCodeReader | None = None) -> None:
        """``army_codes``: how this server reads army codes, when its operator supplied army
        data (``REFEREE_ARMY_DATA``); without it a code is refused ``no_army_data``."""
        # What games need, made once per process now rather than at its first use: a game's
        # first roll spent 6 ms making its events' converters in a player's command.
        engine.prepare()
        self._army_codes = army_codes

    def new_game(self, ruleset: str, fixed_seed: int | None,
                 table: str | Mapping[str, Any] = "",
                 armies: Mapping[str, RegisteredArmy] | None = None,
                 mission: str = "") -> State:
        # A shipped list's id or a registered army document: GameSetup takes both.
        registered = {_ACTORS[seat]: army for seat, army in (armies or {}).items()}
        if fixed_seed is not None:
            return engine.new_game(engine.GameSetup(ruleset=ruleset, seed=fixed_seed, table=table,
                                                    registered_armies=registered, mission=mission))
        return engine.new_game(engine.GameSetup(
            ruleset=ruleset, dice_secret=secrets.token_hex(dice.SECRET_BYTES),
            id_key=secrets.token_hex(dice.SECRET_BYTES), table=table,
            registered_armies=registered, mission=mission))

    def dice_commitment(self, state: State) -> str:
        return dice.commitment(state.dice_source.secret)

    def table_summary(self, ruleset: str, table: str | Mapping[str, Any]) -> Plain:
        return table_catalogue.summary(table, Ruleset(ruleset))

    def parse_command(self, body: Plain) -> Command:
        if isinstance(body, dict) and "from_code" in body:
            # Only this edge says a list came from a code it read with the army data.
            raise CommandFormatError("choose_army: from_code is set by the server, not sent")
        try:
            return commands.parse_command(body)
        except FormatError as error:
            raise CommandFormatError(str(error)) from None

    def decide(self, state: State, actor: str | None, command: Command,
               at_ms: int | None = None) -> Verdict:
        who = engine.SYSTEM if actor is None else _ACTORS[actor]
        if isinstance(command, commands.ChooseArmy) and command.code is not None:
            try:
                command = self._expand_code(state, command)
            except ArmyCodeRefused as refused:
                return Verdict(None, "bad_army_list", refused.problem)
        decision = engine.decide(state, who, command, at_ms)
        if isinstance(decision, engine.Accepted):
            return Verdict(decision.events, state=decision.state)
        return Verdict(None, str(getattr(decision.code, "value", decision.code)), decision.message)

    def _expand_code(self, state: Any, command: commands.ChooseArmy) -> commands.ChooseArmy:
        """The code as the army document it stands for, which the rules then validate like a
        brought list (points, Lieutenant, limits); unchanged without army data, so that the
        rules refuse it ``no_army_data``. Expanded at the edge because the operator's data is
        the process's, not the game's: the ``army_chosen`` event records the list itself, so
        a replay never needs the data."""
        if self._army_codes is None or not isinstance(command.code, str):
            return command
        document = self._army_codes(command.code, list_format_for(state.ruleset))
        return dataclasses.replace(command, code=None, list=document, from_code=True)

    def apply_all(self, state: State, events_: Sequence[Event]) -> State:
        return engine.apply_all(state, tuple(events_))

    def pending_aro_window(self, state: State) -> AroWindow | None:
        window = engine.pending_aro_window(state)
        if window is None:
            return None
        return AroWindow(window.order, window.step, Side(window.reactive).value, window.guts)

    def close_window_command(self, window: AroWindow) -> Command:
        if window.guts is not None:  # the deadline takes the default Guts movement
            return commands.ChooseGutsMove(order=window.order, trooper=TrooperId(window.guts))
        return commands.CloseAroWindow(order=window.order, step=window.step)

    def may_react_unseen(self, state: State, side: str) -> bool:
        return engine.may_react_unseen(state, _ACTORS[side])

    def start_clocks(self, state: State, clock_ms: int, at_ms: int) -> State:
        return engine.start_clocks(state, clock_ms, at_ms)

    def clock_deadline(self, state: State) -> tuple[str, int] | None:
        found = clocks.deadline(state)
        return None if found is None else (found[0].value, found[1])

    def clock_expired_command(self, side: str, at_ms: int) -> Command:
        return commands.ClockExpired(side=Side(side), at_ms=at_ms)

    def hold_clocks_command(self, from_ms: int, to_ms: int) -> Command:
        return commands.HoldClocks(from_ms=from_ms, to_ms=to_ms)

    def clocks_fields(self, state: State, at_ms: int) -> Plain | None:
        return engine.clocks_fields(state, at_ms)

    def view_event(self, event: Event, viewer: str, state: State) -> Plain | None:
        return views.view_event(event, _VIEWERS[viewer], state)

    def view_event_from_plain(self, event: Event, plain: Plain, viewer: str,
                              state: State) -> Plain | None:
        return views.view_event_from_plain(event, plain, _VIEWERS[viewer], state)

    def same_for_every_viewer(self, event: Event) -> bool:
        return views.shares_one_view(event)

    def view_state(self, state: State, viewer: str) -> Plain:
        return views.view_state(state, _VIEWERS[viewer])

    def seat_options(self, state: State, seat: str) -> Plain:
        found = options.seat_options(state, _ACTORS[seat])
        if self._army_codes is not None and found["bring_army"]:
            found["bring_army"] = [*found["bring_army"], "code"]
        return found

    def measure(self, state: State, viewer: str, origin: str | tuple[float, float],
                to: tuple[float, float], silhouette: int | None) -> Plain:
        start = TrooperId(origin) if isinstance(origin, str) else origin
        try:
            measured = measure.measure(state, _VIEWERS[viewer], start, to, silhouette)
        except Rejection as rejection:
            raise Refused(rejection.reason.value, rejection.message) from None
        return to_plain(measured)

    def public_summary(self, state: State) -> Plain:
        return views.public_summary(state)

    def event_to_plain(self, event: Event) -> Plain:
        return events.event_to_plain(event)

    def event_from_plain(self, plain: Plain) -> Event:
        return events.event_from_plain(plain)

    def state_to_plain(self, state: State, armies: bool = True) -> Plain:
        # The army lists packed by the store's codec: a room loaded again unpacks one bytes
        # object per list, read once per distinct list (``server/rules/plain/packed.py``).
        return engine.state_to_plain(state, codec.pack_plain, armies=armies)

    def armies_of(self, state: State) -> object | None:
        # (a new mapping whenever a list is chosen or changed: ``replace`` keeps it else)
        armies: object = state.armies
        return armies

    def armies_to_plain(self, state: State) -> Plain:
        return engine.armies_to_plain(state, codec.pack_plain)

    def state_from_plain(self, plain: Plain, armies: Plain | None = None) -> State:
        if armies is None and isinstance(plain, dict) and "armies" not in plain:
            # Read as it is, the state would have no army at all.
            raise FormatError("armies", "the state was stored without its army lists, and "
                                        "they were not given")
        return engine.state_from_plain(plain, codec.unpack_plain, armies)
