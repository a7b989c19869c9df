"""The room form: the settings a request to make a room may give, checked (``BadRequest``
``bad_field``, ``unknown_table``), with their defaults and limits. The lobby's
``POST /api/rooms`` and a tournament's rounds (``server.tournaments.routes``) make their
rooms through it, so a tournament's room settings are refused as a lobby room's are."""

from __future__ import annotations

import math
from typing import Any

from server.bot.decide import DEFAULT_LEVEL, LEVELS
from server.config import Settings
from server.lobby.http import BadRequest
from server.lobby.missions import mission_ids
from server.rules.ruleset import Ruleset
from server.rules.table import table_catalogue
from server.rules.table.tables import TableError
from server.store import RoomSettings

RULESETS = ("n5", "codeone")
MAX_CLOCK_S = 4 * 3600
"""The longest chess clock a room takes per player (ITS plays 1:15 each: 4500 s)."""
MAX_ARO_MIN_OPEN_S = 30.0
"""The longest minimum a room holds its ARO windows open (``aro_min_open_s``)."""
TOURNAMENT_ARO_MIN_OPEN_S = 3.0
"""Tournament rooms hold ARO windows uniform by default (docs/fair-play.md): long enough to
pass or declare with a hidden trooper unseen, short enough to cost at most 6 s an Order."""


def parse_room_settings(body: dict[str, Any], settings: Settings,
                        default_aro_min_open_s: float = 0.0,
                        seats_bot: bool = False) -> RoomSettings:
    """Validate a create-room request; unknown fields are refused so typos are noticed.
    ``default_aro_min_open_s``: uniform ARO windows when the body does not say (lobby rooms:
    off; tournament rooms: ``TOURNAMENT_ARO_MIN_OPEN_S``). ``seats_bot``: the request may
    seat the practice bot (the lobby's rooms; never a tournament's: bot rooms are unranked)."""
    known = {"ruleset", "aro_window_s", "visibility", "spectator_delay_s", "seed", "table",
             "clock_s", "aro_min_open_s", "mission", "bot", "bot_level"}
    unknown = sorted(set(body) - known)
    if unknown:
        raise BadRequest("bad_field", f"unknown fields {unknown}")
    ruleset = body.get("ruleset", "n5")
    if ruleset not in RULESETS:
        raise BadRequest("bad_field", f"ruleset must be one of {list(RULESETS)}")
    window = _number(body.get("aro_window_s", settings.default_aro_window_s), "aro_window_s")
    if not settings.min_aro_window_s <= window <= settings.max_aro_window_s:
        raise BadRequest("bad_field", f"aro_window_s must be within "
                         f"{settings.min_aro_window_s}..{settings.max_aro_window_s}")
    visibility = body.get("visibility", "public")
    if visibility not in ("public", "private"):
        raise BadRequest("bad_field", "visibility must be public or private")
    delay = _number(body.get("spectator_delay_s", 0), "spectator_delay_s")
    if not 0 <= delay <= 3600:
        raise BadRequest("bad_field", "spectator_delay_s must be within 0..3600")
    clock = body.get("clock_s", 0)
    if isinstance(clock, bool) or not isinstance(clock, int) or not 0 <= clock <= MAX_CLOCK_S:
        raise BadRequest("bad_field", f"clock_s must be a whole number of seconds within "
                         f"0..{MAX_CLOCK_S} (0: no chess clocks)")
    # (a default longer than a short window: the whole window)
    min_open = _number(body.get("aro_min_open_s", min(default_aro_min_open_s, window)),
                       "aro_min_open_s")
    if not 0 <= min_open <= min(MAX_ARO_MIN_OPEN_S, window):
        raise BadRequest("bad_field", f"aro_min_open_s must be within 0..{MAX_ARO_MIN_OPEN_S:g} "
                         "and at most aro_window_s (0: ARO windows are not held)")
    bot, bot_level = _bot(body, seats_bot)
    return RoomSettings(ruleset, window, visibility, delay, _fixed_seed(body, settings),
                        _table(body, Ruleset(ruleset)), clock, aro_min_open_s=min_open,
                        mission=_mission(body, ruleset), bot=bot, bot_level=bot_level)


def _bot(body: dict[str, Any], seats_bot: bool) -> tuple[str, str]:
    """The seat the practice bot plays ("A", "B"; "" for none) and its level (docs/bot.md)."""
    if "bot" not in body:
        if "bot_level" in body:
            raise BadRequest("bad_field", "bot_level needs bot (the seat the bot plays)")
        return "", ""
    if not seats_bot:
        raise BadRequest("bad_field", "a tournament's rooms never seat the practice bot")
    seat, level = body["bot"], body.get("bot_level", DEFAULT_LEVEL)
    if seat not in ("A", "B"):
        raise BadRequest("bad_field", "bot must be \"A\" or \"B\": the seat the bot plays")
    if level not in LEVELS:
        raise BadRequest("bad_field", f"bot_level must be one of {list(LEVELS)}")
    return seat, level


def _mission(body: dict[str, Any], ruleset: str) -> str:
    """A shipped mission's id of the ruleset (``GET /api/missions``), or "" for none."""
    chosen = body.get("mission", "")
    if not isinstance(chosen, str):
        raise BadRequest("bad_field", "mission must be a mission id (GET /api/missions) or "
                         "\"\" for none")
    if chosen and chosen not in mission_ids(ruleset):
        raise BadRequest("unknown_mission", f"there is no {ruleset} mission "
                         f"'{chosen[:60]}'; GET /api/missions?ruleset={ruleset} lists them")
    return chosen


def _table(body: dict[str, Any], ruleset: Ruleset) -> str | dict[str, Any]:
    """A shipped layout's id or a whole table document (docs/tables.md); without one, the
    ruleset's first tournament layout."""
    if "table" not in body:
        return table_catalogue.default_table(ruleset)
    chosen = body["table"]
    shipped = {item.layout.id for item in table_catalogue.shipped()}
    if isinstance(chosen, str) and chosen and chosen not in shipped:
        raise BadRequest("unknown_table", f"there is no table '{chosen[:60]}'; GET /api/tables "
                         "lists them")
    try:
        return table_catalogue.room_choice(chosen, ruleset)
    except TableError as error:
        raise BadRequest("bad_table", f"table: {error}") from None


def _fixed_seed(body: dict[str, Any], settings: Settings) -> int | None:
    """A ``seed`` fixes every die of the room, so whoever chose it knows them: only a server
    run for testing (REFEREE_ALLOW_FIXED_SEED=1) accepts one, and the room says so."""
    if "seed" not in body:
        return None
    if not settings.allow_fixed_seed:
        raise BadRequest("bad_field", "seed is not accepted: a room's dice come from a secret "
                         "nobody chooses (only servers run for testing accept a fixed seed)")
    seed = body["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise BadRequest("bad_field", "seed must be a whole number in 0..2^63-1")
    return seed


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadRequest("bad_field", f"{name} must be a number")
    try:
        number = float(value)  # OverflowError: a JSON integer beyond a double (10**309)
    except OverflowError:
        raise BadRequest("bad_field", f"{name} must be a number") from None
    if not math.isfinite(number):
        raise BadRequest("bad_field", f"{name} must be a number")
    return number
