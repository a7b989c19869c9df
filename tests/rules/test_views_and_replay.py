"""Hidden and private information in views; replaying events rebuilds the state; and
property tests over random legal play (hypothesis).

Implementation test: no rule section. That holds for the replay, plain-data and dice-secret
tests; the view tests cite DIGEST 11.2 and 12 each."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules import commands as c
from server.rules import engine
from server.rules.armies.skills import Dodge, PeripheralSkill
from server.rules.combat.outcome import Moved
from server.rules.decision import Accepted
from server.rules.events import (
    AroDeclared,
    AroWindowOpened,
    Event,
    OrderResolved,
    OrderSpent,
    SkillDeclared,
)
from server.rules.ids import SPECTATOR, Side
from server.rules.options import seat_options
from server.rules.plain import from_plain, to_plain
from server.rules.state import GameState, Phase
from server.rules.views import shares_one_view, view_event, view_event_from_plain, view_state
from tests.support.games import new_game_in_orders_phase
from tests.support.skirmish import skirmish


def _text(plain: object) -> str:
    return json.dumps(plain, sort_keys=True)


def test_camouflage_marker_is_open_but_what_it_is_is_private() -> None:
    """DIGEST 11.2 and 12: a Marker's place is open, its content private."""
    state = skirmish({"A-t1": (3, 2, 90.0), "B-t1": (3, 30, 90.0), "B-t2": (12, 28, 270.0)})
    marker = next(t for t in view_state(state, Side.A)["troopers"] if t["id"] == "B-t2")
    assert marker["marker"] is True and marker["camouflage"] == 6
    assert "profile" not in marker and "Ghost" not in _text(marker)
    # The list is open (the roster names the unit) but nothing ties a trooper id to it.
    for viewer in (Side.A, SPECTATOR):
        roster = view_state(state, viewer)["armies"]["B"]["roster"]
        assert all(set(line) == {"unit", "combat_group", "not_refereed"} for line in roster)
        assert "B-t2" not in _text(roster)
    own = next(t for t in view_state(state, Side.B)["troopers"] if t["id"] == "B-t2")
    assert own["profile"]["name"] == "Ghost Infiltrator"


def test_hidden_deployment_trooper_is_not_in_the_opponents_view() -> None:
    """DIGEST 12: a Hidden Deployment trooper is not on the table."""
    state = skirmish({"A-t1": (2, 2, 90.0), "B-t1": (2, 46, 90.0), "B-t2": (10, 40, 270.0, "hidden")}, ruleset="n5")
    ids_a = {t["id"] for t in view_state(state, Side.A)["troopers"]}
    ids_b = {t["id"] for t in view_state(state, Side.B)["troopers"]}
    assert "B-t2" not in ids_a and "B-t2" in ids_b
    assert "B-t2" not in {t["id"] for t in view_state(state, SPECTATOR)["troopers"]}


def test_lieutenant_identity_costs_and_dice_state_are_private() -> None:
    """DIGEST 11.2: the Lieutenant's identity and the costs are private."""
    state = new_game_in_orders_phase("codeone")
    lieutenant = next(t.id for t in state.troopers_of(Side.A) if t.entry.lieutenant)
    for viewer in (Side.B, SPECTATOR):
        view = view_state(state, viewer)
        text = _text(view)
        assert view["orders"]["lieutenant"] is True  # the token is open, its owner is not
        assert lieutenant not in _text(view["orders"])
        assert all("entry" not in t for t in view["troopers"] if t["side"] == "A")
        assert '"cost"' not in _text([t for t in view["troopers"] if t["side"] == "A"])
        assert '"cost"' not in _text(view["armies"]["A"])
        assert '"seed"' not in text and '"dice"' not in text
    assert '"seed"' not in _text(view_state(state, Side.A))


def test_events_never_carry_the_dice_generator_to_viewers() -> None:
    state = skirmish({"A-t1": (3, 2, 90.0), "A-t5": (22.5, 4, 90.0), "B-t1": (3, 30, 90.0), "B-t3": (22.5, 28, 270.0)})
    decision = engine.decide(state, Side.A, c.Activate("A-t5", c.OrderType.REGULAR))  # type: ignore[arg-type]
    assert isinstance(decision, Accepted)
    state = engine.apply_all(state, decision.events)
    shot = {"type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": "B-t3", "burst": 3}]}
    decision = engine.decide(state, Side.A, c.parse_command({"type": "declare_skill", "skill": shot}))
    assert isinstance(decision, Accepted)
    state = engine.apply_all(state, decision.events)
    for event in decision.events:
        for viewer in (Side.A, Side.B, SPECTATOR):
            seen = view_event(event, viewer, state)
            assert seen is None or "dice" not in seen


def test_replaying_the_event_log_rebuilds_the_same_state() -> None:
    initial = engine.new_game(engine.GameSetup(ruleset="codeone", seed=3))
    state, log = _random_game(initial, random.Random(5), max_commands=150)
    assert engine.apply_all(initial, log) == state


def test_state_and_events_survive_plain_data_round_trips() -> None:
    initial = engine.new_game(engine.GameSetup(ruleset="codeone", seed=11))
    state, log = _random_game(initial, random.Random(11), max_commands=120)
    assert engine.state_from_plain(json.loads(json.dumps(engine.state_to_plain(state)))) == state
    for event in log:
        assert from_plain(Event, json.loads(json.dumps(to_plain(event)))) == event


# --- random legal play --------------------------------------------------------------------


def _candidates(state: GameState, rng: random.Random) -> list[tuple[Side | engine.System, c.Command]]:
    """A handful of plausible commands for whoever must act; many will be rejected."""
    from tests.support.games import ARMIES, TEST_ENTROPY, deployment_spots

    if state.phase is Phase.ARMY_SELECTION:
        return [(s, c.ChooseArmy(ARMIES[state.ruleset.value][s], TEST_ENTROPY)) for s in (Side.A, Side.B) if s not in state.armies]
    if state.phase is Phase.INITIATIVE:
        zone = rng.choice(["north", "south"])
        return [
            (s, cmd)
            for s in (Side.A, Side.B)
            for cmd in (c.ChooseInitiative("initiative", rng.random() < 0.5), c.ChooseRemaining(rng.random() < 0.5, zone))
        ]
    if state.phase is Phase.DEPLOYMENT:
        side = state.initiative.deploys_first if state.deployment.step % 2 else state.initiative.deploys_first.other  # type: ignore[union-attr]
        assert side is not None
        waiting = [t for t in state.troopers_of(side) if t.position is None]
        if state.deployment.step <= 2:
            # Steps 1 and 2 deploy all but one trooper (with its Peripherals): keep the last
            # main trooper in reserve, or the step could never end.
            mains = [t for t in waiting if not t.entry.is_peripheral]
            if mains:
                reserve = mains[-1].entry.id
                waiting = [t for t in waiting if reserve not in (t.entry.id, t.entry.controller)]
        spots = deployment_spots(state, side)
        moves: list[tuple[Side | engine.System, c.Command]] = [(side, c.EndDeploymentStep())]
        for trooper in rng.sample(waiting, min(3, len(waiting))):
            hidden = trooper.profile.hidden_deployment and rng.random() < 0.5
            moves.append((side, c.Deploy(trooper.id, rng.choice(spots), rng.choice([90.0, 270.0]), hidden)))
        return moves
    window = engine.pending_aro_window(state)
    if window is not None and window.guts is not None:
        # A Guts window: its owner answers (the default, or a drawn point the rule may
        # refuse), or the room's clock at the deadline; the opponent may not.
        default = c.ChooseGutsMove(window.order, window.guts)
        position = state.trooper(window.guts).position
        assert position is not None
        x, y = position
        drawn = c.ChooseGutsMove(window.order, window.guts,
                                 ((x, y), (x + rng.uniform(-1.4, 1.4), y + rng.uniform(-1.4, 1.4))))
        return [(window.reactive, default), (engine.SYSTEM, default),
                (window.reactive.other, default), (window.reactive, drawn)]
    if window is not None and state.order is not None:
        # Null troopers are offered too: the engine must refuse them.
        eligible = [*state.order.unanswered(), *(t.id for t in state.troopers_of(window.reactive) if t.is_null)]
        # The window never closes by itself: the reactive player closes it when done (what
        # its options offer: ``_check_close_offered``), or the room's clock at the deadline;
        # the active player may not.
        close = c.CloseAroWindow(window.order, window.step)
        moves = [(window.reactive, close), (engine.SYSTEM, close), (window.reactive.other, close)]
        for trooper in eligible:
            profile = state.trooper(trooper).profile
            shot = c.DeclareAro(trooper, from_plain(c.Skill, {"type": "bs_attack", "weapon": profile.weapons[0], "targets": [{"trooper": state.order.trooper, "burst": 1}]}))  # type: ignore[attr-defined]
            moves += [(window.reactive, shot), (window.reactive, c.DeclareAro(trooper, Dodge())), (window.reactive, c.PassAro(trooper))]
        return moves
    active = state.active
    assert active is not None
    if state.order is not None:
        enemies = [t for t in state.troopers_of(active.other) if t.can_act and not t.marker]
        target = rng.choice(enemies) if enemies else None

        def declare(kind: str) -> c.DeclareSkill | None:
            # The same skill for the trooper and any Peripheral activated with it.
            skills = []
            for trooper_id in state.order.activated:  # type: ignore[union-attr]
                trooper = state.trooper(trooper_id)
                assert trooper.position is not None
                x, y = trooper.position
                if kind == "move":
                    skill: dict[str, object] = {"type": "move", "route": [[x, y], [x + rng.uniform(-2.5, 2.5), y + rng.uniform(-3, 3)]]}
                elif kind == "bs_attack" and target is not None:
                    weapon = state.armies[active].weapon(trooper.profile.weapons[0])
                    burst = 1 if weapon.kind.value == "direct_template" else weapon.burst
                    skill = {"type": "bs_attack", "weapon": weapon.id, "targets": [{"trooper": target.id, "burst": burst}]}
                elif kind == "idle":
                    skill = {"type": "idle"}
                else:
                    return None
                skills.append(from_plain(c.Skill, skill))  # type: ignore[attr-defined]
            main, *others = skills
            return c.DeclareSkill(main, tuple(PeripheralSkill(p, k) for p, k in zip(state.order.peripherals, others, strict=True)))  # type: ignore[union-attr]

        return [(active, d) for d in map(declare, ("idle", "move", "bs_attack")) if d is not None]
    mine = [t for t in state.troopers_of(active) if t.on_table]  # Null ones must be refused
    moves = [(active, c.EndTurn())]
    if state.phase is Phase.IMPETUOUS:
        moves.append((active, c.EndImpetuousPhase()))
    moves += [(active, c.Reveal(t.id)) for t in state.troopers_of(active) if t.hidden and not t.is_null]
    for side in state.loss_of_lieutenant:  # any own trooper: those who may not lead are refused
        own = state.troopers_of(side)
        moves += [(side, c.AppointLieutenant(t.id)) for t in rng.sample(own, min(2, len(own)))]
    for trooper in rng.sample(mine, min(3, len(mine))):
        for order in (c.OrderType.REGULAR, c.OrderType.IRREGULAR, c.OrderType.IMPETUOUS, c.OrderType.LIEUTENANT):
            moves.append((active, c.Activate(trooper.id, order)))
        peripherals = tuple(t.id for t in mine if t.entry.controller == trooper.entry.id)
        if peripherals:  # a joint activation (Null Peripherals must be refused)
            moves.append((active, c.Activate(trooper.id, c.OrderType.REGULAR, peripherals=peripherals)))
    return moves


def _random_game(
    state: GameState, rng: random.Random, max_commands: int, views_every: int = 1
) -> tuple[GameState, list[Event]]:
    """Play random commands (many get rejected) until the game ends or ``max_commands`` are
    accepted; check the invariants after each accepted command and the views after every
    ``views_every``-th one (views are the slow part)."""
    log: list[Event] = []
    accepted = 0
    for _ in range(max_commands * 20):
        if state.phase is Phase.GAME_OVER or accepted >= max_commands:
            break
        options = _candidates(state, rng)
        weights = [1 if isinstance(cmd, c.EndTurn | c.EndDeploymentStep) else 6 for _, cmd in options]
        actor, command = rng.choices(options, weights)[0]
        decision = engine.decide(state, actor, command)
        if isinstance(command, c.CloseAroWindow) and actor is not engine.SYSTEM:
            window = engine.pending_aro_window(state)
            assert isinstance(decision, Accepted) == (window is not None and window.guts is None
                                                      and actor is window.reactive), (
                "only the reactive player (or the room's clock) closes an ARO window")
        if isinstance(command, c.ChooseGutsMove) and actor is not engine.SYSTEM and not command.route:
            window = engine.pending_aro_window(state)
            assert isinstance(decision, Accepted) == (window is not None and actor is window.reactive), (
                "only the trooper's owner (or the room's clock) answers a Guts window")
        if isinstance(decision, Accepted):
            accepted += 1
            for event in decision.events:
                _check_no_null_trooper_acts(state, event)
                state = engine.apply(state, event)
                log.append(event)
            if any(isinstance(e, AroWindowOpened) for e in decision.events):
                _check_close_offered(state)
            _check_invariants(state, views=accepted % views_every == 0)
    return state, log


def _check_close_offered(state: GameState) -> None:
    """The open window's close is offered to the reactive seat only (for one Order in 8:
    ``seat_options`` computes every Line of Fire for its "sight", the slow part)."""
    window = engine.pending_aro_window(state)
    assert window is not None, "an ARO window opened and waits to be closed"
    if window.order % 8 == 1:
        offered = seat_options(state, window.reactive)["close_aro_window"]
        assert offered == {"order": window.order, "step": window.step}, offered
        assert seat_options(state, window.reactive.other)["close_aro_window"] is None


def _check_no_null_trooper_acts(state: GameState, event: Event) -> None:
    """No trooper in a Null state is activated, declares a skill or an ARO, or rolls for
    one (Guts Rolls are made by troopers the Order's attacks hit, checked not Null after)."""
    if isinstance(event, OrderSpent | SkillDeclared | AroDeclared):
        assert not state.trooper(event.trooper).is_null, f"{event.trooper} is Null and acts: {event}"
    if isinstance(event, OrderResolved) and state.order is not None:
        assert not state.trooper(state.order.trooper).is_null
        assert all(not state.trooper(t).is_null for t in state.order.aros)
        for roll in event.outcome.rolls:
            if roll.skill != "guts":
                assert not state.trooper(roll.trooper).is_null, f"{roll.trooper} is Null and rolls"
        moved = {e.trooper for e in event.outcome.effects if isinstance(e, Moved) and e.reason == "dodge"}
        assert all(not state.trooper(t).is_null for t in moved)


def _check_invariants(state: GameState, views: bool = True) -> None:
    assert all(n >= 0 for n in state.orders.pools.values()), "pools never go negative"
    if state.order is not None:
        assert len(state.order.aros) == len(set(state.order.aros)), "one ARO per trooper"
        assert not (set(state.order.aros) & state.order.passed)
    for viewer in (Side.A, Side.B, SPECTATOR) if views else ():
        _check_view_private(state, viewer)


def _check_view_private(state: GameState, viewer: Side | object) -> None:
    view = view_state(state, viewer)  # type: ignore[arg-type]
    for trooper in view["troopers"]:
        if trooper.get("side") != getattr(viewer, "value", None) and trooper.get("marker"):
            assert "profile" not in trooper, "what a marker is stays private"
    hidden = {t.id for t in state.troopers.values() if t.hidden and t.side is not viewer}
    assert not hidden & {t["id"] for t in view["troopers"]}


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), ruleset=st.sampled_from(["codeone", "n5"]))
def test_random_legal_games_keep_invariants_and_replay(seed: int, ruleset: str) -> None:
    """Random legal games with random dice, played to the end: no order spent twice or
    below zero, no trooper with two AROs, no trooper acts while Null, views never hold
    another player's private information, and replaying the log rebuilds the final state.
    DIGEST 6.1 (one ARO per trooper) and 7.7 (Null troopers do not act)."""
    initial = engine.new_game(engine.GameSetup(ruleset=ruleset, seed=seed))
    state, log = _random_game(initial, random.Random(seed), max_commands=5000, views_every=4)
    assert state.phase is Phase.GAME_OVER, "the random game reaches its end"
    assert any(isinstance(e, OrderResolved) for e in log), "Orders were resolved"
    assert engine.apply_all(initial, log) == state
    spent = [e.order for e in log if isinstance(e, OrderSpent)]
    assert spent == list(range(1, len(spent) + 1)), "every Order is spent once, in sequence"


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), ruleset=st.sampled_from(["codeone", "n5"]))
def test_views_made_from_one_shared_plain_form_match_and_leave_it_unchanged(
    seed: int, ruleset: str
) -> None:
    """The room makes each event's plain form once (for the store) and every viewer's view
    from it: the views equal ``view_event``'s, the shared form is not altered, and an event
    that ``shares_one_view`` looks the same to everyone."""
    initial = engine.new_game(engine.GameSetup(ruleset=ruleset, seed=seed))
    state, log = _random_game(initial, random.Random(seed), max_commands=600, views_every=10_000)
    for event in log:
        plain = to_plain(event)
        before = _text(plain)
        views = [view_event_from_plain(event, plain, viewer, state)
                 for viewer in (Side.A, Side.B, SPECTATOR)]
        assert views == [view_event(event, viewer, state)
                         for viewer in (Side.A, Side.B, SPECTATOR)]
        assert _text(plain) == before, f"{type(event).__name__}: shared plain form changed"
        if shares_one_view(event):
            assert views[0] == views[1] == views[2]
