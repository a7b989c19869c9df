"""``GET /api/tables``: the table layouts a room may be created on, for the lobby's choice and
its preview (docs/tables.md). ``?ruleset=n5|codeone`` keeps the layouts of that ruleset.

Each layout comes whole (``table``: the JSON document ``POST /api/rooms`` also takes inline),
with its piece count, whether it is a sparse sample (for tests and the bench) and whether it
is the table a new room of its ruleset gets when the request names none (``default``).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.rules.ruleset import Ruleset
from server.rules.table import table_catalogue


def _listing(item: table_catalogue.Listed) -> dict[str, Any]:
    layout = item.layout
    defaults = {table_catalogue.default_table(r) for r in layout.rulesets}
    return {"id": layout.id, "title": layout.table.title,
            "rulesets": [r.value for r in layout.rulesets],
            "pieces": len(layout.table.terrain), "sample": item.sample,
            "default": layout.id in defaults, "table": layout.document()}


async def list_tables(request: Request) -> Response:
    ruleset = request.query_params.get("ruleset")
    if ruleset is not None and ruleset not in {r.value for r in Ruleset}:
        return JSONResponse({"error": "bad_field", "message": "unknown ruleset"}, status_code=400)
    listed = table_catalogue.layouts(None if ruleset is None else Ruleset(ruleset))
    return JSONResponse({"tables": [_listing(item) for item in listed]})


routes = [Route("/api/tables", list_tables, methods=["GET"])]
