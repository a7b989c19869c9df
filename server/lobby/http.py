"""The lobby's HTTP conventions, shared by every route under ``/api`` (the lobby's own, the
caster links', the tournaments'): a request body read with a size and a time limit as one
JSON object, and errors answered as ``{"error": code, "message": text}`` with a 4xx status
(a refusal for a limit also says when to retry).

A request body is read up to ``MAX_BODY_BYTES`` and no further (a table sent whole is the
largest body the lobby takes), within ``BODY_TIMEOUT_S``; a body that is not one JSON object
(malformed, nested too deep, ``NaN``) is 400 ``bad_json``.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncIterator
from typing import Any, NoReturn

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse

from server.lobby.admission import Refusal

MAX_BODY_BYTES = 64 * 1024
"""The largest request body read, as deploy/nginx.conf's ``client_max_body_size``: room
settings are tiny, and a table at the format's limits (docs/tables.md) fits."""
DRAIN_BYTES = 256 * 1024
"""After refusing a body for its size, the lobby reads and drops at most this much more of
it before it answers, so that a client that sends its whole body before it reads (most do)
finds the 413 rather than a connection reset; a body declared larger than the limit and
this together is refused unread. The connection is closed after the answer, so nothing
more of the body is read, by the lobby or by uvicorn."""
BODY_TIMEOUT_S = 10.0
"""How long a request body may take to arrive whole (408 ``body_timeout`` after): a client
that trickles one byte at a time holds a connection and a task, not the node."""


class BadRequest(Exception):
    """A request refused with ``{"error": code, "message": message}`` and ``status``."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def error_response(error: BadRequest) -> JSONResponse:
    # A body refused unread (too large, too slow): the connection is closed after the
    # answer, or uvicorn would go on reading whatever of it the client still sends.
    unread = error.status in (408, 413)
    return JSONResponse({"error": error.code, "message": error.message}, status_code=error.status,
                        headers={"Connection": "close"} if unread else None)


def refusal_response(refused: Refusal) -> JSONResponse:
    return JSONResponse({"error": refused.code, "message": refused.message,
                         "retry_after_s": refused.retry_after_s},
                        status_code=refused.status,
                        headers={"Retry-After": str(refused.retry_after_s)})


async def read_json_object(request: Request, limit: int = MAX_BODY_BYTES) -> dict[str, Any]:
    """The body as one JSON object, read up to ``limit`` bytes."""
    return json_object(await _bounded_body(request, limit))


async def read_body(request: Request, limit: int) -> bytes:
    """The body's bytes, read as ``read_json_object`` reads them (its size and time limits
    and refusals), for a caller that parses it elsewhere: a record posted to
    ``/api/replays`` is parsed in a worker thread (``server.replay.routes``)."""
    return await _bounded_body(request, limit)


def json_object(raw: bytes) -> dict[str, Any]:
    """``raw`` read as one JSON object, or ``BadRequest`` ``bad_json``: malformed or not
    UTF-8, nested deeper than Python's recursion allows, a number too long to read, or
    ``NaN``/``Infinity`` (not JSON; no answer could echo them)."""
    try:
        body = json.loads(raw, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:  # arrays or objects nested about a thousand deep
        raise BadRequest("bad_json", "the body is nested too deep") from None
    except ValueError as error:  # UnicodeDecodeError and JSONDecodeError among them
        raise BadRequest("bad_json", f"the body is not JSON: {str(error)[:120]}") from None
    if not isinstance(body, dict):
        raise BadRequest("bad_json", "the body must be a JSON object")
    return body


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999
        raise ValueError("a number beyond what a double holds")
    return value


async def _bounded_body(request: Request, limit: int) -> bytes:
    """The body, read chunk by chunk and never kept past ``limit`` bytes: a declared
    ``Content-Length`` above it is refused before any of it is read (413), a chunked body
    as soon as it passes it. Then at most ``DRAIN_BYTES`` more are read and dropped, and
    the connection is closed after the answer."""
    too_large = BadRequest("body_too_large", f"the body must be at most {limit} bytes", 413)
    declared = request.headers.get("content-length", "")
    chunks = request.stream()
    raw = bytearray()
    refused = False
    try:
        async with asyncio.timeout(BODY_TIMEOUT_S):
            if declared.isdigit() and int(declared) > limit:
                refused = True
                if int(declared) <= limit + DRAIN_BYTES:
                    await _drop(chunks, int(declared))
                raise too_large
            async for chunk in chunks:
                raw += chunk
                if len(raw) > limit:
                    refused = True
                    await _drop(chunks, DRAIN_BYTES)
                    raise too_large
    except TimeoutError:
        if refused:
            raise too_large from None
        raise BadRequest("body_timeout", f"the body must arrive within {BODY_TIMEOUT_S:g} s",
                         408) from None
    except ClientDisconnect:  # nobody will read the answer; nothing to log either
        raise BadRequest("bad_json", "the client left before its body arrived") from None
    return bytes(raw)


async def _drop(chunks: AsyncIterator[bytes], most: int) -> None:
    """Read and drop the rest of a refused body, up to ``most`` bytes."""
    dropped = 0
    async for chunk in chunks:
        dropped += len(chunk)
        if dropped >= most:
            return
