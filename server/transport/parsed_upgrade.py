"""A websocket upgrade request read once: httptools' parse handed to websockets' sans-I/O
protocol as the ``Request`` it would have parsed, instead of parsed twice.

uvicorn's httptools protocol parses the upgrade request (C), then re-serialises it from the
scope and feeds the bytes to the websocket protocol, where websockets' ``ServerProtocol``
parses them again with ``Request.parse`` (Python, a generator per line): after a restart
every member's upgrade arrives at once, and the second parse and the re-serialisation were a
fifth of the handshake's CPU (``bench.handshake_cost``).

``upgrade_request`` builds that ``Request`` from what httptools read, exactly as
``Request.parse`` would read uvicorn's re-serialisation of it (same path, same headers in
the same order, same values), and only where it would read it without an error: within
websockets' limits (``MAX_NUM_HEADERS`` headers, lines of ``MAX_LINE_LENGTH`` bytes with
their CRLF), header names and values its own patterns accept, values it would not strip,
no ``Transfer-Encoding``, no body (``Content-Length`` absent or 0). Any other request gets
``None`` and goes the way it always went, so websockets answers it (414, 431, or closes)
as before. The websocket's scope then holds the very header list httptools read, which
is what uvicorn's ``handle_connect`` rebuilds from the parsed ``Request`` for such a request.

``KeepaliveProtocol.receive_parsed_request`` gives the request to the websocket protocol as
``ServerProtocol.parse`` does once ``Request.parse`` returns: its first event, the parser
reading frames from then on. This reaches into websockets' ``ServerProtocol`` (its
``events``) and the module constants of ``websockets.http11``:
``tests/transport/test_parsed_upgrade.py`` checks that the request built here equals the
one parsed from the bytes, for many requests, and ``test_library_pins.py`` that the
installed sources are those read.
"""

from __future__ import annotations

from websockets.datastructures import Headers
from websockets.http11 import MAX_LINE_LENGTH, MAX_NUM_HEADERS, Request, _token_re, _value_re

_REQUEST_LINE_EXTRA = len(b"  HTTP/1.1\r\n")
_HEADER_LINE_EXTRA = len(b": \r\n")


def upgrade_request(method: str, url: bytes, headers: list[tuple[bytes, bytes]]
                    ) -> Request | None:
    """The ``Request`` websockets would parse from uvicorn's re-serialisation of this
    request (``method``, raw ``url``, the scope's lower-cased header list), or None where
    that parse might differ or fail."""
    if (len(headers) > MAX_NUM_HEADERS
            or len(method) + len(url) + _REQUEST_LINE_EXTRA > MAX_LINE_LENGTH
            or not url.isascii() or b" " in url or b"\n" in url):
        return None
    parsed = Headers()
    for name, value in headers:
        if (len(name) + len(value) + _HEADER_LINE_EXTRA > MAX_LINE_LENGTH
                or not _token_re.fullmatch(name)
                or not _value_re.fullmatch(value)
                or value != value.strip(b" \t")):
            return None
        lowered = name.lower()
        if lowered == b"transfer-encoding" or (lowered == b"content-length" and value != b"0"):
            return None  # websockets refuses a request with a body
        parsed.set_insecure(name.decode("ascii"), value.decode("iso-8859-1"))
    return Request(url.decode("ascii"), parsed, method, "HTTP/1.1")
