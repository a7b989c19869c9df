"""``GET /api/armies``: the sample army lists a player may pick, for the lobby and the table.

Open information only: the header of each list and its roster of unit names by Combat
Group, without the Lieutenant, costs or the troopers whose presence is Private Information
(Hidden Deployment, Combat Jump; DIGEST 11.2): the opponent sees the same summary in the game,
see ``server.rules.views``. ``?ruleset=n5|codeone``
keeps the lists of that ruleset's format.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.rules.armies.army_catalogue import sample_armies
from server.rules.armies.army_list import ArmyList
from server.rules.armies.army_selection import list_format_for
from server.rules.ruleset import Ruleset


def army_summary(army: ArmyList) -> dict[str, Any]:
    return {
        "id": army.id, "name": army.name, "faction": army.faction,
        "format": army.format.value, "points": army.points, "description": army.description,
        "roster": [{"unit": entry.profile.name, "combat_group": entry.combat_group}
                   for entry in army.entries
                   if not entry.profile.hidden_deployment and not entry.profile.combat_jump],
    }


async def list_armies(request: Request) -> Response:
    ruleset = request.query_params.get("ruleset")
    armies = sorted(sample_armies().values(), key=lambda army: army.id)
    if ruleset is not None:
        if ruleset not in {r.value for r in Ruleset}:
            return JSONResponse({"error": "bad_field", "message": "unknown ruleset"}, status_code=400)
        wanted = list_format_for(Ruleset(ruleset))
        armies = [army for army in armies if army.format is wanted]
    return JSONResponse({"armies": [army_summary(army) for army in armies]})


routes = [Route("/api/armies", list_armies, methods=["GET"])]
