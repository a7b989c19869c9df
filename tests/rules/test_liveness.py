"""Liveness: a game can never soft-lock.

Random legal games, driven only by each seat's own view and ``seat_options`` (the random
player of ``tests/support/random_player.py``; the game loop and the checks are in
``tests/support/liveness.py``), for both rulesets, over fixed seeds, with the shipped army
lists (Hidden Deployment, Combat Jump, Camouflage, Impetuous troopers, Peripherals, a Hacker) and with
the lists of ``tests/support/feature_armies.py`` (Hidden Deployment in CodeOne, a hidden
Lieutenant, a hidden Controller with its Peripherals on the table).

At every step before the end:
- the game waits on exactly one seat, read from the state (``waited_on``), and that seat's
  options offer something that moves the game on while the other seat's offer nothing;
- that seat has at least one option the rules core accepts (the player tries its random
  picks, then every choice the options name, then every half-inch point of its zone when it
  deploys: if the rules core refuses them all, that is a soft-lock);
- every choice the options name as it is (no route, deployment point or Burst split drawn
  by the player) is accepted when sent;
- no BS Attack or Discover declared (active or ARO, at any point of the route the options
  list) becomes Idle at Resolution for a reason known when it was declared, and each roll
  has the Success Value and MODs the options showed before the declaration.
- no Attack at a Camouflage Marker is offered or accepted (an ARO's never, the active
  trooper's only after its Discover on it), and no two bases overlap after any event
  (``tests/support/invariants.py``).
Every game ends by itself (its last Game Round, or Retreat!) within a bound on commands,
never by a concession. Orders per Player Turn are capped (ending a turn is always legal) to
keep the file within about a minute on the project's 2-core machines.

Implementation test: no rule section. Liveness is the server's own promise, not a rule; the
deployment regressions below cite DIGEST 11.1."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from functools import cache

import pytest

from server.rules.armies.army_catalogue import sample_armies, sample_army
from server.rules.combat.wounds import Condition
from server.rules.ids import Side
from server.rules.orders.deployment import placed, reserve_count
from server.rules.ruleset import Ruleset, options
from server.rules.state import GameState, Phase
from server.rules.table import table_catalogue
from tests.support.feature_armies import feature_armies
from tests.support.liveness import GameLog, play_random_game

N5_SEEDS = tuple(range(8))
CODEONE_SEEDS = tuple(range(12))
FEATURE_GAMES = (("codeone", 101, "hidden-c1-cell", None), ("codeone", 102, None, "hidden-c1-cell"),
                 ("n5", 103, "hidden-vanguard", "hidden-raiders"),
                 ("n5", 104, "hidden-raiders", "hidden-vanguard"))
ORDERS_PER_TURN = {"n5": 5, "codeone": 6}
ENDINGS = {"rounds_completed", "retreat"}


@cache
def random_game(ruleset: str, seed: int, list_a: str | None = None,
                list_b: str | None = None) -> GameLog:
    """Played once per test session: the features test reads the same games."""
    chosen = {side: feature_armies()[name] for side, name in ((Side.A, list_a), (Side.B, list_b))
              if name is not None}
    return play_random_game(ruleset, seed, orders_per_turn=ORDERS_PER_TURN[ruleset],
                            lists=chosen or None)


def assert_ended_by_itself(log: GameLog, ruleset: str) -> None:
    state = log.state
    assert state.phase is Phase.GAME_OVER and state.result is not None
    assert state.result.reason in ENDINGS, state.result
    assert not log.refused_offers, "\n".join(log.refused_offers)
    assert not log.idle_offers, "\n".join(log.idle_offers)
    assert not log.changed_previews, "\n".join(log.changed_previews)
    if state.result.reason == "rounds_completed":
        assert state.round == options(Ruleset(ruleset)).rounds and state.turn == 2


@pytest.mark.slow  # whole random games (4-13 s each)
@pytest.mark.parametrize("seed", N5_SEEDS)
def test_random_n5_games_never_soft_lock_and_end_by_themselves(seed: int) -> None:
    assert_ended_by_itself(random_game("n5", seed), "n5")


@pytest.mark.slow  # whole random games (3-9 s each)
@pytest.mark.parametrize("seed", CODEONE_SEEDS)
def test_random_codeone_games_never_soft_lock_and_end_by_themselves(seed: int) -> None:
    assert_ended_by_itself(random_game("codeone", seed), "codeone")


@pytest.mark.slow  # whole random games (5-22 s each)
@pytest.mark.parametrize(("ruleset", "seed", "list_a", "list_b"), FEATURE_GAMES)
def test_random_games_with_hidden_lieutenants_and_controllers_never_soft_lock(
        ruleset: str, seed: int, list_a: str | None, list_b: str | None) -> None:
    assert_ended_by_itself(random_game(ruleset, seed, list_a, list_b), ruleset)


TOURNAMENT_TABLES = tuple((ruleset.value, item.layout.id) for ruleset in Ruleset
                          for item in table_catalogue.layouts(ruleset) if not item.sample)
TABLE_SEEDS = {"n5-cargo-terminus": 44}
"""The seed of a table's game where it is not 41: one whose troopers reach its Special
Terrain areas (the counters below)."""


@cache
def table_game(ruleset: str, table: str) -> GameLog:
    return play_random_game(ruleset, TABLE_SEEDS.get(table, 41),
                            orders_per_turn=ORDERS_PER_TURN[ruleset], table=table)


@pytest.mark.slow  # whole random games (up to 13 s each)
@pytest.mark.parametrize(("ruleset", "table"), TOURNAMENT_TABLES)
def test_random_games_on_every_tournament_table_never_soft_lock(ruleset: str, table: str) -> None:
    """The shipped layouts a lobby room plays on (terrain inside and around the deployment
    zones, dense centres, Special Terrain areas): one random game each."""
    log = table_game(ruleset, table)
    assert log.state.table.id == table
    assert_ended_by_itself(log, ruleset)


def nearly_wiped_out(side: Side) -> Callable[[GameState], GameState]:
    """``side`` loses every trooper but its two cheapest main troopers: at its next Tactical
    Phase its survivors are worth 25% of its points or less (N5 Retreat!)."""
    def prepare(state: GameState) -> GameState:
        mains = sorted((t for t in state.troopers_of(side) if not t.entry.is_peripheral),
                       key=lambda t: (t.profile.cost, t.id))
        kept = {t.id for t in mains[:2]}
        troopers = {tid: t if t.side is not side or tid in kept else replace(t, condition=Condition.DEAD)
                    for tid, t in state.troopers.items()}
        return replace(state, troopers=troopers)
    return prepare


@pytest.mark.slow  # whole random games (2-3 s each)
@pytest.mark.parametrize(("seed", "side"), [(31, Side.A), (32, Side.B)])
def test_random_n5_games_in_retreat_end_by_themselves(seed: int, side: Side) -> None:
    """Retreat! (DIGEST 11.4): the army in Retreat! is in Loss of Lieutenant with every
    trooper Irregular, cannot appoint a Lieutenant, and the game ends at the end of its
    turn; random play from there must get there."""
    log = play_random_game("n5", seed, orders_per_turn=4, prepare=nearly_wiped_out(side))
    assert_ended_by_itself(log, "n5")
    assert log.state.result is not None and log.state.result.reason == "retreat"
    assert log.events["retreat_declared"] == 1 and side in log.state.retreat


def test_the_army_lists_played_have_every_feature_that_makes_a_seat_wait() -> None:
    """Hidden Deployment, Camouflage, Impetuous and Peripherals each stand in a list the
    random games play, in each format (Impetuous is not a CodeOne rule, DIGEST 14)."""
    lists = [*sample_armies().values(), *feature_armies().values()]
    for fmt, features in (("standard", ("hidden_deployment", "camouflage", "impetuous",
                                        "is_peripheral", "hacker")),
                          ("codeone", ("hidden_deployment", "camouflage", "is_peripheral"))):
        profiles = [e.profile for army in lists if army.format.value == fmt for e in army.entries]
        for feature in features:
            assert any(getattr(p, feature) for p in profiles), (fmt, feature)


@pytest.mark.slow  # plays every random game above again unless they ran (cached)
def test_the_random_games_reach_the_states_that_could_soft_lock() -> None:
    """The games above did exercise what this file guards: hidden deployment and reveals,
    Impetuous activations, joint activations with Peripherals, AROs declared and passed,
    Loss of Lieutenant and its appointment, Guts choices, Command Tokens (the deployment
    hold-back among them) and Coordinated Orders (N5), Suppressive Fire (N5), Airborne
    Deployment and Combat Jumps (N5), both ways to close a window, Guts windows answered
    with the default and with another offered point (N5)."""
    logs = [random_game("n5", s) for s in N5_SEEDS] + [random_game("codeone", s) for s in CODEONE_SEEDS]
    logs += [random_game(*game) for game in FEATURE_GAMES]
    commands: Counter[str] = Counter()
    events: Counter[str] = Counter()
    for log in logs:
        commands.update(log.commands)
        events.update(log.events)
    kinds = Counter(label.split(":")[0] for label in commands)
    for needed in ("reveal", "end_impetuous_phase", "declare_aro", "pass_aro", "close_aro_window",
                   "appoint_lieutenant", "choose_guts_failure", "end_turn", "end_deployment_step",
                   "spend_command_token", "coordinate_order", "keep_airborne", "combat_jump"):
        assert kinds[needed] > 0, (needed, commands)
    for needed in ("deploy:hidden", "activate:impetuous", "activate:irregular", "activate:lieutenant",
                   "declare_skill:move", "declare_skill:bs_attack", "declare_skill:idle",
                   "declare_aro:bs_attack", "declare_aro:dodge", "declare_skill:suppressive_fire",
                   "spend_command_token:hold_back", "choose_guts_move:default",
                   "choose_guts_move:point"):
        assert commands[needed] > 0, (needed, commands)
    assert any(label.endswith(":joint") for label in commands), commands
    for needed in ("loss_of_lieutenant", "trooper_revealed", "combat_jump_landed", "order_resolved",
                   "turn_ended", "guts_window_opened", "guts_reacted", "order_concluded"):
        assert events[needed] > 0, (needed, events)
    assert sum(1 for log in logs if log.armies[Side.A] != log.armies[Side.B]) > 0
    # The previews were compared with real rolls, AROs at chosen points among them.
    assert sum(log.checked_previews for log in logs) > 50
    assert sum(log.aros_at_points for log in logs) > 0


@pytest.mark.parametrize(("ruleset", "seed"), [("n5", 11), ("n5", 12), ("codeone", 11),
                                                ("codeone", 12), ("codeone", 13)])
def test_regression_2026_11_24_deploying_every_trooper_offered_never_soft_locks_deployment(
        ruleset: str, seed: int) -> None:
    """The soft-lock fixed on 2026-11-24 (server/rules/orders/deployment.py, ``reserve_of``): a
    player who deployed every trooper it was offered in step 1 or 2 left no reserve, and
    could neither end the step (one trooper must wait) nor deploy again. Players who deploy
    whatever is offered before ending a step must still get through the four steps, each
    of the first two ending with exactly one main trooper in reserve.
    DIGEST 11.1: the four deployment steps."""
    def deployed(state: GameState) -> bool:
        return state.phase in (Phase.ORDERS, Phase.IMPETUOUS)

    log = play_random_game(ruleset, seed, greedy_deployment=True, stop=deployed)
    assert log.state.phase in (Phase.ORDERS, Phase.IMPETUOUS)
    assert log.events["deployment_step_ended"] == 4
    waiting = {side: [t for t in log.state.troopers_of(side) if t.position is None and not t.airborne]
               for side in Side}
    assert waiting == {Side.A: [], Side.B: []}
    assert not log.refused_offers, "\n".join(log.refused_offers)


def test_regression_2026_11_24_each_of_the_first_two_steps_keeps_one_main_trooper_back() -> None:
    """DIGEST 11.1: each player keeps one trooper back for the last two deployment steps."""
    def first_two_steps(state: GameState) -> bool:
        return state.phase is Phase.DEPLOYMENT and state.deployment.step == 3

    log = play_random_game("n5", 21, greedy_deployment=True, stop=first_two_steps)
    state = log.state
    assert state.deployment.step == 3
    for side in Side:
        mains = [t for t in state.troopers_of(side) if not t.entry.is_peripheral and not placed(t)]
        # One, or two after the first player's Strategic hold-back (DIGEST 3.3).
        assert len(mains) == reserve_count(state, side), (side, mains)


def berserker_in_reach(state: GameState) -> GameState:
    """Side A's first Berserk trooper on the table stands 4 inches from the nearest enemy
    model, facing it: random play keeps the armies farther apart than a Berserk's reach
    (both MOV values) for most of a game, and the sellsword is shot on its way in."""
    berserker = next(t for t in state.troopers_of(Side.A) if t.profile.berserk and t.on_table)
    assert berserker.position is not None
    enemy = min((t for t in state.troopers_of(Side.B) if t.on_table and not t.hidden and not t.marker),
                key=lambda t: math.dist(t.position or (0.0, 0.0), berserker.position or (0.0, 0.0)))
    assert enemy.position is not None
    (ex, ey), (bx, by) = enemy.position, berserker.position
    apart = math.dist((ex, ey), (bx, by))
    at = (ex + (bx - ex) * 4.0 / apart, ey + (by - ey) * 4.0 / apart)
    facing = math.degrees(math.atan2(ey - at[1], ex - at[0])) % 360
    return state.with_trooper(replace(berserker, position=at, facing=facing))


@cache
def berserk_and_mines_game() -> GameLog:
    """petrel-skyborne (Berserk sellswords, Smoke grenades) against vesper-raiders (a
    Minelayer with Mines), a sellsword put within reach of an enemy as the game begins."""
    return play_random_game("n5", 388, orders_per_turn=ORDERS_PER_TURN["n5"], prepare=berserker_in_reach,
                            lists={Side.A: sample_army("petrel-skyborne"),
                                   Side.B: sample_army("vesper-raiders")})


@pytest.mark.slow  # one whole random game (about 8 s)
def test_a_random_game_with_a_berserker_in_reach_and_mines_ends_by_itself() -> None:
    log = berserk_and_mines_game()
    assert_ended_by_itself(log, "n5")


@pytest.mark.slow  # plays the N5 games above again unless they ran (cached)
def test_the_random_n5_games_play_berserk_mines_smoke_and_special_terrain() -> None:
    """Issue 36 point 4: over the shipped lists (vesper-raiders' Minelayer with its Mines,
    petrel-skyborne's Berserk sellswords, orrery-veil's and petrel-skyborne's Smoke and
    Eclipse grenades) and the tables (n5-cargo-terminus' Special Terrain areas), the random
    N5 games above, which all end by themselves, do play Berserk, a Minelayer's deployment
    with a Mine, Place Deployable, Smoke or Eclipse thrown in the active turn and in ARO (the
    zone left on the table), a Mine going off, and movements that start in Special Terrain
    (an allowance changed by the area or the Terrain skill)."""
    logs = [random_game("n5", s) for s in N5_SEEDS]
    logs += [table_game(ruleset, table) for ruleset, table in TOURNAMENT_TABLES if ruleset == "n5"]
    logs.append(berserk_and_mines_game())
    commands: Counter[str] = Counter()
    events: Counter[str] = Counter()
    effects: Counter[str] = Counter()
    for log in logs:
        commands.update(log.commands)
        events.update(log.events)
        effects.update(log.effects)
    for needed in ("declare_skill:berserk", "declare_skill:place_deployable",
                   "declare_skill:bs_attack:zone", "declare_aro:bs_attack:zone"):
        assert commands[needed] > 0, (needed, commands)
    assert any(label.startswith("deploy") and label.endswith(":mines") for label in commands), commands
    for needed in ("mine_placed", "mine_triggered"):
        assert events[needed] > 0, (needed, events)
    for needed in ("zone_placed", "deployable_placed"):
        assert effects[needed] > 0, (needed, effects)
    assert sum(log.special_terrain_moves for log in logs) > 0
