"""The websocket fuzzer at its smoke size (issue 18): generated frames against a real server
and a real Redis, each checked against protocol/README.md, the rooms' state compared
before and after what was refused, and the server's log read for tracebacks. The harness is
``testkit.fuzz`` (its long run: ``python -m bench.fuzz --frames 100000``), the generators
``testkit/fuzz/frames.py``. Then the bug it found, as a regression test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from protocol import codec
from protocol.constants import CloseCode, ProtocolReason
from protocol.messages import Error, Ping, Pong
from testkit.fuzz.frames import Deep, pack
from testkit.fuzz.harness import Conn, Fuzzing, drive, fuzzing, rounds
from testkit.fuzz.oracle import log_violations

pytestmark = [pytest.mark.redis, pytest.mark.slow]

ROUNDS = 120
"""Rounds of one batch per room (five rooms, up to 24 frames a batch): some 1,600 frames."""


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzing]:
    with fuzzing(tmp_path_factory.mktemp("fuzz-protocol"), lobby=False) as running:
        yield running


def test_generated_frames_get_their_documented_answers_and_change_no_room(fuzz: Fuzzing) -> None:
    drive(ROUNDS, rounds(), fuzz.protocol_round)  # derandomized: the same frames every run
    tally = fuzz.protocol.tally
    unknown = tally.unknown()
    assert not unknown, "\n".join(str(v)[:2000] for v in unknown[:10])
    # The run reached what it is there to check.
    assert tally.frames >= 1200
    assert tally.state_checks >= 400
    assert {
        "error malformed_frame", "error unknown_message_type", "error bad_message",
        "error unexpected_message", "rejected bad_message", "rejected bad_command",
        "rejected stale_version", "rejected future_version", "rejected spectator_read_only",
        "rejected unknown_trooper", "pong", "options", "measurement", "history", "snapshot",
    } <= set(tally.answers), tally.answers
    assert {CloseCode.PROTOCOL_ERROR, CloseCode.FRAME_TOO_LARGE} <= set(tally.closes)
    assert tally.resent > 0, "answers lost to a close were asked for again"


def test_a_type_nested_a_thousand_deep_is_an_unknown_message_type(fuzz: Fuzzing) -> None:
    """Found by the fuzzer: repr() of such a type in the error's message raised
    RecursionError, which killed the socket (1006) with a traceback (fixed in 1092afb)."""
    room = fuzz.protocol.rooms[0]

    async def exchange() -> tuple[Conn, list[str]]:
        spectator = await Conn.open(fuzz.protocol.base, room.id, None, "spectator")
        await spectator.send(pack({"type": Deep(1000)}))
        await spectator.send(codec.encode(Ping(7)))
        await spectator.wait(lambda: any(isinstance(f, Pong) for f in spectator.frames))
        log = await fuzz.protocol.server.settled_log()
        await spectator.close()
        return spectator, log

    spectator, log = fuzz.loop.run(exchange())
    errors = [f for f in spectator.frames if isinstance(f, Error)]
    assert [e.code for e in errors] == [ProtocolReason.UNKNOWN_MESSAGE_TYPE]
    assert Pong(7) in spectator.frames, "the connection stays open"
    assert not log_violations(log, fuzz.protocol.tally, "deep type")
