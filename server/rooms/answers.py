"""Every command gets exactly one answer: which frame carries it, and remembering it.

A command's answer is an ``accepted`` or a ``rejected`` frame, or -- when it was accepted
with events -- the ``events`` frame of its commander's audience, which names it
(``Events.accepted``): the seat's audience has one subscriber, the seat's connection, so
the answer then costs no frame of its own (``answering``). A connection replaced since it
sent the command gets its answer on its own.

Each seat remembers the answers to its latest command ids (``AnswerCache``, the room's
``answer_cache_size``): a repeated id -- a client that resends after a reconnect -- gets
the same answer again, as a standalone frame, and the command is not decided twice
(``repeated``). Only the answer of a command that changed the room is stored (with its
events, ``Room._commit``), so only that one outlives the room's time in memory: a rejected
command changed nothing, and sent again to the room loaded anew it is decided again. A
command the room failed on is answered ``internal_error`` (remembered: it was decided) or,
when the store was unavailable, ``storage_unavailable`` ("try again", not remembered:
nothing was stored, so the same id may be sent again).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from protocol.constants import ProtocolReason
from server.fanout import Fanout
from server.metrics import COMMAND_OUTCOMES
from server.rooms import frames
from server.rooms.messages import Submit
from server.rooms.presence import Presence
from server.store import Answer
from server.store.interface import TRY_AGAIN


class AnswerCache:
    """The encoded answers to a seat's most recent command ids (oldest evicted first)."""

    __slots__ = ("_answers", "_capacity")

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._answers: OrderedDict[str, bytes] = OrderedDict()

    def get(self, command_id: str) -> bytes | None:
        return self._answers.get(command_id)

    def put(self, command_id: str, frame: bytes) -> None:
        self._answers[command_id] = frame
        if len(self._answers) > self._capacity:
            self._answers.popitem(last=False)


class CommandAnswers:
    __slots__ = ("_caches", "_fanout", "_presence", "_room_id")

    def __init__(self, room_id: str, capacity: int, stored: Sequence[Answer],
                 presence: Presence, fanout: Fanout) -> None:
        """``stored``: the stored answers to the seats' latest commands, oldest first."""
        self._room_id = room_id
        self._fanout = fanout
        self._presence = presence
        self._caches = {side: AnswerCache(capacity) for side in presence.seats}
        for answer in stored:
            if answer.seat in self._caches:
                self._caches[answer.seat].put(answer.command_id, answer.frame)

    def repeated(self, seat: str, command_id: str) -> bytes | None:
        """The answer ``seat`` had to ``command_id`` already, if it is remembered."""
        return self._caches[seat].get(command_id)

    def answering(self, message: Submit, seat: str) -> frames.Answering | None:
        """Whose events frame may carry the command's acceptance: the seat's audience, whose
        one subscriber is the seat's connection, if the command came from it. A connection
        replaced since it sent the command gets its answer on its own (``answer``)."""
        commander = self._presence.seats[seat]
        if (commander.member is not message.member
                or not self._fanout.count(self._room_id, commander.audience)):
            return None
        return frames.Answering(commander.audience, message.command.id)

    def answer(self, message: Submit, frame: bytes, *, told: bool = False) -> None:
        """Remember the answer (encoded) under the command's id (a repeated id gets it
        again, as a standalone ``accepted`` or ``rejected``) and send it, unless the
        commander was ``told`` already by the events frame that names the command."""
        if message.seat is not None:
            self._caches[message.seat].put(message.command.id, frame)
        if not told:
            message.member.deliver(frame)

    def failed(self, message: Submit) -> None:
        """The room failed on a seat's command: nothing was applied."""
        COMMAND_OUTCOMES.rejected(ProtocolReason.INTERNAL_ERROR)
        self.answer(message, frames.rejected(
            message.command.id, ProtocolReason.INTERNAL_ERROR,
            "the server failed; the command was not applied"))

    def unavailable(self, message: Submit) -> None:
        """The store was unavailable for a seat's command: nothing was stored, so nothing
        changed; "try again", not remembered under the command's id."""
        COMMAND_OUTCOMES.rejected(ProtocolReason.STORAGE_UNAVAILABLE)
        message.member.deliver(frames.rejected(
            message.command.id, ProtocolReason.STORAGE_UNAVAILABLE, TRY_AGAIN))
