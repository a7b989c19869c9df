"""Chess clocks (ITS practice, optional per room): each player has a time budget for the
whole game, deployment included, spent while the game waits on that player.

The rules core has no time source. The room stamps every command it decides with its own
clock (``engine.decide(..., at_ms=...)``), and the clock lives in the state as "remaining ms
per side, and which side runs since which room time" (``Clocks``). After each command the
engine asks ``switch_events`` whether the side the game now waits on differs from the one
running; if so a ``ClockSwitched`` event charges the running side up to that time and starts
the other. Replaying the log therefore rebuilds the clocks exactly, and a restarted room
computes the same deadline (``deadline``) from the stored state.

Who runs (``waiting_on``; docs/rules-decisions/README.md 2026-11-26):

- army selection: both players choose at once, before the game: no clock runs;
- the initiative choice: the roll-off winner, then the loser (one at a time);
- deployment: the player whose deployment step it is;
- a Player Turn (Tactical, Impetuous, Orders Phases): the active player, except while an
  ARO window is open, which waits only on the reactive player, and while a Guts window is
  open, which waits only on the owner of the trooper that moves (``combat/guts_window``);
- automatic steps (roll-offs, resolution, States Phase) happen at one instant: no time;
- standing choices (Guts, a new Lieutenant) are not waits: they never start a clock;
- a player out of time: its clock stays at 0 and none runs while the game waits on it
  (finishing the Order in progress, or deploying).

Out of time (``ClockRanOut``, from the room's ``ClockExpired`` at the running side's
deadline, or found by the engine when a later command arrives first): the player plays no
more Orders after the current one. Its Player Turns end as soon as no Order is in progress
(``out_of_time_turn_over``: the current turn after the current Order, every later turn right
after its automatic Tactical Phase steps); it still declares AROs, with no clock running.

Held (``ClocksHeld``, from the room's ``HoldClocks``): while the room could not store any
command (its store failing over), nobody could play, yet the running clock went on; once
the store is back, before anything else is decided, the room gives that span back: from its
first refused public write to the first one it makes again (docs/rules-decisions/README.md
2026-12-02). A clock already at 0 when the store failed gets nothing back: its time-out
stands.
"""

from __future__ import annotations

from ..commands import ClockExpired, HoldClocks
from ..decision import SYSTEM, require
from ..events import ClockRanOut, ClocksHeld, ClockSwitched, Event
from ..evolve import replace
from ..ids import Side
from ..reasons import Reason
from ..state import Clocks, GameState, Phase
from .deployment import deployer


def start_clocks(state: GameState, clock_ms: int, at_ms: int) -> GameState:
    """``state`` played on chess clocks of ``clock_ms`` per player, from room time ``at_ms``
    (a new game: no clock runs until the initiative choice)."""
    clocks = Clocks(remaining={Side.A: clock_ms, Side.B: clock_ms}, since_ms=at_ms)
    return replace(state, clocks=replace(clocks, running=waiting_on(replace(state, clocks=clocks))))


def waiting_on(state: GameState) -> Side | None:
    """The side whose clock should run in ``state`` (see the module's list)."""
    side = _waited_on(state)
    if side is None or state.clocks is None or side in state.clocks.out_of_time:
        return None
    return side


def _waited_on(state: GameState) -> Side | None:
    phase = state.phase
    if phase is Phase.INITIATIVE:
        winner = state.initiative.winner
        if winner is None:
            return None
        return winner if state.initiative.winner_kept is None else winner.other
    if phase is Phase.DEPLOYMENT:
        return deployer(state)
    if phase is not Phase.GAME_OVER and state.active is not None:  # a Player Turn
        order = state.order
        if order is not None and order.window_open:
            return state.reactive
        if order is not None and order.guts_window and order.conclusion is not None:
            return state.trooper(order.conclusion.guts[0].trooper).side
        return state.active
    return None


def remaining_at(clocks: Clocks, side: Side, at_ms: int) -> int:
    """``side``'s time left at room time ``at_ms`` (never below 0)."""
    left = clocks.remaining.get(side, 0)
    if clocks.running is side:
        left -= max(0, at_ms - clocks.since_ms)
    return max(0, left)


def deadline(state: GameState) -> tuple[Side, int] | None:
    """The running side and the room time at which its clock reaches 0 (None: none runs)."""
    clocks = state.clocks
    if clocks is None or clocks.running is None or state.phase is Phase.GAME_OVER:
        return None
    side = clocks.running
    return side, clocks.since_ms + clocks.remaining.get(side, 0)


def charged(clocks: Clocks, at_ms: int) -> dict[Side, int]:
    return {side: remaining_at(clocks, side, at_ms) for side in (Side.A, Side.B)}


def switch_events(state: GameState, at_ms: int | None) -> list[Event]:
    """A ``ClockSwitched`` when the side the game waits on is not the one running."""
    clocks = state.clocks
    if clocks is None:
        return []
    now = clocks.since_ms if at_ms is None else max(at_ms, clocks.since_ms)
    running = waiting_on(state)
    if running is clocks.running:
        return []
    return [ClockSwitched(now, running, charged(clocks, now))]


def timed_out(state: GameState, at_ms: int | None) -> Side | None:
    """The running side, if its time is up at ``at_ms`` and it is not yet out of time."""
    found = deadline(state)
    if found is None or at_ms is None:
        return None
    side, due = found
    return side if at_ms >= due else None


def time_out_events(state: GameState, at_ms: int) -> list[Event]:
    side = timed_out(state, at_ms)
    if side is None:
        return []
    found = deadline(state)
    assert found is not None
    return [ClockRanOut(side, found[1])]


def decide_clock_expired(state: GameState, actor: object, command: ClockExpired) -> list[Event]:
    """The room's timer at the running side's deadline (a system command: never a player's)."""
    require(actor is SYSTEM, Reason.BAD_COMMAND, "Only the room's clock runs a clock out.")
    found = deadline(state)
    require(
        found is not None and found[0] is command.side and command.at_ms >= found[1],
        Reason.STALE_CLOCK,
        "That clock has not run out.",
    )
    return time_out_events(state, command.at_ms)


def decide_hold_clocks(state: GameState, actor: object, command: HoldClocks) -> list[Event]:
    """The room's store was back at ``to_ms`` after refusing every write from ``from_ms``:
    the running clock is not charged for the part of that span it ran with time left (a
    system command: never a player's)."""
    require(actor is SYSTEM, Reason.BAD_COMMAND, "Only the room holds the clocks.")
    require(command.from_ms <= command.to_ms, Reason.BAD_COMMAND,
            "A span of time that ends before it starts.")
    clocks = state.clocks
    if clocks is None or clocks.running is None:
        return []  # no clock ran meanwhile: nothing to give back
    start = max(command.from_ms, clocks.since_ms)
    if command.to_ms <= start or remaining_at(clocks, clocks.running, start) == 0:
        return []  # (its time ran out before the store failed: the time-out stands)
    return [ClocksHeld(start, command.to_ms, charged(clocks, start))]


def apply_clocks_held(state: GameState, event: ClocksHeld) -> GameState:
    assert state.clocks is not None
    return replace(state, clocks=replace(state.clocks, remaining=dict(event.remaining),
                                         since_ms=event.to_ms))


def apply_clock_switched(state: GameState, event: ClockSwitched) -> GameState:
    assert state.clocks is not None
    return replace(state, clocks=replace(state.clocks, remaining=dict(event.remaining),
                                         running=event.running, since_ms=event.at_ms))


def apply_clock_ran_out(state: GameState, event: ClockRanOut) -> GameState:
    clocks = state.clocks
    assert clocks is not None
    return replace(state, clocks=replace(
        clocks,
        remaining={**clocks.remaining, event.side: 0},
        running=None,
        since_ms=event.at_ms,
        out_of_time=clocks.out_of_time | {event.side},
    ))


def out_of_time_turn_over(state: GameState) -> bool:
    """The active player is out of time and no Order is in progress: its turn ends."""
    clocks = state.clocks
    return (
        clocks is not None
        and state.active in clocks.out_of_time
        and state.phase in (Phase.IMPETUOUS, Phase.ORDERS)
        and state.order is None
    )


def clocks_fields(state: GameState, at_ms: int) -> dict[str, dict[str, object]] | None:
    """The clocks as frames carry them (protocol/README ``clocks``) at room time ``at_ms``."""
    clocks = state.clocks
    if clocks is None:
        return None
    running = clocks.running if state.phase is not Phase.GAME_OVER else None
    return {
        side.value: {
            "remaining_ms": remaining_at(clocks, side, at_ms),
            "running": running is side,
            "out_of_time": side in clocks.out_of_time,
        }
        for side in (Side.A, Side.B)
    }

