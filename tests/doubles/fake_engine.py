"""A tiny game behind the room's Engine Protocol, for testing the server without the rules.

Seat A is active. ``{"type": "act", "value": n}`` adds n to the open score (an activation);
``{"type": "hide", "secret": s}`` records a private secret that only its owner sees (other
viewers get a placeholder); ``{"type": "shoot"}`` opens an ARO window (order n, step 1) for
the reactive seat B with eligible troopers "B-t1" and "B-t2"; B answers with
``{"type": "declare_aro", "trooper": t}`` or ``{"type": "pass_aro", "trooper": t}``; the
window closes itself when both answered (and, at the deadline, through the room's
``close_aro_window``). ``{"type": "end_turn"}`` hands the turn over; ``{"type": "wait"}`` is
accepted without any event (the Engine Protocol allows it; the rules core never does it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from server.rooms.engine_port import AroWindow, CommandFormatError, Verdict

Plain = Any


@dataclass(frozen=True)
class FakeState:
    active: str = "A"
    turn: int = 1
    score: int = 0
    orders: int = 0
    secrets: tuple[tuple[str, str], ...] = ()
    window: tuple[int, int] | None = None  # (order, step)
    answered: tuple[str, ...] = ()
    closed_by_timeout: tuple[int, ...] = ()
    aros: tuple[str, ...] = ()
    seed: int | None = None


ELIGIBLE = ("B-t1", "B-t2")


@dataclass
class FakeEngine:
    calls: list[str] = field(default_factory=list)
    fail_on: str | None = None  # a command type whose decide raises (tests failure isolation)

    def new_game(self, ruleset: str, fixed_seed: int | None,
                 table: object = "", armies: object = None, mission: str = "") -> FakeState:
        return FakeState(seed=fixed_seed)

    def dice_commitment(self, state: FakeState) -> str:
        return f"{state.seed or 0:064x}"

    def table_summary(self, ruleset: str, table: object) -> Plain:
        return {"id": table if isinstance(table, str) else "inline", "title": "", "inline": False}

    def parse_command(self, body: Plain) -> dict[str, Any]:
        if not isinstance(body, dict) or not isinstance(body.get("type"), str):
            raise CommandFormatError("type: is missing")
        if body["type"] == "act" and not isinstance(body.get("value"), int):
            raise CommandFormatError("value: must be a whole number")
        return dict(body)

    def decide(self, state: FakeState, actor: str | None, command: dict[str, Any],
               at_ms: int | None = None) -> Verdict:
        kind = command["type"]
        self.calls.append(f"{actor}:{kind}")
        if kind == self.fail_on:
            raise RuntimeError("engine bug")
        if kind == "close_aro_window":
            if actor is not None or state.window != (command["order"], command["step"]):
                return Verdict(None, "stale_window", "no such window")
            return Verdict(({"e": "window_closed", "order": state.window[0], "timeout": True},))
        if kind in ("declare_aro", "pass_aro"):
            return self._aro(state, actor, command)
        if actor != state.active:
            return Verdict(None, "not_your_turn", "the other player must act now")
        if state.window is not None:
            return Verdict(None, "wrong_phase", "an ARO window is open")
        if kind == "act":
            return Verdict(({"e": "acted", "side": actor, "value": command["value"]},))
        if kind == "hide":
            return Verdict(({"e": "hidden", "side": actor, "secret": command.get("secret")},))
        if kind == "shoot":
            order = state.orders + 1
            return Verdict(({"e": "order_spent", "order": order},
                            {"e": "window_opened", "order": order, "reactive": "B"}))
        if kind == "wait":
            return Verdict(())
        if kind == "end_turn":
            return Verdict(({"e": "turn_ended", "next": "B" if actor == "A" else "A"},))
        return Verdict(None, "bad_command", f"unknown command {kind}")

    def _aro(self, state: FakeState, actor: str | None, command: dict[str, Any]) -> Verdict:
        if state.window is None or actor != "B":
            return Verdict(None, "wrong_phase", "no ARO window for you")
        trooper = command.get("trooper")
        if trooper not in ELIGIBLE:
            return Verdict(None, "not_eligible_for_aro", f"{trooper} may not react")
        if trooper in state.answered:
            return Verdict(None, "aro_already_declared", f"{trooper} already answered")
        events: list[dict[str, Any]] = [
            {"e": "aro", "trooper": trooper, "declared": command["type"] == "declare_aro"}]
        if len(state.answered) + 1 == len(ELIGIBLE):
            events.append({"e": "window_closed", "order": state.window[0], "timeout": False})
        return Verdict(tuple(events))

    def clock_deadline(self, state: FakeState) -> None:
        return None  # (no chess clocks in the fake game)

    def clocks_fields(self, state: FakeState, at_ms: int) -> None:
        return None

    def apply_all(self, state: FakeState, events: Sequence[dict[str, Any]]) -> FakeState:
        for event in events:
            state = self._apply(state, event)
        return state

    def _apply(self, state: FakeState, event: dict[str, Any]) -> FakeState:
        kind = event["e"]
        if kind == "acted":
            return replace(state, score=state.score + event["value"])
        if kind == "hidden":
            return replace(state, secrets=(*state.secrets, (event["side"], event["secret"])))
        if kind == "order_spent":
            return replace(state, orders=event["order"])
        if kind == "window_opened":
            return replace(state, window=(event["order"], 1), answered=())
        if kind == "aro":
            aros = state.aros + ((event["trooper"],) if event["declared"] else ())
            return replace(state, answered=(*state.answered, event["trooper"]), aros=aros)
        if kind == "window_closed":
            timeouts = state.closed_by_timeout + ((event["order"],) if event["timeout"] else ())
            return replace(state, window=None, answered=(), closed_by_timeout=timeouts)
        if kind == "turn_ended":
            return replace(state, active=event["next"], turn=state.turn + 1)
        raise ValueError(kind)

    def pending_aro_window(self, state: FakeState) -> AroWindow | None:
        return None if state.window is None else AroWindow(state.window[0], state.window[1], "B")

    def may_react_unseen(self, state: FakeState, side: str) -> bool:
        return False  # (the fake game has no hidden troopers)

    def close_window_command(self, window: AroWindow) -> dict[str, Any]:
        return {"type": "close_aro_window", "order": window.order, "step": window.step}

    def view_event(self, event: dict[str, Any], viewer: str, state: FakeState) -> Plain | None:
        if event["e"] == "hidden" and event["side"] != viewer:
            return None
        return dict(event)

    def view_event_from_plain(self, event: dict[str, Any], plain: Plain, viewer: str,
                              state: FakeState) -> Plain | None:
        return self.view_event(event, viewer, state)

    def same_for_every_viewer(self, event: dict[str, Any]) -> bool:
        return bool(event["e"] != "hidden")

    def view_state(self, state: FakeState, viewer: str) -> Plain:
        return {
            "active": state.active, "turn": state.turn, "score": state.score,
            "orders": state.orders, "aros": list(state.aros),
            "closed_by_timeout": list(state.closed_by_timeout),
            "my_secrets": [secret for side, secret in state.secrets if side == viewer],
            "hidden_count": len(state.secrets),
        }

    def seat_options(self, state: FakeState, seat: str) -> Plain:
        self.calls.append(f"{seat}:options")
        return {"active": state.active == seat}

    def public_summary(self, state: FakeState) -> Plain:
        return {"phase": "play", "round": (state.turn + 1) // 2, "turn": state.turn,
                "active": state.active}

    def event_to_plain(self, event: dict[str, Any]) -> Plain:
        return dict(event)

    def event_from_plain(self, plain: Plain) -> dict[str, Any]:
        return dict(plain)

    def armies_of(self, state: FakeState) -> None:
        return None  # (nothing kept apart: every snapshot holds the whole state)

    def armies_to_plain(self, state: FakeState) -> Plain:
        raise AssertionError("the fake engine keeps nothing apart (armies_of is None)")

    def state_to_plain(self, state: FakeState, armies: bool = True) -> Plain:
        return {
            "active": state.active, "turn": state.turn, "score": state.score,
            "orders": state.orders, "secrets": [list(pair) for pair in state.secrets],
            "window": None if state.window is None else list(state.window),
            "answered": list(state.answered), "closed_by_timeout": list(state.closed_by_timeout),
            "aros": list(state.aros), "seed": state.seed,
        }

    def state_from_plain(self, plain: Plain, armies: Plain | None = None) -> FakeState:
        return FakeState(
            active=plain["active"], turn=plain["turn"], score=plain["score"],
            orders=plain["orders"], secrets=tuple(tuple(p) for p in plain["secrets"]),  # type: ignore[misc]
            window=None if plain["window"] is None else tuple(plain["window"]),  # type: ignore[arg-type]
            answered=tuple(plain["answered"]), closed_by_timeout=tuple(plain["closed_by_timeout"]),
            aros=tuple(plain["aros"]), seed=plain["seed"],
        )
