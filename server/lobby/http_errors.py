"""The lobby's answer to a path or a method it does not have, and to a request the store
cannot serve now: JSON, like its other errors.

Starlette's router answers an unknown path or a method a route does not take with a text
body ("Not Found"). Under ``/api`` a client reads every error as ``{"error", "message"}``
(protocol/README.md), so those two answers are JSON there too; the browser app's static
files keep the router's plain answers.

A route that meets ``StorageUnavailable`` (Redis down or failing over, or on a cluster a
room's shard with no replica to confirm a load on: docs/deploy.md) and does not answer it
itself is answered 503 ``storage_unavailable`` with ``Retry-After``, not a bare 500: nothing
was done, and the same request may be sent again in a moment. The store's own words (which
name Redis nodes) go to the log, not to the client.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Match, Route

from server.store.interface import StorageUnavailable

log = logging.getLogger(__name__)

API_PREFIX = "/api/"

_CODES = {404: ("not_found", "no such path in the lobby's API"),
          405: ("method_not_allowed", "this path does not take that method")}


async def lobby_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    headers = dict(exc.headers or {})  # 405 names the methods it takes (Allow)
    if not request.url.path.startswith(API_PREFIX) or exc.status_code not in _CODES:
        return PlainTextResponse(exc.detail, status_code=exc.status_code, headers=headers)
    code, message = _CODES[exc.status_code]
    return JSONResponse({"error": code, "message": message}, status_code=exc.status_code,
                        headers=headers)


STORAGE_RETRY_AFTER_S = 2
"""What a 503 ``storage_unavailable`` asks a client to wait before it tries again (a Redis
failover takes a few seconds; docs/deploy.md)."""


async def storage_unavailable(request: Request, exc: Exception) -> Response:
    log.warning("%s %s: storage unavailable: %s", request.method, request.url.path, exc)
    return JSONResponse({"error": "storage_unavailable",
                         "message": "the game store is unavailable for a moment: nothing was "
                                    "done; try again in a few seconds"},
                        status_code=503, headers={"Retry-After": str(STORAGE_RETRY_AFTER_S)})


exception_handlers = {404: lobby_http_error, 405: lobby_http_error,
                      StorageUnavailable: storage_unavailable}


def api_fallback(api_routes: Sequence[BaseRoute]) -> Route:
    """A last route for every path under ``/api`` the lobby's routes do not take whole.

    Without it the browser app's static files, mounted at ``/``, would take such a request
    whole and answer 404 even where a route has the path but not the method; here a path a
    route has answers 405 with the methods it takes (``Allow``), any other 404.
    """

    async def fallback(request: Request) -> Response:
        allowed: set[str] = set()
        for route in api_routes:
            match, _ = route.matches(request.scope)
            if match is Match.PARTIAL and isinstance(route, Route) and route.methods:
                allowed |= route.methods
        if allowed:
            raise HTTPException(405, headers={"Allow": ", ".join(sorted(allowed))})
        raise HTTPException(404)

    return Route(API_PREFIX + "{rest:path}", fallback,
                 methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
