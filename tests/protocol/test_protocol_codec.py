"""The one codec and the generated JS constants."""

from __future__ import annotations

import pytest

from protocol import codec, generate_js
from protocol.constants import ProtocolReason
from protocol.messages import (
    Accepted,
    Command,
    Events,
    Hello,
    Snapshot,
    command_answer,
    window_fields,
)


def test_generated_js_constants_are_up_to_date() -> None:
    """The JS client's constants are generated from the one source (issue 4, Protocol)."""
    assert generate_js.JS_PATH.read_text(encoding="utf-8") == generate_js.render()


@pytest.mark.parametrize("message", [
    Hello(1, "room", None, None),
    Command("c1", 3, {"type": "pass_aro", "trooper": "B-t2"}),
])
def test_client_messages_round_trip(message: object) -> None:
    assert codec.decode_client(codec.encode(message)) == message  # type: ignore[arg-type]


@pytest.mark.parametrize("message", [
    Events(4, [{"type": "order_spent"}, None], None),
    Events(5, [None], window_fields(3, 1, "B", 1_700_000_000_000, 29_000)),
    Events(6, [], None),  # nothing missed, or a window closed without an event
    Events(7, [{"type": "order_spent"}], None, "c17"),  # the commander's: its answer
    Snapshot(2, {"x": 1}, window_fields(3, 1, "B", 1_700_000_000_000, 29_000),
             {"A": "connected", "B": "empty"}),
])
def test_server_messages_round_trip(message: object) -> None:
    assert codec.decode_server(codec.encode(message)) == message  # type: ignore[arg-type]


def test_an_events_frame_must_say_which_window_is_open() -> None:
    """Protocol 2: the window travels in every events frame (nil when none is open)."""
    with pytest.raises(codec.DecodeError) as caught:
        codec.decode_server(codec.pack_plain({"type": "events", "first": 1, "events": []}))
    assert caught.value.code == ProtocolReason.BAD_MESSAGE
    for gone in ("window_open", "window_closed"):
        with pytest.raises(codec.DecodeError) as caught:
            codec.decode_server(codec.pack_plain({"type": gone, "order": 1, "step": 1}))
        assert caught.value.code == ProtocolReason.UNKNOWN_MESSAGE_TYPE


def test_an_events_frame_that_names_a_command_stands_for_its_accepted() -> None:
    """Protocol 3: the commander's events frame is its command's answer."""
    frame = codec.encode(Events(7, [{"type": "order_spent"}, None], None, "c17"))
    wire = codec.unpack_plain(frame)
    assert wire["accepted"] == "c17"
    assert command_answer(codec.decode_server(frame)) == Accepted("c17", 8)
    assert command_answer(Events(7, [None], None)) is None, "another viewer's frame"
    assert codec.unpack_plain(codec.encode(Events(7, [], None)))["accepted"] is None


@pytest.mark.parametrize(("frame", "code"), [
    (b"\xc1", ProtocolReason.MALFORMED_FRAME),
    (codec.pack_plain("hello"), ProtocolReason.MALFORMED_FRAME),
    (codec.pack_plain({"type": 3}), ProtocolReason.UNKNOWN_MESSAGE_TYPE),
    (codec.pack_plain({"type": "command", "id": "", "version": 1, "body": {}}),
     ProtocolReason.BAD_MESSAGE),
    (codec.pack_plain({"type": "hello", "protocol": 1, "room": "r" * 500}),
     ProtocolReason.BAD_MESSAGE),
])
def test_bad_frames_raise_decode_error_with_their_code(frame: bytes, code: str) -> None:
    with pytest.raises(codec.DecodeError) as caught:
        codec.decode_client(frame)
    assert caught.value.code == code


@pytest.mark.parametrize("clocks", [None, {"A": {"remaining_ms": 4_500_000, "running": True}}])
@pytest.mark.parametrize("state", [
    {},
    {"turn": 2, "troopers": [{"id": f"A-t{i}", "wounds": i % 2} for i in range(40)]},
    {f"key{i}": list(range(i)) for i in range(20)},  # more than 15 keys: a map16 header
])
def test_a_snapshot_with_its_state_already_packed_is_the_same_frame(
        state: dict[str, object], clocks: dict[str, object] | None) -> None:
    """A crowd's snapshot reuses its state's encoding (``Room._packed_view``): the frame must
    be byte for byte the one ``encode`` makes, or clients would read something else."""
    window = window_fields(3, 1, "B", 1_764_000_000_000, 1_234)
    whole = codec.encode(Snapshot(7, state, window, {"A": "here", "B": "away"}, clocks))
    spliced = codec.encode_with_packed(
        Snapshot(7, {"ignored": True}, window, {"A": "here", "B": "away"}, clocks),
        state=codec.pack_plain(state))
    assert spliced == whole
    assert codec.decode_server(spliced) == Snapshot(7, state, window, {"A": "here", "B": "away"},
                                                    clocks)
