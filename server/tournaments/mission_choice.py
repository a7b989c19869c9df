"""The organizer's choice of each round's mission, checked against the missions shipped for
the tournament's ruleset (``server.lobby.missions``): at creation
(``missions``, one id per round) and before a round starts (``set_mission``)."""

from __future__ import annotations

from typing import Any

from server.lobby.missions import mission_ids
from server.tournaments.refusals import Refused


def checked_mission(value: Any, ruleset: str, name: str = "mission") -> str:
    """A mission id of ``ruleset``, or "" (no mission: the annihilation game)."""
    if not isinstance(value, str) or len(value) > 100:
        raise Refused("bad_field", f"{name} must be a mission id (GET /api/missions) or \"\" "
                      "for none")
    if value and value not in mission_ids(ruleset):
        known = sorted(mission_ids(ruleset))
        listed = ", ".join(known) if known else "none on this server"
        raise Refused("unknown_mission", f"there is no {ruleset} mission '{value[:60]}' "
                      f"(the {ruleset} missions: {listed})")
    return value


def round_missions(value: Any, rounds: int, ruleset: str) -> list[str]:
    """A creation's ``missions``: at most one id (or "") per round, in round order."""
    if not isinstance(value, list) or len(value) > rounds:
        raise Refused("bad_field", "missions must be a list of at most one mission id per "
                      "round (\"\": no mission)")
    return [checked_mission(item, ruleset, f"missions[{n}]") for n, item in enumerate(value)]
