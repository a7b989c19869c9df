"""``python -m bench.table_cost``: what a dense table costs the rules core, without sockets.

On each table: an N5 game in its first Orders Phase, both sample lists (31 troopers) spread
over the table at spots drawn from the same seeded sequence wherever a base fits; then
``seat_options`` for both seats (the ``sight`` between every pair of troopers and every
skill offered) and the ``decide`` of a 4-inch Move by each trooper of side A that has one
(the ARO check asks every enemy trooper whether it sees the route). Each figure is the least
process CPU time of ``--repeat`` passes. The tables: the sparse sample, the N5 tournament
layouts, and two tables at the limits of the table format (docs/tables.md), built here.
See docs/performance.md, "Tables worth playing on".

A micro-benchmark of the rules core itself on dense tables (``server.rules``: the engine,
``seat_options``, the table's geometry; the game is set up by applying events, bypassing the
rules as the scenario files do), reached on purpose.
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Mapping
from typing import Any

from bench.measure import min_cpu_us
from server.rules import commands as c
from server.rules import engine, native
from server.rules.armies.army_catalogue import sample_army
from server.rules.armies.skills import Move
from server.rules.decision import Accepted
from server.rules.events import (
    ArmyChosen,
    DeploymentStepEnded,
    InitiativeRolled,
    InitiativeSettled,
    TrooperDeployed,
)
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.orders.sequence import automatic_events
from server.rules.state import GameState
from server.rules.table.geometry import Body
from server.rules.table.polygons import point_in_polygon, segment_polygon_distance
from server.rules.table.tables import FORMAT

Table = str | Mapping[str, Any]
SHIPPED = ("sample-open", "n5-ashfall-refinery", "n5-night-market", "n5-cargo-terminus")
ARMIES = {Side.A: "helion-vanguard", Side.B: "vesper-raiders"}


def spread_game(table: Table, seed: int) -> GameState:
    """The game on ``table`` at the first Orders Phase, both lists deployed (rules bypassed,
    as the scenario files do): A's troopers in the southern 30 inches, B's in the northern
    30, facing each other, each at the first spot drawn where its base fits."""
    state = engine.new_game(engine.GameSetup(ruleset="n5", seed=seed, table=table))
    for side, army_id in ARMIES.items():
        army = sample_army(army_id)
        ids = tuple((e.id, TrooperId(f"{side.value}-{e.id}")) for e in army.entries)
        state = engine.apply(state, ArmyChosen(side, army, ids))
    state = engine.apply(state, InitiativeRolled(((20, 1),), (1, 1), Side.A, state.dice))
    state = engine.apply(state, InitiativeSettled(Side.A, Side.A,
                                                  {Side.A: "south", Side.B: "north"}))
    draw = random.Random(seed)
    placed: list[Body] = []
    for trooper in list(state.troopers.values()):
        low, facing = (1.5, 90.0) if trooper.side is Side.A else (16.5, 270.0)
        while True:
            spot = (draw.uniform(1.5, 46.5), draw.uniform(low, low + 30.0))
            body = Body(spot, facing, trooper.profile.silhouette)
            if _fits(state, body, placed):
                break
        placed.append(body)
        state = engine.apply(state, TrooperDeployed(trooper.id, spot, facing, False,
                                                    trooper.profile.camouflage > 0))
    for step in range(1, 5):
        state = engine.apply(state, DeploymentStepEnded(Side.A if step % 2 else Side.B, step))
    state, _ = automatic_events(state, engine.apply)
    assert state.phase.value == "orders", state.phase
    return state


def _fits(state: GameState, body: Body, placed: list[Body]) -> bool:
    return not any(point_in_polygon(body.position, p.polygon)
                   or segment_polygon_distance(body.position, body.position, p.polygon)
                   < body.radius for p in state.table.terrain) and all(
        math.dist(body.position, other.position) >= body.radius + other.radius
        for other in placed)


def moves(state: GameState) -> list[tuple[GameState, c.DeclareSkill]]:
    """For each of A's troopers that can: the state after its activation and the first
    4-inch Move (directions every 30 degrees from east) that ``decide`` accepts."""
    found = []
    for trooper in state.troopers_of(Side.A):
        activated = engine.decide(state, Side.A, c.Activate(trooper.id, "regular"))
        if trooper.entry.is_peripheral or not isinstance(activated, Accepted):
            continue
        after = engine.apply_all(state, activated.events)
        x, y = trooper.position or (0.0, 0.0)
        for degrees in range(0, 360, 30):
            end = (x + 4 * math.cos(math.radians(degrees)), y + 4 * math.sin(math.radians(degrees)))
            command = c.DeclareSkill(Move(((x, y), end)))
            if isinstance(engine.decide(after, Side.A, command), Accepted):
                found.append((after, command))
                break
    return found


def limit_tables() -> dict[str, dict[str, Any]]:
    """Two N5 tables at the format's limits: 8 concave footprints (12-point stars, or L
    shapes) among 6-inch octagons on a grid over the whole table."""
    def octagon(x: float, y: float) -> list[list[float]]:
        return [[round(x + 1.4 * math.cos(k * math.pi / 4), 3),
                 round(y + 1.4 * math.sin(k * math.pi / 4), 3)] for k in range(8)]

    def star(x: float, y: float) -> list[list[float]]:
        return [[round(x + (1.8 if k % 2 else 0.8) * math.cos(k * math.pi / 6), 3),
                 round(y + (1.8 if k % 2 else 0.8) * math.sin(k * math.pi / 6), 3)]
                for k in range(12)]

    def ell(x: float, y: float) -> list[list[float]]:
        x, y = x - 1.5, y - 1.5
        return [[x, y], [x + 3, y], [x + 3, y + 1], [x + 1, y + 1], [x + 1, y + 3], [x, y + 3]]

    cells = [(3 + (i % 8) * 6, 4 + (i // 8) * 8) for i in range(48)]
    shapes = {"8 stars + 35 octagons": [star(*xy) if i % 6 == 0 else octagon(*xy)
                                        for i, xy in enumerate(cells) if i % 6 == 0 or i < 43],
              "8 L + 40 octagons": [ell(*xy) if i % 6 == 0 else octagon(*xy)
                                    for i, xy in enumerate(cells)]}
    return {name: {
        "format": FORMAT, "id": "at-the-limits", "title": name, "rulesets": ["n5"],
        "width": 48, "depth": 48,
        "zones": {"south": {"x0": 0, "y0": 0, "x1": 48, "y1": 12},
                  "north": {"x0": 0, "y0": 36, "x1": 48, "y1": 48}},
        "terrain": [{"id": f"p{i}", "name": "Block", "kind": "scatter", "polygon": polygon,
                     "height": 6} for i, polygon in enumerate(polygons)]}
        for name, polygons in shapes.items()}


def measure(tables: Mapping[str, Table], seed: int, repeat: int) -> dict[str, dict[str, Any]]:
    out = {}
    for name, table in tables.items():
        state = spread_game(table, seed)
        views = {side: seat_options(state, side) for side in (Side.A, Side.B)}
        pairs = sum(len(seen) for v in views.values() for seen in v["sight"].values())
        declared = moves(state)
        out[name] = {
            "pieces": len(state.table.terrain), "pairs_in_sight": pairs, "moves": len(declared),
            "us_per_seat_options": min_cpu_us(
                lambda s=state: [seat_options(s, side) for side in (Side.A, Side.B)], repeat, 2),
            "us_per_move_decide": min_cpu_us(
                lambda d=declared: [engine.decide(s, Side.A, m) for s, m in d], repeat,
                len(declared)),
        }
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.table_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    print(native.status())
    tables: dict[str, Table] = {name: name for name in SHIPPED}
    tables.update(limit_tables())
    for name, row in measure(tables, args.seed, args.repeat).items():
        print(f"{name:24s} {row['pieces']:3d} pieces {row['pairs_in_sight']:4d} pairs in sight "
              f"{row['us_per_seat_options']:10,.1f} µs/seat_options "
              f"{row['us_per_move_decide']:9,.1f} µs/decide(move) ({row['moves']} moves)")


if __name__ == "__main__":
    main()
