"""The bot's decision function: from what its seat holds, the command bodies to send now,
in the order to try them (the referee refuses a drawn point or route that does not fit;
the next one follows). Its inputs are exactly a seat's frames: the view (``snapshot``'s
``state`` as the seat's events leave it) and ``options``; the random stream is the bot's
own. The last candidates are every choice the options name as they are, so a seat the game
waits on always has one the rules accept (``options`` tells the truth)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from server.bot import random_level, sensible
from server.bot.fruitless import Fruitless
from server.bot.ground import own_zone
from server.bot.offers import Body, named

LEVELS = ("random", "sensible")
DEFAULT_LEVEL = "sensible"
PROGRESS_KEYS = ("choose_army", "accept_armies", "initiative", "deploy", "keep_airborne",
                 "end_deployment_step", "activate", "combat_jump", "end_turn",
                 "end_impetuous_phase", "skills", "aros", "close_aro_window", "guts_move")
"""Options that move the game on: the game waits on a seat offered one of them."""


def waits_on(options: dict[str, Any]) -> bool:
    """Whether the game waits on the seat these options belong to."""
    return any(bool(options.get(key)) for key in PROGRESS_KEYS)


def candidates(view: dict[str, Any], options: dict[str, Any], seat: str, level: str,
               rng: random.Random, moves_per_turn: int = sensible.MOVES_PER_TURN,
               fruitless: Fruitless | None = None) -> Iterator[Body]:
    """The bodies to try now, best first (nothing when the game does not wait on the seat).
    ``fruitless``: the bot's memory of the troopers with nothing to do this turn (kept across
    its decisions; the candidates must be tried lazily, in order, for it to hold)."""
    if not waits_on(options):
        return
    if level == "random":
        yield from random_level.plan(view, options, seat, rng)
    else:
        yield from sensible.plan(view, options, seat, rng, moves_per_turn, fruitless)
    yield from named(options)
    if options.get("choose_army"):
        yield {"type": "choose_army", "army": options["choose_army"][0],
               "entropy": rng.randbytes(32).hex()}
    yield from _zone_scan(view, options, seat)


def _zone_scan(view: dict[str, Any], options: dict[str, Any], seat: str) -> Iterator[Body]:
    """Every inch of the zone for the first trooper waiting to deploy: if the referee
    refuses them all, the seat had no spot left."""
    waiting = options.get("deploy") or []
    if not waiting:
        return
    zone, facing = own_zone(view, seat)
    for j in range(1, int(zone["y1"] - zone["y0"])):
        for i in range(1, int(zone["x1"] - zone["x0"])):
            yield {"type": "deploy", "trooper": waiting[0], "facing": facing, "hidden": False,
                   "position": [zone["x0"] + i, zone["y0"] + j]}
