"""Websocket compression is not negotiated unless configured (docs/server.md, "The process"):
a browser offers permessage-deflate; the server declines it by default."""

from __future__ import annotations

import pytest
from websockets.asyncio.client import connect

from protocol.constants import WS_PATH
from testkit.serving import running_server
from tests.helpers import settings


@pytest.mark.parametrize(("enabled", "negotiated"), [(False, False), (True, True)])
async def test_permessage_deflate_is_declined_unless_enabled(enabled: bool,
                                                            negotiated: bool) -> None:
    async with running_server(settings(ws_per_message_deflate=enabled)) as url:
        ws_url = url.replace("http://", "ws://") + WS_PATH
        async with connect(ws_url, compression="deflate") as ws:  # offered, as browsers do
            extensions = ws.response.headers.get("Sec-WebSocket-Extensions")
            assert (extensions is not None and "permessage-deflate" in extensions) is negotiated
