"""A protocol 4 socket gets its welcome and catch-up as one frame (``server.transport.greeting``),
whatever came between them and however the session writes."""

from __future__ import annotations

from protocol import codec
from protocol.messages import Events, Presence, Snapshot, Spectators, Welcome
from server.transport.direct_frames import DirectFrames, binary_frame
from server.transport.greeting import WelcomeMerge
from server.transport.session import Session
from tests.transport.test_direct_frames import RecordingSend, open_connection

WELCOME = codec.encode(Welcome(4, "room", "spectator", 7, {}, {"A": "connected"}))
CATCH_UP = codec.encode(Events(8, [{"type": "order_spent"}], None))
SNAPSHOT = codec.encode(Snapshot(7, {"phase": "orders"}, None, {"A": "connected"}))
COUNT = codec.encode(Spectators(3))
PRESENCE = codec.encode(Presence("B", "away", None))


def greeted(frame: bytes) -> Welcome:
    message = codec.decode_server(frame)
    assert isinstance(message, Welcome)
    return message


def test_the_welcome_waits_for_its_catch_up_and_carries_it() -> None:
    merge = WelcomeMerge()
    assert merge.take(WELCOME) is None
    assert merge.take(COUNT) is None, "a spectator count sent while the catch-up was read"
    [merged, count] = merge.take(CATCH_UP) or []
    assert count == COUNT, "what came between goes after the welcome, as before"
    welcome = greeted(merged)
    assert codec.catch_up_of(welcome) == codec.decode_server(CATCH_UP)
    assert welcome.version == 7 and welcome.seats == {"A": "connected"}
    # Byte for byte what encode makes of the welcome holding the catch-up.
    plain = codec.unpack_plain(CATCH_UP)
    assert merged == codec.encode(Welcome(4, "room", "spectator", 7, {}, {"A": "connected"},
                                          catch_up=plain))


def test_a_snapshot_is_carried_as_well() -> None:
    merge = WelcomeMerge()
    merge.take(WELCOME)
    [merged] = merge.take(SNAPSHOT) or []
    assert isinstance(codec.catch_up_of(greeted(merged)), Snapshot)


def test_a_first_frame_that_is_no_welcome_goes_as_it_is() -> None:
    assert WelcomeMerge().take(PRESENCE) == [PRESENCE]


def test_a_protocol_4_session_writes_one_frame_where_protocol_3_writes_two() -> None:
    for carries, expected in ((True, 1), (False, 2)):
        connection = open_connection()
        session = Session(RecordingSend(), None, 4, lambda _audience: b"snapshot",  # type: ignore[arg-type]
                          DirectFrames(connection), welcome_carries_catch_up=carries)
        session.hold_frames()  # as the room greets: CatchUp.greet
        session.deliver(WELCOME)
        session.deliver(COUNT)
        session.deliver(CATCH_UP)
        session.send_held()
        session.deliver(PRESENCE)
        written = b"".join(connection.transport.written)
        frames = [codec.decode_server(frame) for frame in _payloads(written)]
        assert len(frames) == expected + 2
        assert isinstance(frames[0], Welcome) and type(frames[-1]) is Presence
        if carries:
            assert frames[1] == codec.decode_server(COUNT)
            assert codec.catch_up_of(frames[0]) == codec.decode_server(CATCH_UP)
        else:
            assert frames[0].catch_up is None and frames[1:3] == [
                codec.decode_server(COUNT), codec.decode_server(CATCH_UP)]


def test_a_relayed_greeting_frame_by_frame_is_merged_too() -> None:
    """A relay node hands on the owner's frames one at a time, with no hold."""
    connection = open_connection()
    session = Session(RecordingSend(), None, 4, lambda _audience: b"snapshot",  # type: ignore[arg-type]
                      DirectFrames(connection), welcome_carries_catch_up=True)
    session.deliver(WELCOME)
    assert connection.transport.written == [], "the welcome waits for its catch-up"
    session.deliver(SNAPSHOT)
    [merged] = connection.transport.written
    assert codec.catch_up_of(greeted(_payloads(merged)[0])) == codec.decode_server(SNAPSHOT)
    session.deliver(COUNT)
    assert connection.transport.written[1:] == [binary_frame(COUNT)]


async def test_a_close_before_the_catch_up_sends_the_welcome_alone_first() -> None:
    connection = open_connection()
    send = RecordingSend()
    session = Session(send, None, 4, lambda _audience: b"snapshot",  # type: ignore[arg-type]
                      DirectFrames(connection), welcome_carries_catch_up=True)
    session.hold_frames()
    session.deliver(WELCOME)
    session.close(4011, "room stopped; reconnect")
    await session.drained()
    assert connection.transport.written == [binary_frame(WELCOME)]
    assert send.sent == [{"type": "websocket.close", "code": 4011,
                          "reason": "room stopped; reconnect"}]


def _payloads(written: bytes) -> list[bytes]:
    """The payloads of unmasked server frames (short and 16-bit lengths: these tests' sizes)."""
    payloads, at = [], 0
    while at < len(written):
        size = written[at + 1] & 0x7F
        at += 2
        if size == 126:
            size = int.from_bytes(written[at:at + 2], "big")
            at += 2
        payloads.append(written[at:at + size])
        at += size
    return payloads
