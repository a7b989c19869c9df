"""``GET /api/missions``: the missions a room or a tournament round may be played on
(docs/missions.md), for the lobby's choice and the tournament pages. ``?ruleset=n5|codeone``
keeps the missions of that ruleset. Each comes as the rules core summarises it
(``mission_catalogue.summaries``): id, title, description, each objective in words, the
Classified Objectives drawn, the special rules.

Also what the room form and the tournaments check a mission id against, and the title the
tournament pages name a round's mission by: the shipped missions, nothing else.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.rules.missions import MissionError, mission_catalogue
from server.rules.ruleset import Ruleset


def mission_ids(ruleset: str) -> set[str]:
    """The ids of the missions shipped for ``ruleset`` (none for an unknown ruleset)."""
    if ruleset not in {r.value for r in Ruleset}:
        return set()
    return {item.id for item in mission_catalogue.missions(Ruleset(ruleset))}


def mission_title(mission: str) -> str:
    """The mission's title, or its id for a mission this server does not ship (a round
    stored by a server that had it)."""
    try:
        return mission_catalogue.mission(mission).title
    except MissionError:
        return mission


async def list_missions(request: Request) -> Response:
    ruleset = request.query_params.get("ruleset")
    if ruleset is not None and ruleset not in {r.value for r in Ruleset}:
        return JSONResponse({"error": "bad_field", "message": "unknown ruleset"}, status_code=400)
    if ruleset is None:
        listed = [mission_catalogue.summary(item) for item in mission_catalogue.shipped()]
    else:
        listed = mission_catalogue.summaries(ruleset)
    return JSONResponse({"missions": listed})


routes = [Route("/api/missions", list_missions, methods=["GET"])]
