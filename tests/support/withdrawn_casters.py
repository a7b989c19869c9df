"""What a withdrawn caster link gets at ``hello``: shared by the server's and the tournament
dashboard's caster tests."""

from __future__ import annotations

from protocol.constants import PROTOCOL_VERSION, CloseCode
from protocol.messages import Error, Hello, Snapshot, Welcome
from server.transport.caster_sessions import WITHDRAWN_MESSAGE
from testkit.wsclient import Client


async def refused_as_withdrawn(base: str, room_id: str, token: str) -> None:
    """``token`` opens nothing of the game: an error saying the link was withdrawn, then
    the close that tells the client not to reconnect."""
    client = await Client.connect(base, room_id, hello=False)
    await client.send(Hello(PROTOCOL_VERSION, room_id, token, None))
    error = await client.until(Error)
    assert (error.code, error.message) == ("caster_withdrawn", WITHDRAWN_MESSAGE)
    assert await client.close_code() == CloseCode.CASTER_WITHDRAWN
    assert not client.of(Welcome) and not client.of(Snapshot), "nothing of the game"
